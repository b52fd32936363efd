"""The support streams (agents, access records, tickets) in a table of their own.

They sit in the same database as the match streams, in eventsourcing's aggregate recorder
``stored_support``, so the global log, its read models and the live feeds never see them.
Appends are optimistic like a match's: a stream's rows are keyed by (stream id, seq), so two
writers that read the same last seq cannot both append after it (ConflictError for the loser).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec
from eventsourcing.persistence import AggregateRecorder, StoredEvent

from app.errors import CorruptEventError
from app.store.decoding import TOPIC_PREFIX
from app.store.match_store import MatchStore, side_recorder, translated_errors
from domain.access import ACCESS_EVENT_TYPES, AnyAccessEvent

PURPOSE: Final = "support"
"""The recorder's purpose: its table is ``stored_support``."""

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(AnyAccessEvent)
_TOPICS: Final = {cls: TOPIC_PREFIX + str(cls.__struct_config__.tag) for cls in ACCESS_EVENT_TYPES}


class AccessStore:
    """Streams of support facts, each read whole and appended at an expected seq."""

    def __init__(self, store: MatchStore) -> None:
        self.calls = store.calls  # closing the store waits for these calls, then refuses
        self.recorder: AggregateRecorder = side_recorder(store, PURPOSE)

    def read(self, stream: str) -> list[AnyAccessEvent]:
        """The stream's facts in order (empty when there is none)."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream)
        return [_decode(row) for row in rows]

    def last_seq(self, stream: str) -> int:
        """The stream's last seq (0 for none), from its last row alone: a trail that grows with
        every page an agent opens is never read whole to add to it."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream, desc=True, limit=1)
        return int(rows[0].originator_version) if rows else 0

    def append(self, stream: str, after: int, events: Sequence[AnyAccessEvent]) -> None:
        """Append ``events`` right after seq ``after``; ConflictError if another writer did."""
        rows = [
            StoredEvent(stream, after + i, _TOPICS[type(event)], _ENCODER.encode(event))
            for i, event in enumerate(events, start=1)
        ]
        with self.calls.call(), translated_errors():
            self.recorder.insert_events(rows)


def _decode(row: StoredEvent) -> AnyAccessEvent:
    """The fact in a stored row, or CorruptEventError naming its stream and seq."""
    try:
        event: AnyAccessEvent = _DECODER.decode(row.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(
            str(row.originator_id), row.originator_version, str(error)
        ) from None
    return event
