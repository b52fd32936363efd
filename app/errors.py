"""Errors of the event store and the services, each with a stable ``code``, by cause.

Store faults (the database failed or refused a write) share ``StoreFaultError``, whose exit
statuses are sysexits.h's, so a script can tell "try again later" (``conflict`` 75,
``store_unavailable`` 69) from "the stored data is damaged" (``corrupt_event`` 65); a match id
that names nothing is a ``RequestError`` (``NotFoundError``). A rules refusal never comes from
here.
"""

from __future__ import annotations

from typing import Final

from domain.errors import (
    AlreadyExistsError,
    BasraError,
    DoesNotFitError,
    ForbiddenError,
    NotFoundError,
    RequestError,
    UnauthenticatedError,
)

EX_DATAERR: Final = 65
"""sysexits.h: the input data was incorrect (here: a stored event cannot be read)."""

EX_UNAVAILABLE: Final = 69
"""sysexits.h: a service is unavailable (here: the event store)."""

EX_TEMPFAIL: Final = 75
"""sysexits.h: a temporary failure; running the command again may succeed."""


class StoreFaultError(BasraError):
    """Cause: the event store failed, or refused a write; never raised itself.

    The store is the server's, not the client's: unavailable (503, exit 69) unless a sub-class
    says otherwise.
    """

    code = "store_fault"
    http_status = 503
    exit_status = EX_UNAVAILABLE


class MatchNotFoundError(NotFoundError):
    """No match is stored under that id."""

    code = "match_not_found"

    def __init__(self, match_id: str) -> None:
        super().__init__(f"no match {match_id!r} in the store")
        self.match_id = match_id


class ConflictError(StoreFaultError):
    """A stale writer lost: the stream moved on since it was read; nothing was appended.

    The client's to retry: 409 (like a rules refusal of "not now"), exit 75 (try again)."""

    code = "conflict"
    http_status = 409
    exit_status = EX_TEMPFAIL

    def __init__(self, message: str, *, match_id: str | None = None) -> None:
        super().__init__(message)
        self.match_id = match_id


class CorruptEventError(StoreFaultError):
    """A stored event cannot be decoded; names the match and the event's position."""

    code = "corrupt_event"
    http_status = 500
    exit_status = EX_DATAERR

    def __init__(self, match_id: str, seq: int, detail: str) -> None:
        super().__init__(f"match {match_id}: stored event seq {seq} cannot be read ({detail})")
        self.match_id = match_id
        self.seq = seq
        self.detail = detail


class StoreUnavailableError(StoreFaultError):
    """The database cannot be reached or is locked beyond the wait limit (503, exit 69)."""

    code = "store_unavailable"


class StoreNotMigratedError(StoreFaultError):
    """The store holds rows of an earlier build's stored form (or is being migrated): it is
    served only once ``basra store migrate`` has rewritten it (docs/storage.md)."""

    code = "store_not_migrated"


class PlayerNotFoundError(NotFoundError):
    """No player is registered under that id (docs/api.md, "Results")."""

    code = "player_not_found"


class NotAPlayerError(NotFoundError):
    """The id is not a player's: a seat taken by name only has no profile, results or rating."""

    code = "not_a_player"


class StoreMissingError(NotFoundError):
    """The SQLite file named for reading does not exist (a reader never creates one).

    A server without its store cannot serve: 503 to a client (the command line exits 1)."""

    code = "store_missing"
    http_status = 503

    def __init__(self, path: str) -> None:
        super().__init__(f"no store at {path}: simulate or import create one")
        self.path = path


class InvalidAgentNameError(DoesNotFitError):
    """A support agent's name is 1 to 32 of a-z, 0-9, ``_``, ``-``, a letter first; not ``env``."""

    code = "invalid_agent_name"


class AgentExistsError(AlreadyExistsError):
    """A support agent of that name was already added (a revoked name is not reused)."""

    code = "agent_exists"


class UnknownAgentError(NotFoundError):
    """No support agent of that name was added (or it is already revoked)."""

    code = "unknown_agent"


class AgentRevokedError(UnauthenticatedError):
    """The token is a support agent's that was revoked."""

    code = "agent_revoked"


class UnknownTicketError(UnauthenticatedError):
    """The ticket is not one this server issued."""

    code = "unknown_ticket"


class TicketExpiredError(UnauthenticatedError):
    """The ticket is older than its 60 seconds."""

    code = "ticket_expired"


class TicketUsedError(UnauthenticatedError):
    """The ticket already opened its one feed."""

    code = "ticket_used"


class TicketWrongMatchError(ForbiddenError):
    """The ticket is for another match's feed."""

    code = "ticket_wrong_match"


class InvalidLinkCodeError(UnauthenticatedError):
    """A linking code that is wrong, spent, expired, or of a player whose linking is paused:
    one answer for all, so a guesser learns nothing from it."""

    code = "invalid_link_code"


class LinkingPausedError(ForbiddenError):
    """Too many wrong linking codes were counted against the player this hour: no new code
    until the hour ends."""

    code = "linking_paused"


# -- the support desk (app.service.desk) -------------------------------------------------------


class ReasonRequiredError(DoesNotFitError):
    """A support action was asked for without a reason (every action has one)."""

    code = "reason_required"


class InvalidReportError(DoesNotFitError):
    """A report's category or text does not fit (a known category, 1 to 1,000 code points)."""

    code = "invalid_report"


class InvalidActionError(DoesNotFitError):
    """A support action does not fit what it names (void an unrated or unfinished match, lift
    what is not suspended, an unknown outcome, an ``until`` not in the replay format's form)."""

    code = "invalid_action"


class AlreadySuspendedError(AlreadyExistsError):
    """The player is suspended already: lift it first, or leave it."""

    code = "already_suspended"


class CaseNotFoundError(NotFoundError):
    """No case has this id."""

    code = "case_not_found"


class AccountSuspendedError(ForbiddenError):
    """R29: the player is suspended (until when is in the message)."""

    code = "account_suspended"


class NotAReporterError(ForbiddenError):
    """Only a seat of the match, or a registered player who watched it when it was public, may
    report it."""

    code = "not_a_reporter"


class AgentOnlyError(ForbiddenError):
    """A support action needs a named agent: the shared support token reads but never acts."""

    code = "agent_only"


class ReportLimitError(RequestError):
    """A player may file at most 10 reports a day (answered 429 by the API)."""

    code = "report_limit"
    http_status = 429
