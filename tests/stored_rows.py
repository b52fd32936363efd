"""Reading and changing a SQLite store's rows by hand, as someone with database access could.

A match's rows are stored under its stream key (app.store.streams) in the compact form
(app.store.compact). The tests that damage or forge a row read it here as the JSON envelope of
the earlier form (``{"event": {...}, "at": ..., "chain": ...}``), easy to change by hand, and
write it back in the compact form (``write_json_row``), the only form the store reads.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from app.store.decoding import decode_row
from app.store.earlier import decode_json_row
from app.store.mapper import EventMapper
from app.store.streams import STREAMS_TABLE, stream_key
from domain.recorded import RecordedEvent

_MAPPER = EventMapper()


def stream_of(connection: sqlite3.Connection, match_id: str) -> str:
    """The name the match's rows are stored under (``originator_id``)."""
    try:
        row = connection.execute(
            f"SELECT n FROM {STREAMS_TABLE} WHERE match_id = ?", (match_id,)
        ).fetchone()
    except sqlite3.OperationalError:  # a store from before stream keys
        return match_id
    return stream_key(int(row[0])) if row else match_id


def recorded_rows(connection: sqlite3.Connection, match_id: str) -> list[RecordedEvent]:
    """The match's stored events in seq order, decoded as the store decodes them."""
    found = connection.execute(
        "SELECT originator_version, topic, state FROM stored_events"
        " WHERE originator_id = ? ORDER BY originator_version",
        (stream_of(connection, match_id),),
    ).fetchall()
    return [decode_row(match_id, seq, topic, state) for seq, topic, state in found]


def as_json(recorded: RecordedEvent) -> dict[str, Any]:
    """The row's JSON envelope (the earlier stored form) as a dict."""
    stored = _MAPPER.to_json_stored_event("-", recorded)
    value: dict[str, Any] = json.loads(stored.state)
    return value


def json_rows(connection: sqlite3.Connection, match_id: str) -> list[dict[str, Any]]:
    """The match's stored events as JSON envelopes, by seq from 1."""
    return [as_json(r) for r in recorded_rows(connection, match_id)]


def json_row(connection: sqlite3.Connection, match_id: str, seq: int) -> dict[str, Any]:
    """The stored event at ``seq`` as its JSON envelope."""
    (row,) = connection.execute(
        "SELECT topic, state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
        (stream_of(connection, match_id), seq),
    ).fetchall()
    return as_json(decode_row(match_id, seq, row[0], row[1]))


def write_json_row(
    connection: sqlite3.Connection, match_id: str, seq: int, envelope: dict[str, Any]
) -> None:
    """Store ``envelope`` (a JSON envelope, its event's ``type`` naming the kind) at ``seq``, in
    the compact form."""
    topic = f"basra:{envelope['event']['type']}"
    recorded = decode_json_row(match_id, seq, topic, json.dumps(envelope).encode())
    write_recorded(connection, match_id, recorded)


def write_raw_row(
    connection: sqlite3.Connection,
    match_id: str,
    seq: int,
    state: bytes,
    *,
    topic: str | None = None,
) -> None:
    """Put ``state`` (any bytes) in the row at ``seq``, and ``topic`` when given."""
    stream = stream_of(connection, match_id)
    if topic is None:
        connection.execute(
            "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (state, stream, seq),
        )
    else:
        connection.execute(
            "UPDATE stored_events SET topic = ?, state = ?"
            " WHERE originator_id = ? AND originator_version = ?",
            (topic, state, stream, seq),
        )


def write_recorded(connection: sqlite3.Connection, match_id: str, recorded: RecordedEvent) -> None:
    """Store ``recorded`` in the compact form in place of the row at its seq."""
    row = _MAPPER.to_stored_event("-", recorded)
    write_raw_row(connection, match_id, recorded.seq, row.state, topic=row.topic)
