"""One error shape for every refusal: ``{"error": {"code", "message"}}`` with a 4xx status.

Every error the API raises is a ``BasraError`` with a stable ``code``; this module holds the
API's own errors, the status of every code, and the exception handlers that turn any of them
(and Litestar's own validation errors) into that shape, in one place.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain import errors as domain_errors
from domain.errors import BasraError

log = logging.getLogger("basra.api")


class ErrorDetail(msgspec.Struct, frozen=True):
    """What went wrong: a stable machine-readable ``code`` and a message for people."""

    code: str
    message: str


class ErrorBody(msgspec.Struct, frozen=True):
    """The body of every 4xx (and 5xx) response."""

    error: ErrorDetail


class ApiError(BasraError):
    """An error of the HTTP layer itself; ``status`` is its HTTP status code."""

    code = "bad_request"
    status = 400


class MalformedJsonError(ApiError):
    """The body is not JSON."""

    code = "malformed_json"
    status = 400


class MissingBodyError(ApiError):
    """The route needs a JSON body and none was sent."""

    code = "missing_body"
    status = 400


class UnknownFieldError(ApiError):
    """The body has a field the route does not know."""

    code = "unknown_field"
    status = 422


class MissingFieldError(ApiError):
    """The body lacks a required field."""

    code = "missing_field"
    status = 422


class WrongTypeError(ApiError):
    """A field or parameter has the wrong JSON type."""

    code = "wrong_type"
    status = 422


class InvalidValueError(ApiError):
    """A field or parameter is out of its allowed range or length."""

    code = "invalid_value"
    status = 422


class BodyTooLargeError(ApiError):
    """The body is larger than the server accepts."""

    code = "body_too_large"
    status = 413


class RouteNotFoundError(ApiError):
    """No route has this path."""

    code = "not_found"
    status = 404


class MethodNotAllowedError(ApiError):
    """The route exists but not with this method."""

    code = "method_not_allowed"
    status = 405


class MissingTokenError(ApiError):
    """The route needs a bearer token and none was sent."""

    code = "missing_token"
    status = 401


class UnknownTokenError(ApiError):
    """The bearer token is not one this server issued."""

    code = "unknown_token"
    status = 401


class WrongMatchError(ApiError):
    """The token belongs to another match."""

    code = "wrong_match"
    status = 403


class WrongSeatError(ApiError):
    """The token belongs to another seat of this match."""

    code = "wrong_seat"
    status = 403


class SupportOnlyError(ApiError):
    """Only support staff (or anyone, once the match has ended) may use this route now."""

    code = "support_only"
    status = 403


class SeatOnlyError(ApiError):
    """Only a seat of the match may do this (support watches but does not play)."""

    code = "seat_only"
    status = 403


class SeedRefusedError(ApiError):
    """A text seed is accepted only when the server runs in test mode (BASRA_TEST_MODE=1)."""

    code = "seed_refused"
    status = 403


class IdempotencyKeyReusedError(ApiError):
    """An ``Idempotency-Key`` was sent again with a different body."""

    code = "idempotency_key_reused"
    status = 422


class InvalidHeaderError(ApiError):
    """A header has a value the API cannot use."""

    code = "invalid_header"
    status = 400


class _OtherHttpError(ApiError):
    """Any other HTTP error Litestar raises, under ``http_STATUS``."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.code = f"http_{status}"
        self.status = status


class InternalError(ApiError):
    """Something failed inside the server; the message says nothing about the match."""

    code = "internal_error"
    status = 500


DOMAIN_STATUS: Final[dict[str, int]] = {
    domain_errors.UnknownCardError.code: 422,
    domain_errors.UnknownRulesetError.code: 422,
    domain_errors.InvalidSeatCountError.code: 422,
    domain_errors.InvalidTargetError.code: 422,
    domain_errors.InvalidSeatError.code: 422,
    domain_errors.SeatTakenError.code: 409,
    domain_errors.MatchNotStartedError.code: 409,
    domain_errors.MatchEndedError.code: 409,
    domain_errors.MatchAlreadyCreatedError.code: 409,
    domain_errors.NotYourTurnError.code: 409,
    domain_errors.CardNotInHandError.code: 422,
    domain_errors.InvalidSecretError.code: 422,
    domain_errors.InvalidClientSeedError.code: 422,
    domain_errors.UnseededMatchError.code: 409,
    domain_errors.InvalidEventError.code: 422,
    "match_not_found": 404,
    "conflict": 409,
    "corrupt_event": 500,
    "store_unavailable": 503,
}
"""The HTTP status of every error code raised below the API (domain and store)."""


def status_of(error: BasraError) -> int:
    """The HTTP status for a BasraError: its own ``status``, the table above, else 422."""
    own = getattr(error, "status", None)
    if isinstance(own, int):
        return own
    return DOMAIN_STATUS.get(error.code, 422)


def error_response(code: str, message: str, status: int) -> Response[ErrorBody]:
    """The one error shape."""
    return Response(ErrorBody(ErrorDetail(code, message)), status_code=status)


def validation_error(message: str) -> ApiError:
    """The API error for one of msgspec's validation messages."""
    if "unknown field" in message:
        return UnknownFieldError(message)
    if "missing required field" in message:
        return MissingFieldError(message)
    if message.startswith("Expected `") and ", got `" in message:
        return WrongTypeError(message)
    return InvalidValueError(message)


def _from_validation(exc: ValidationException) -> ApiError:
    """Litestar reports msgspec's decode errors as text; give each kind its own code."""
    extra: Any = exc.extra
    items = extra if isinstance(extra, list) else []
    first = items[0] if items and isinstance(items[0], dict) else {}
    text = str(first.get("message", exc.detail))
    key = first.get("key")
    where = f" (at {key})" if key and key != "data" else ""
    if text == "'data'":
        return MissingBodyError("this route needs a JSON body")
    if "malformed" in text.lower() or "truncated" in text.lower():
        return MalformedJsonError(text)
    return validation_error(text + where)


def _from_http(exc: HTTPException) -> ApiError:
    if isinstance(exc, ValidationException):
        return _from_validation(exc)
    status = exc.status_code
    if status == 404:
        return RouteNotFoundError("no such route")
    if status == 405:
        return MethodNotAllowedError("this route does not take that method")
    if status == 413:
        return BodyTooLargeError("the request body is too large")
    if status == 400:
        # msgspec's DecodeError text: "Input data was truncated", "JSON is malformed: ...".
        return MalformedJsonError(f"the body is not valid JSON: {exc.detail}")
    return _OtherHttpError(str(exc.detail), status)


def handle_basra_error(_: Request[Any, Any, Any], exc: BasraError) -> Response[ErrorBody]:
    """A refusal by the rules, the store or the API: its code, message and status."""
    status = status_of(exc)
    if status >= 500:
        log.error("server error %s: %s", exc.code, exc.message)
    return error_response(exc.code, exc.message, status)


def handle_http_error(_: Request[Any, Any, Any], exc: HTTPException) -> Response[ErrorBody]:
    """Litestar's own errors (routing, body decoding, size) in the same shape."""
    error = _from_http(exc)
    return error_response(error.code, error.message, error.status)


def handle_unexpected(_: Request[Any, Any, Any], exc: Exception) -> Response[ErrorBody]:
    """Anything else: logged in full on the server, a generic 500 for the client."""
    log.exception("unexpected error", exc_info=exc)
    return error_response(InternalError.code, "the server failed to handle this request", 500)


EXCEPTION_HANDLERS: Final = {
    BasraError: handle_basra_error,
    HTTPException: handle_http_error,
    Exception: handle_unexpected,
}
"""The exception handlers of the app: every error leaves through here."""
