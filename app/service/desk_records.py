"""Refused commands and presence on a match, kept for support, bounded (docs/support.md).

A refused command is not a match event, but it is evidence: ``refused:MATCH`` keeps the first
1,000 of a match and the first 200 of each principal on it (the oldest are kept), and the
counter ``refused-dropped:MATCH`` counts what was not kept. ``presence:MATCH`` keeps when each
seat's feed connected and dropped, first 1,000, with ``presence-dropped:MATCH``. Each append is
at the seq the writer read (ConflictError when another process appended first, then read again),
so the bounds hold across processes.
"""

from __future__ import annotations

from typing import Final

import msgspec

from app.errors import ConflictError
from app.store.desk_store import DeskStore
from domain.desk import (
    PRESENCE_PER_MATCH,
    REFUSED_PER_MATCH,
    REFUSED_PER_PRINCIPAL,
    CommandRefused,
    FeedConnected,
    FeedDropped,
)

APPEND_TRIES: Final = 20
"""How often an append is tried again after another process appended first."""


class RefusedRecords(msgspec.Struct, frozen=True):
    """The refused commands kept of a match and how many were not kept."""

    records: list[CommandRefused]
    dropped: int


class PresenceRecords(msgspec.Struct, frozen=True):
    """The feeds' connections and drops kept of a match and how many were not kept."""

    records: list[FeedConnected | FeedDropped]
    dropped: int


class DeskRecords:
    """Refused commands and presence of every match of one store."""

    def __init__(
        self,
        desk: DeskStore,
        per_match: int = REFUSED_PER_MATCH,
        per_principal: int = REFUSED_PER_PRINCIPAL,
    ) -> None:
        self.desk = desk
        self.per_match = per_match
        self.per_principal = per_principal

    def record_refusal(self, refused: CommandRefused) -> bool:
        """Keep ``refused`` unless a bound is reached (then count it); True when kept."""
        stream = f"refused:{refused.match_id}"
        for _ in range(APPEND_TRIES):
            kept = self.desk.read(stream)
            mine = sum(
                1
                for r in kept
                if isinstance(r, CommandRefused) and r.principal == refused.principal
            )
            if len(kept) >= self.per_match or mine >= self.per_principal:
                self.desk.bump(f"refused-dropped:{refused.match_id}")
                return False
            try:
                self.desk.append(stream, len(kept), [refused])
                return True
            except ConflictError:
                continue
        self.desk.bump(f"refused-dropped:{refused.match_id}")
        return False

    def refused(self, match_id: str) -> RefusedRecords:
        """The refused commands kept of ``match_id``, in the order they were kept."""
        kept = [r for r in self.desk.read(f"refused:{match_id}") if isinstance(r, CommandRefused)]
        return RefusedRecords(kept, self.desk.count(f"refused-dropped:{match_id}"))

    def record_presence(self, event: FeedConnected | FeedDropped) -> bool:
        """Keep a feed's connection or drop unless the match's bound is reached."""
        stream = f"presence:{event.match_id}"
        for _ in range(APPEND_TRIES):
            kept = self.desk.read(stream)
            if len(kept) >= PRESENCE_PER_MATCH:
                break
            try:
                self.desk.append(stream, len(kept), [event])
                return True
            except ConflictError:
                continue
        self.desk.bump(f"presence-dropped:{event.match_id}")
        return False

    def presence(self, match_id: str) -> PresenceRecords:
        """When each feed of ``match_id`` connected and dropped, in order."""
        kept = [
            r
            for r in self.desk.read(f"presence:{match_id}")
            if isinstance(r, FeedConnected | FeedDropped)
        ]
        return PresenceRecords(kept, self.desk.count(f"presence-dropped:{match_id}"))
