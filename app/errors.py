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


class StoreMissingError(RequestError):
    """The SQLite file named for reading does not exist (a reader never creates one)."""

    code = "store_missing"

    def __init__(self, path: str) -> None:
        super().__init__(f"no store at {path}: simulate or import create one")
        self.path = path
