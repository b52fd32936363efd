"""The support desk's streams (domain.desk) in a table of their own, ``stored_desk``.

Like the support streams (app.store.access_store) they sit beside the match streams, outside
the global log, so no read model or live feed sees them. A stream is appended at an expected
seq: two writers that read the same last seq cannot both append after it (ConflictError for
the loser), which makes every bound and every limit one atomic step in the store.

A count of what was not kept (a bound reached) is one row updated in place by a
compare-and-set (``UPDATE ... WHERE state = old``) on SQLite and PostgreSQL, so a flood
grows a number, never the table; in memory (one process) a lock does the same.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any, Final

import msgspec
from eventsourcing.persistence import AggregateRecorder, StoredEvent

from app.errors import ConflictError, CorruptEventError
from app.store.decoding import TOPIC_PREFIX
from app.store.match_store import MatchStore, side_recorder, translated_errors
from app.store.sql import SqlBackend
from domain.desk import DESK_EVENT_TYPES, AnyDeskEvent

PURPOSE: Final = "desk"
"""The recorder's purpose: its table is ``stored_desk``."""

COUNTER_TOPIC: Final = TOPIC_PREFIX + "counter"
"""The topic of a counter's one row (its state is the count in ASCII digits)."""

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(AnyDeskEvent)
_TOPICS: Final = {cls: TOPIC_PREFIX + str(cls.__struct_config__.tag) for cls in DESK_EVENT_TYPES}
_CAS_TRIES: Final = 50

_memory_lock = threading.Lock()
_memory_counts: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


class DeskStore:
    """Streams of desk facts, each read whole and appended at an expected seq, and counters."""

    def __init__(self, store: MatchStore) -> None:
        self.calls = store.calls  # closing the store waits for these calls, then refuses
        self.store = store
        self.recorder: AggregateRecorder = side_recorder(store, PURPOSE)

    def read(self, stream: str) -> list[AnyDeskEvent]:
        """The stream's facts in order (empty when there is none)."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream)
        return [_decode(row) for row in rows]

    def read_many(self, streams: list[str]) -> dict[str, list[AnyDeskEvent]]:
        """Several streams in one read, by stream."""
        found: dict[str, list[AnyDeskEvent]] = {s: [] for s in streams}
        if not streams:
            return found
        with self.calls.call(), translated_errors():
            rows = self.store.backend.side_rows(self.recorder, streams)
        for row in rows:
            found[str(row.originator_id)].append(_decode(row))
        return found

    def append(self, stream: str, after: int, events: Sequence[AnyDeskEvent]) -> None:
        """Append ``events`` right after seq ``after``; ConflictError if another writer did."""
        rows = [
            StoredEvent(stream, after + i, _TOPICS[type(event)], _ENCODER.encode(event))
            for i, event in enumerate(events, start=1)
        ]
        with self.calls.call(), translated_errors():
            self.recorder.insert_events(rows)

    # -- counters ---------------------------------------------------------------------------

    def count(self, name: str) -> int:
        """The counter ``name`` (0 when never bumped)."""
        backend = self.store.backend
        if not isinstance(backend, SqlBackend):
            with _memory_lock:
                return _memory_counts.get(self.recorder, {}).get(name, 0)
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(name)
        return int(bytes(rows[0].state)) if rows else 0

    def bump(self, name: str) -> int:
        """Add one to the counter ``name`` atomically across processes; the new count."""
        backend = self.store.backend
        if not isinstance(backend, SqlBackend):
            with _memory_lock:
                counts = _memory_counts.setdefault(self.recorder, {})
                counts[name] = counts.get(name, 0) + 1
                return counts[name]
        table: Any = self.recorder
        side = str(table.events_table_name)
        for _ in range(_CAS_TRIES):
            now = self.count(name)
            if now == 0:
                try:
                    with self.calls.call(), translated_errors():
                        self.recorder.insert_events([StoredEvent(name, 1, COUNTER_TOPIC, b"1")])
                    return 1
                except ConflictError:
                    continue
            with self.calls.call(), translated_errors(), backend.transaction(side=side) as run:
                changed = run(
                    "UPDATE {s} SET state = {p} WHERE originator_id = {p}"
                    " AND originator_version = 1 AND state = {p} RETURNING originator_version",
                    (str(now + 1).encode(), name, str(now).encode()),
                )
            if changed:
                return now + 1
        raise ConflictError(f"the counter {name} kept moving")


def _decode(row: StoredEvent) -> AnyDeskEvent:
    """The fact in a stored row, or CorruptEventError naming its stream and seq."""
    try:
        event: AnyDeskEvent = _DECODER.decode(row.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(
            str(row.originator_id), row.originator_version, str(error)
        ) from None
    return event
