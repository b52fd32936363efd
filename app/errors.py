"""Errors of the event store and the services, each with a stable ``code``, by cause.

Store faults (the database failed or refused a write) share ``StoreFaultError``; a match id
that names nothing is a ``RequestError``. A rules refusal never comes from here.
"""

from __future__ import annotations

from domain.errors import BasraError, RequestError


class StoreFaultError(BasraError):
    """Cause: the event store failed, or refused a write; never raised itself."""

    code = "store_fault"


class MatchNotFoundError(RequestError):
    """No match is stored under that id."""

    code = "match_not_found"

    def __init__(self, match_id: str) -> None:
        super().__init__(f"no match {match_id!r} in the store")
        self.match_id = match_id


class ConflictError(StoreFaultError):
    """A stale writer lost: the stream moved on since it was read; nothing was appended."""

    code = "conflict"

    def __init__(self, message: str, *, match_id: str | None = None) -> None:
        super().__init__(message)
        self.match_id = match_id


class CorruptEventError(StoreFaultError):
    """A stored event cannot be decoded; names the match and the event's position."""

    code = "corrupt_event"

    def __init__(self, match_id: str, seq: int, detail: str) -> None:
        super().__init__(f"match {match_id}: stored event seq {seq} cannot be read ({detail})")
        self.match_id = match_id
        self.seq = seq
        self.detail = detail


class StoreUnavailableError(StoreFaultError):
    """The database cannot be reached or is locked beyond the wait limit."""

    code = "store_unavailable"


class StoreNotMigratedError(StoreFaultError):
    """The store holds rows of an earlier build's stored form (or is being migrated): it is
    served only once ``basra store migrate`` has rewritten it (docs/storage.md)."""

    code = "store_not_migrated"


class PlayerNotFoundError(RequestError):
    """No player is registered under that id (docs/api.md, "Results")."""

    code = "player_not_found"


class NotAPlayerError(RequestError):
    """The id is not a player's: a seat taken by name only has no profile, results or rating."""

    code = "not_a_player"


class StoreMissingError(RequestError):
    """The SQLite file named for reading does not exist (a reader never creates one)."""

    code = "store_missing"

    def __init__(self, path: str) -> None:
        super().__init__(f"no store at {path}: simulate or import create one")
        self.path = path


class InvalidAgentNameError(RequestError):
    """A support agent's name is 1 to 32 of a-z, 0-9, ``_``, ``-``, a letter first; not ``env``."""

    code = "invalid_agent_name"


class AgentExistsError(RequestError):
    """A support agent of that name was already added (a revoked name is not reused)."""

    code = "agent_exists"


class UnknownAgentError(RequestError):
    """No support agent of that name was added (or it is already revoked)."""

    code = "unknown_agent"


class AgentRevokedError(RequestError):
    """The token is a support agent's that was revoked."""

    code = "agent_revoked"


class UnknownTicketError(RequestError):
    """The ticket is not one this server issued."""

    code = "unknown_ticket"


class TicketExpiredError(RequestError):
    """The ticket is older than its 60 seconds."""

    code = "ticket_expired"


class TicketUsedError(RequestError):
    """The ticket already opened its one feed."""

    code = "ticket_used"


class TicketWrongMatchError(RequestError):
    """The ticket is for another match's feed."""

    code = "ticket_wrong_match"
