"""The API's own errors, and the HTTP status of every project error, by its cause.

Every error leaves the API as ``{"error": {"code", "message"}}``; ``status_of`` gives its
status, the ``http_status`` of the nearest of its class's bases that sets one (a cause or
sub-cause, ``domain.errors``), so a new class is answered as its cause is. A class under no
cause has none: a bug, answered as a 500. Litestar's handlers that write the shape are in
``app.api.edges.error_handlers``; this module imports no Litestar, so the command line can read the
classes cheaply.
"""

from __future__ import annotations

import typing
from types import UnionType
from typing import Any, Final, Literal

import msgspec

from app.errors import EX_TEMPFAIL
from domain.errors import (
    BadSyntaxError,
    BasraError,
    DoesNotFitError,
    ForbiddenError,
    NotFoundError,
    RequestError,
    UnauthenticatedError,
)


class ErrorDetail(msgspec.Struct, frozen=True):
    """What went wrong: a stable machine-readable ``code`` and a message for people."""

    code: str
    message: str


class ErrorBody(msgspec.Struct, frozen=True):
    """The body of every 4xx (and 5xx) response."""

    error: ErrorDetail


class ApiError(RequestError):
    """A request error found by the HTTP layer itself; never raised itself.

    It sets no status: each of its classes is also under the sub-cause it belongs to."""

    code = "bad_request"


class MalformedJsonError(ApiError, BadSyntaxError):
    """The body is not JSON."""

    code = "malformed_json"


class MissingBodyError(ApiError, BadSyntaxError):
    """The route needs a JSON body and none was sent."""

    code = "missing_body"


class UnknownFieldError(ApiError, DoesNotFitError):
    """The body has a field the route does not know."""

    code = "unknown_field"


class MissingFieldError(ApiError, DoesNotFitError):
    """The body lacks a required field."""

    code = "missing_field"


class WrongTypeError(ApiError, DoesNotFitError):
    """A field or parameter has the wrong JSON type."""

    code = "wrong_type"


class InvalidValueError(ApiError, DoesNotFitError):
    """A field or parameter is out of its allowed range or length."""

    code = "invalid_value"


class BodyTooLargeError(ApiError):
    """The body is larger than the server accepts."""

    code = "body_too_large"
    http_status = 413


class RouteNotFoundError(ApiError, NotFoundError):
    """No route has this path."""

    code = "not_found"


class MethodNotAllowedError(ApiError):
    """The route exists but not with this method."""

    code = "method_not_allowed"
    http_status = 405


class MissingTokenError(ApiError, UnauthenticatedError):
    """The route needs a bearer token and none was sent."""

    code = "missing_token"


class UnknownTokenError(ApiError, UnauthenticatedError):
    """The bearer token is not one this server issued."""

    code = "unknown_token"


class WrongMatchError(ApiError, ForbiddenError):
    """The token belongs to another match."""

    code = "wrong_match"


class WrongSeatError(ApiError, ForbiddenError):
    """The token belongs to another seat of this match."""

    code = "wrong_seat"


class SupportOnlyError(ApiError, ForbiddenError):
    """Only support staff (or anyone, once the match has ended) may use this route now."""

    code = "support_only"


class SeatOnlyError(ApiError, ForbiddenError):
    """Only a seat of the match may do this (support watches but does not play)."""

    code = "seat_only"


class SeedRefusedError(ApiError, ForbiddenError):
    """A text seed is accepted only when the server runs in test mode (BASRA_TEST_MODE=1)."""

    code = "seed_refused"


class IdempotencyKeyReusedError(ApiError, DoesNotFitError):
    """An ``Idempotency-Key`` was sent again with a different body."""

    code = "idempotency_key_reused"


class InvalidHeaderError(ApiError, BadSyntaxError):
    """A header has a value the API cannot use."""

    code = "invalid_header"


class OverloadedError(ApiError):
    """The process sheds load: a new table, a spectator feed or a lobby read; retry later."""

    code = "overloaded"
    http_status = 503
    exit_status = EX_TEMPFAIL


class RateLimitedError(ApiError):
    """Too many requests of one kind from one client address: wait ``retry_after`` seconds."""

    code = "rate_limited"
    http_status = 429
    exit_status = EX_TEMPFAIL

    def __init__(
        self, message: str, retry_after: int = 1, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)
        self.headers = dict(headers or {})
        """The ``RateLimit-*`` headers of the limit that refused (docs/api.md, "Limits")."""


class TokenInQueryError(ApiError, UnauthenticatedError):
    """A player or support token was sent in a query string, where only a seat's is taken."""

    code = "token_in_query"


class SpectatorsRefusedError(ApiError, ForbiddenError):
    """The table was created with ``"spectators": false``: only its seats and support see it."""

    code = "spectators_refused"


class InvalidFilterError(ApiError, BadSyntaxError):
    """A lobby filter names no status, rule set or table size that exists."""

    code = "invalid_filter"


INTERNAL_ERROR: Final = "internal_error"
"""The code of a 500 for anything that is not a project error (logged in full on the server)."""


def status_of(error: BasraError) -> int | None:
    """The HTTP status of ``error``: that of the nearest of its class's bases (its MRO) that
    sets ``http_status``, its cause or sub-cause; None under no cause (a bug, answered 500)."""
    return type(error).http_status


def _shape(hint: Any) -> Any:
    """The JSON shape of a field's type, without its limits: ``Literal["a"]`` is ``str``."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Literal:
        return typing.Union[tuple(type(arg) for arg in args)]  # noqa: UP007
    if origin is typing.Union or origin is UnionType:
        return typing.Union[tuple(_shape(arg) for arg in args)]  # noqa: UP007
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple[_shape(args[0]), ...]  # type: ignore[misc]
    if origin is tuple:
        return tuple[tuple(_shape(arg) for arg in args)]  # type: ignore[misc]
    return hint


def _kind(value: object) -> str:
    """The JSON kind of a decoded value."""
    names = {dict: "object", list: "array", str: "str", bool: "bool", int: "int", float: "float"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def body_error(raw: bytes, body_type: type[msgspec.Struct]) -> ApiError:
    """Why a JSON body does not fit ``body_type``, found from its structure, field by field.

    Call it once a strict decode has refused the body as invalid (not as malformed JSON): an
    extra field, a missing one, a value of the wrong JSON type (types are strict: ``"3"`` is
    not ``3``), else a value out of its range or length.
    """
    try:
        value = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return MalformedJsonError("the body is not valid JSON")
    if not isinstance(value, dict):
        return WrongTypeError(f"Expected `object`, got `{_kind(value)}`")
    fields = msgspec.structs.fields(body_type)
    known = {field.encode_name for field in fields}
    unknown = [name for name in value if name not in known]
    if unknown:
        return UnknownFieldError(f"Object contains unknown field `{unknown[0]}`")
    missing = [f.encode_name for f in fields if f.required and f.encode_name not in value]
    if missing:
        return MissingFieldError(f"Object missing required field `{missing[0]}`")
    shapes = typing.get_type_hints(body_type)  # Annotated limits are dropped here
    for field in fields:
        if field.encode_name not in value:
            continue
        try:
            msgspec.convert(value[field.encode_name], _shape(shapes[field.name]), strict=True)
        except msgspec.ValidationError as error:
            return WrongTypeError(f"{error} - at `$.{field.encode_name}`")
    try:
        msgspec.convert(value, body_type, strict=True)
    except msgspec.ValidationError as error:
        return InvalidValueError(str(error))
    return InvalidValueError("the body does not fit this route")
