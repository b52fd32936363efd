"""Rewriting a stored or written stream consistently, as an operator who holds the secret could.

Tests that change one event to show the rules catching it first recompute every chain link
after it (or drop the chain from a file), so the rules, not the chain, are what they test. The
chain's own tests change events without this and expect the chain to break at that seq.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

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
        unlinked = [e.__class__(**{**_fields(e), "chain": None}) for e in events]
        mapper = EventMapper()
        for event in chained(unlinked, None, bytes.fromhex(created.secret)):
            row = mapper.to_stored_event(match_id, event)
            connection.execute(
                "UPDATE stored_events SET topic = ?, state = ?"
                " WHERE originator_id = ? AND originator_version = ?",
                (row.topic, row.state, match_id, event.seq),
            )


def _fields(event: object) -> dict[str, object]:
    return {name: getattr(event, name) for name in event.__struct_fields__}  # type: ignore[attr-defined]


def unchained_lines(lines: list[str]) -> list[str]:
    """A replay file's lines without ``chain`` and ``sealed``: a file of an unchained stream."""
    out = [lines[0]]
    for line in lines[1:]:
        raw = json.loads(line)
        raw.pop("chain", None)
        raw.pop("sealed", None)
        out.append(json.dumps(raw, separators=(",", ":"), ensure_ascii=False))
    return out
