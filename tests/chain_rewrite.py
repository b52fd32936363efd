"""Rewriting a stored or written stream consistently, as an operator who holds the secret could.

Tests that change one stored event to show the rules catching it recompute every chain link
after it, so the rules, not the chain, are what they test. The
chain's own tests change events without this and expect the chain to break at that seq.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec

from app.store.decoding import decode_row
from app.store.mapper import EventMapper
from domain.chain import chained
from domain.events import MatchCreated


def rechain_sqlite(db: Path, match_id: str) -> None:
    """Recompute every chain link of a stored match from its own (changed) events."""
    with sqlite3.connect(db) as connection:
        found = connection.execute(
            "SELECT originator_version, topic, state FROM stored_events"
            " WHERE originator_id = ? ORDER BY originator_version",
            (match_id,),
        ).fetchall()
        events = [decode_row(match_id, seq, topic, state) for seq, topic, state in found]
        created = events[0].event
        assert isinstance(created, MatchCreated) and created.secret is not None
        unlinked = [msgspec.structs.replace(e, chain=None) for e in events]
        mapper = EventMapper()
        for event in chained(unlinked, None, bytes.fromhex(created.secret)):
            row = mapper.to_stored_event(match_id, event)
            connection.execute(
                "UPDATE stored_events SET topic = ?, state = ?"
                " WHERE originator_id = ? AND originator_version = ?",
                (row.topic, row.state, match_id, event.seq),
            )
