"""Rewriting a stored or written stream consistently, as an operator who holds the secret could.

Tests that change one stored event to show the rules catching it recompute every chain link
after it, so the rules, not the chain, are what they test. The
chain's own tests change events without this and expect the chain to break at that seq.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec

from domain.chain import chained
from domain.events import MatchCreated
from tests.stored_rows import recorded_rows, write_recorded


def rechain_sqlite(db: Path, match_id: str) -> None:
    """Recompute every chain link of a stored match from its own (changed) events."""
    with sqlite3.connect(db) as connection:
        events = recorded_rows(connection, match_id)
        created = events[0].event
        assert isinstance(created, MatchCreated) and created.secret is not None
        unlinked = [msgspec.structs.replace(e, chain=None) for e in events]
        for event in chained(unlinked, None, bytes.fromhex(created.secret)):
            write_recorded(connection, match_id, event)
