"""Errors of the event store and the services, each a BasraError with a stable ``code``."""

from __future__ import annotations

from domain.errors import BasraError


class MatchNotFoundError(BasraError):
    """No match is stored under that id."""

    code = "match_not_found"

    def __init__(self, match_id: str) -> None:
        super().__init__(f"no match {match_id!r} in the store")
        self.match_id = match_id


class ConflictError(BasraError):
    """A stale writer lost: the stream moved on since it was read; nothing was appended."""

    code = "conflict"

    def __init__(self, message: str, *, match_id: str | None = None) -> None:
        super().__init__(message)
        self.match_id = match_id


class CorruptEventError(BasraError):
    """A stored event cannot be decoded; names the match and the event's position."""

    code = "corrupt_event"

    def __init__(self, match_id: str, seq: int, detail: str) -> None:
        super().__init__(f"match {match_id}: stored event seq {seq} cannot be read ({detail})")
        self.match_id = match_id
        self.seq = seq
        self.detail = detail


class StoreUnavailableError(BasraError):
    """The database cannot be reached or is locked beyond the wait limit."""

    code = "store_unavailable"
