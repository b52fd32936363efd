"""The exit status of every project error on the command line, in one table by exact class.

A command the rules or the request refuse, or a replay file that is not a match, exits 1:
fix the input. A store fault exits with its sysexits.h status, so a script can tell "try again
later" (``conflict`` 75, ``store_unavailable`` 69) from "the stored data is damaged"
(``corrupt_event`` 65). An option refused before anything is read exits 2, like typer's own
usage errors. There is no default: a class missing from ``EXIT_CODE`` is a bug, reported as
such (70) and caught by the tests.
"""

from __future__ import annotations

from typing import Final

from app import errors as app_errors
from app.api import errors as api
from app.errors import (
    ConflictError,
    CorruptEventError,
    MatchNotFoundError,
    StoreMissingError,
    StoreNotMigratedError,
    StoreUnavailableError,
)
from cli.shell import USAGE_EXIT, InvalidOptionError
from domain import errors as rules
from domain.errors import BasraError
from replays.errors import (
    InvalidReceiptsError,
    ReplayFileError,
    StepOutOfRangeError,
    StreamError,
    UnknownViewerError,
)

REFUSED: Final = 1
"""Exit status of a command refused by the rules or for its input: nothing was changed."""

EX_DATAERR: Final = 65
"""sysexits.h: the input data was incorrect (here: a stored event cannot be read)."""

EX_UNAVAILABLE: Final = 69
"""sysexits.h: a service is unavailable (here: the event store)."""

EX_SOFTWARE: Final = 70
"""sysexits.h: an internal software error (an error class this table does not know)."""

EX_TEMPFAIL: Final = 75
"""sysexits.h: a temporary failure; running the command again may succeed."""

EXIT_CODE: Final[dict[type[BasraError], int]] = {
    # Rules refusals.
    rules.UnknownCardError: REFUSED,
    rules.UnknownRulesetError: REFUSED,
    rules.InvalidSeatCountError: REFUSED,
    rules.InvalidTargetError: REFUSED,
    rules.InvalidSeatError: REFUSED,
    rules.SeatTakenError: REFUSED,
    rules.MatchNotStartedError: REFUSED,
    rules.MatchEndedError: REFUSED,
    rules.MatchAlreadyCreatedError: REFUSED,
    rules.NotYourTurnError: REFUSED,
    rules.CardNotInHandError: REFUSED,
    rules.InvalidSecretError: REFUSED,
    rules.InvalidClientSeedError: REFUSED,
    rules.UnseededMatchError: REFUSED,
    rules.InvalidEventError: REFUSED,
    rules.InvalidNameError: REFUSED,
    rules.PlayerSeatedError: REFUSED,
    rules.PlayerNameErasedError: REFUSED,
    rules.UnknownBotKindError: REFUSED,
    rules.InvalidBotBudgetError: REFUSED,
    rules.UnknownCommandError: REFUSED,
    rules.InvalidTurnSecondsError: REFUSED,
    rules.StaleDeadlineError: REFUSED,
    rules.DeadlineNotReachedError: REFUSED,
    rules.TurnExpiredError: REFUSED,
    rules.MatchNotWaitingError: REFUSED,
    rules.MatchNotEndedError: REFUSED,
    rules.RematchExistsError: REFUSED,
    rules.SeatReservedError: REFUSED,
    rules.InvalidReservationError: REFUSED,
    # Request errors.
    InvalidOptionError: USAGE_EXIT,
    MatchNotFoundError: REFUSED,
    StoreMissingError: REFUSED,
    StepOutOfRangeError: REFUSED,
    UnknownViewerError: REFUSED,
    # The HTTP layer's request errors (raised only inside a server; mapped for completeness).
    api.MalformedJsonError: REFUSED,
    api.MissingBodyError: REFUSED,
    api.UnknownFieldError: REFUSED,
    api.MissingFieldError: REFUSED,
    api.WrongTypeError: REFUSED,
    api.InvalidValueError: REFUSED,
    api.BodyTooLargeError: REFUSED,
    api.RouteNotFoundError: REFUSED,
    api.MethodNotAllowedError: REFUSED,
    api.MissingTokenError: REFUSED,
    api.UnknownTokenError: REFUSED,
    api.WrongMatchError: REFUSED,
    api.WrongSeatError: REFUSED,
    api.SupportOnlyError: REFUSED,
    api.SeatOnlyError: REFUSED,
    api.SeedRefusedError: REFUSED,
    api.IdempotencyKeyReusedError: REFUSED,
    api.InvalidHeaderError: REFUSED,
    api.TokenInQueryError: REFUSED,
    api.SpectatorsRefusedError: REFUSED,
    api.InvalidFilterError: REFUSED,
    api.InvalidCursorError: REFUSED,
    # Support agents and feed tickets.
    app_errors.InvalidAgentNameError: REFUSED,
    app_errors.AgentExistsError: REFUSED,
    app_errors.UnknownAgentError: REFUSED,
    app_errors.AgentRevokedError: REFUSED,
    app_errors.UnknownTicketError: REFUSED,
    app_errors.TicketExpiredError: REFUSED,
    app_errors.TicketUsedError: REFUSED,
    app_errors.TicketWrongMatchError: REFUSED,
    app_errors.PlayerNotFoundError: REFUSED,
    app_errors.NotAPlayerError: REFUSED,
    api.RateLimitedError: EX_TEMPFAIL,
    # Store faults.
    ConflictError: EX_TEMPFAIL,
    CorruptEventError: EX_DATAERR,
    StoreUnavailableError: EX_UNAVAILABLE,
    StoreNotMigratedError: EX_UNAVAILABLE,
    # Replay data.
    ReplayFileError: REFUSED,
    StreamError: REFUSED,
    InvalidReceiptsError: REFUSED,
}
"""The exit status of every error class a command can meet, by exact class (no default)."""


def exit_code_of(error: BasraError) -> int:
    """The exit status of ``error``'s exact class; 70 (a bug) when the table lacks it."""
    return EXIT_CODE.get(type(error), EX_SOFTWARE)
