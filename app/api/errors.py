"""The API's own errors, and the HTTP status of every project error, in one table.

Every error leaves the API as ``{"error": {"code", "message"}}``; ``HTTP_STATUS`` gives the
status of each error class by its exact class (no default: a class missing from it is a
bug, answered as a 500 and caught by the tests). Litestar's handlers that write the shape are
in ``app.api.error_handlers``; this module imports no Litestar, so the command line can read
the classes cheaply.
"""

from __future__ import annotations

import typing
from types import UnionType
from typing import Any, Final, Literal

import msgspec

from app import errors as app_errors
from app.errors import (
    ConflictError,
    CorruptEventError,
    MatchNotFoundError,
    StoreMissingError,
    StoreUnavailableError,
)
from domain import errors as rules
from domain.errors import BasraError, RequestError
from replays.errors import (
    InvalidReceiptsError,
    ReplayFileError,
    StepOutOfRangeError,
    StreamError,
    UnknownViewerError,
)


class ErrorDetail(msgspec.Struct, frozen=True):
    """What went wrong: a stable machine-readable ``code`` and a message for people."""

    code: str
    message: str


class ErrorBody(msgspec.Struct, frozen=True):
    """The body of every 4xx (and 5xx) response."""

    error: ErrorDetail


class ApiError(RequestError):
    """A request error found by the HTTP layer itself; never raised itself."""

    code = "bad_request"


class MalformedJsonError(ApiError):
    """The body is not JSON."""

    code = "malformed_json"


class MissingBodyError(ApiError):
    """The route needs a JSON body and none was sent."""

    code = "missing_body"


class UnknownFieldError(ApiError):
    """The body has a field the route does not know."""

    code = "unknown_field"


class MissingFieldError(ApiError):
    """The body lacks a required field."""

    code = "missing_field"


class WrongTypeError(ApiError):
    """A field or parameter has the wrong JSON type."""

    code = "wrong_type"


class InvalidValueError(ApiError):
    """A field or parameter is out of its allowed range or length."""

    code = "invalid_value"


class BodyTooLargeError(ApiError):
    """The body is larger than the server accepts."""

    code = "body_too_large"


class RouteNotFoundError(ApiError):
    """No route has this path."""

    code = "not_found"


class MethodNotAllowedError(ApiError):
    """The route exists but not with this method."""

    code = "method_not_allowed"


class MissingTokenError(ApiError):
    """The route needs a bearer token and none was sent."""

    code = "missing_token"


class UnknownTokenError(ApiError):
    """The bearer token is not one this server issued."""

    code = "unknown_token"


class WrongMatchError(ApiError):
    """The token belongs to another match."""

    code = "wrong_match"


class WrongSeatError(ApiError):
    """The token belongs to another seat of this match."""

    code = "wrong_seat"


class SupportOnlyError(ApiError):
    """Only support staff (or anyone, once the match has ended) may use this route now."""

    code = "support_only"


class SeatOnlyError(ApiError):
    """Only a seat of the match may do this (support watches but does not play)."""

    code = "seat_only"


class SeedRefusedError(ApiError):
    """A text seed is accepted only when the server runs in test mode (BASRA_TEST_MODE=1)."""

    code = "seed_refused"


class IdempotencyKeyReusedError(ApiError):
    """An ``Idempotency-Key`` was sent again with a different body."""

    code = "idempotency_key_reused"


class InvalidHeaderError(ApiError):
    """A header has a value the API cannot use."""

    code = "invalid_header"


class RateLimitedError(ApiError):
    """Too many requests of one kind from one client address: wait ``retry_after`` seconds."""

    code = "rate_limited"

    def __init__(
        self, message: str, retry_after: int = 1, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)
        self.headers = dict(headers or {})
        """The ``RateLimit-*`` headers of the limit that refused (docs/api.md, "Limits")."""


class TokenInQueryError(ApiError):
    """A player or support token was sent in a query string, where only a seat's is taken."""

    code = "token_in_query"


class SpectatorsRefusedError(ApiError):
    """The table was created with ``"spectators": false``: only its seats and support see it."""

    code = "spectators_refused"


class InvalidFilterError(ApiError):
    """A lobby filter names no status, rule set or table size that exists."""

    code = "invalid_filter"


class InvalidCursorError(ApiError):
    """A lobby or ladder cursor that this server did not hand out, or that points at no listed
    table."""

    code = "invalid_cursor"


INTERNAL_ERROR: Final = "internal_error"
"""The code of a 500 for anything that is not a project error (logged in full on the server)."""

HTTP_STATUS: Final[dict[type[BasraError], int]] = {
    # Rules refusals: a request the rules cannot accept (422), or not now (409).
    rules.UnknownCardError: 422,
    rules.UnknownRulesetError: 422,
    rules.InvalidSeatCountError: 422,
    rules.InvalidTargetError: 422,
    rules.InvalidSeatError: 422,
    rules.SeatTakenError: 409,
    rules.MatchNotStartedError: 409,
    rules.MatchEndedError: 409,
    rules.MatchAlreadyCreatedError: 409,
    rules.NotYourTurnError: 409,
    rules.CardNotInHandError: 422,
    rules.InvalidSecretError: 422,
    rules.InvalidClientSeedError: 422,
    rules.UnseededMatchError: 409,
    rules.InvalidEventError: 422,
    rules.InvalidNameError: 422,
    rules.PlayerSeatedError: 409,
    rules.PlayerNameErasedError: 409,
    rules.UnknownBotKindError: 422,
    rules.InvalidBotBudgetError: 422,
    rules.UnknownCommandError: 422,
    rules.InvalidTurnSecondsError: 422,
    rules.StaleDeadlineError: 409,
    rules.DeadlineNotReachedError: 409,
    rules.TurnExpiredError: 409,
    rules.MatchNotWaitingError: 409,
    rules.MatchNotEndedError: 409,
    rules.RematchExistsError: 409,
    rules.SeatReservedError: 403,
    rules.InvalidReservationError: 422,
    # Request errors: nothing there, or a request that does not fit the route.
    MatchNotFoundError: 404,
    StoreMissingError: 503,
    StepOutOfRangeError: 422,
    UnknownViewerError: 422,
    MalformedJsonError: 400,
    MissingBodyError: 400,
    UnknownFieldError: 422,
    MissingFieldError: 422,
    WrongTypeError: 422,
    InvalidValueError: 422,
    BodyTooLargeError: 413,
    RouteNotFoundError: 404,
    MethodNotAllowedError: 405,
    MissingTokenError: 401,
    UnknownTokenError: 401,
    WrongMatchError: 403,
    WrongSeatError: 403,
    SupportOnlyError: 403,
    SeatOnlyError: 403,
    SeedRefusedError: 403,
    IdempotencyKeyReusedError: 422,
    InvalidHeaderError: 400,
    TokenInQueryError: 401,
    SpectatorsRefusedError: 403,
    InvalidFilterError: 400,
    InvalidCursorError: 400,
    # Support agents and feed tickets (docs/api.md, "Support agents" and "Tickets").
    app_errors.InvalidAgentNameError: 422,
    app_errors.AgentExistsError: 409,
    app_errors.UnknownAgentError: 404,
    app_errors.AgentRevokedError: 401,
    app_errors.UnknownTicketError: 401,
    app_errors.TicketExpiredError: 401,
    app_errors.TicketUsedError: 401,
    app_errors.TicketWrongMatchError: 403,
    # Results (docs/api.md, "Results").
    app_errors.PlayerNotFoundError: 404,
    app_errors.NotAPlayerError: 404,
    RateLimitedError: 429,
    # Store faults: a lost race is the client's to retry (409); the rest are the server's.
    ConflictError: 409,
    CorruptEventError: 500,
    StoreUnavailableError: 503,
    app_errors.StoreNotMigratedError: 503,
    # Replay data: a stream or file that is not a match.
    ReplayFileError: 422,
    StreamError: 422,
    InvalidReceiptsError: 422,
}
"""The HTTP status of every error class the API can meet, by exact class (no default)."""


def status_of(error: BasraError) -> int | None:
    """The HTTP status of ``error``'s exact class, or None when the table lacks it (a bug)."""
    return HTTP_STATUS.get(type(error))


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
