"""The rated pool's streams (one per rule set, and each waiting player's heartbeats) in a table
of their own, ``stored_pool`` (created when first opened: no migration step), outside the global
log. Appends are at an expected seq, so a pairing is one append that only one process can make.
"""

from __future__ import annotations

from typing import Final

import msgspec
from eventsourcing.persistence import AggregateRecorder, StoredEvent

from app.errors import CorruptEventError
from app.store.decoding import TOPIC_PREFIX
from app.store.match_store import MatchStore, side_recorder, translated_errors
from domain.pool import POOL_EVENT_DECODER, POOL_EVENT_TYPES, AnyPoolEvent

PURPOSE: Final = "pool"
"""The recorder's purpose: its table is ``stored_pool``."""

_ENCODER = msgspec.json.Encoder()
_TOPICS: Final = {cls: TOPIC_PREFIX + str(cls.__struct_config__.tag) for cls in POOL_EVENT_TYPES}


class PoolStore:
    """Pool streams, read from a seq on (or their last fact) and appended at an expected seq."""

    def __init__(self, store: MatchStore) -> None:
        self.calls = store.calls  # closing the store waits for these calls, then refuses
        self.recorder: AggregateRecorder = side_recorder(store, PURPOSE)
        self.backend = store.backend

    def read_after(self, stream: str, seq: int) -> list[tuple[int, AnyPoolEvent]]:
        """The stream's facts after ``seq``, each with its seq, in order."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream, gt=seq or None)
        return [(row.originator_version, _decode(row)) for row in rows]

    def last(self, stream: str) -> tuple[int, AnyPoolEvent | None]:
        """The stream's last seq and fact (0 and None when there is none)."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream, desc=True, limit=1)
        if not rows:
            return 0, None
        return rows[0].originator_version, _decode(rows[0])

    def append(self, stream: str, seq: int, event: AnyPoolEvent) -> None:
        """Append ``event`` at ``seq``; ConflictError if a fact is stored there already."""
        row = StoredEvent(stream, seq, _TOPICS[type(event)], _ENCODER.encode(event))
        with self.calls.call(), translated_errors():
            self.recorder.insert_events([row])
        self.backend.side_appended(self.recorder, [row])


def _decode(row: StoredEvent) -> AnyPoolEvent:
    """The fact in a stored row, or CorruptEventError naming its stream and seq."""
    try:
        event: AnyPoolEvent = POOL_EVENT_DECODER.decode(row.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(
            str(row.originator_id), row.originator_version, str(error)
        ) from None
    return event
