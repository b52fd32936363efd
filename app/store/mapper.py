"""The store's mapper: recorded msgspec events in and out of eventsourcing's stored rows.

A stored row is (stream key, seq, topic, state) in the compact form; app.store.decoding reads a
row back (the light SQLite reader uses the same function). The store hands these rows to
eventsourcing's recorders itself (no eventsourcing ``Application`` runs), so eventsourcing's own
``Mapper`` and transcoders are not involved. The topics are registered with eventsourcing too,
so a class can move or be renamed without orphaning old streams (docs/architecture.md, L5).
"""

from __future__ import annotations

import hashlib

import msgspec
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import register_topic

from app.store.compact import COMPACT_TOPICS, encode_compact
from app.store.decoding import TOPIC_PREFIX, TOPICS, decode_row
from app.store.earlier import encode_json_row
from domain.recorded import RecordedEvent
from domain.state import MatchSetup, MatchState

for _cls, _topic in TOPICS.items():
    register_topic(_topic, _cls)
    register_topic(COMPACT_TOPICS[_cls], _cls)


def _state_fingerprint() -> str:
    """Changes whenever the shape of MatchState does, so an old snapshot is never misread."""
    shape = repr([(s.__name__, s.__annotations__) for s in (MatchState, MatchSetup)])
    return hashlib.sha256(shape.encode()).hexdigest()[:16]


SNAPSHOT_TOPIC = f"{TOPIC_PREFIX}snapshot-msgpack/{_state_fingerprint()}"
"""The topic of snapshots this build writes and trusts (MessagePack); any other snapshot, such
as the JSON ones of earlier builds, is ignored (the stream is folded instead)."""

_SNAPSHOT_ENCODER = msgspec.msgpack.Encoder()
_SNAPSHOT_DECODER = msgspec.msgpack.Decoder(MatchState)


class EventMapper:
    """Maps recorded msgspec events to eventsourcing stored events and back."""

    def to_stored_event(self, stream: str, recorded: RecordedEvent) -> StoredEvent:
        """The stored row of ``recorded`` in the compact form (app.store.compact), under the
        stream's stored name (app.store.streams)."""
        topic, state = encode_compact(recorded)
        return StoredEvent(
            originator_id=stream, originator_version=recorded.seq, topic=topic, state=state
        )

    def to_json_stored_event(self, stream: str, recorded: RecordedEvent) -> StoredEvent:
        """The row ``recorded`` had in the JSON form of earlier builds, which ``basra store
        migrate`` rewrites (for tests and benchmarks of stores as those builds wrote them)."""
        topic, state = encode_json_row(recorded)
        return StoredEvent(
            originator_id=stream, originator_version=recorded.seq, topic=topic, state=state
        )

    def to_recorded(self, stored: StoredEvent, match_id: str | None = None) -> RecordedEvent:
        """The recorded event of a stored row (of match ``match_id``, by default the row's
        stream name), or CorruptEventError naming match and seq."""
        name = match_id if match_id is not None else str(stored.originator_id)
        return decode_row(name, stored.originator_version, stored.topic, stored.state)

    def snapshot_to_stored(self, match_id: str, state: MatchState) -> StoredEvent:
        """A stored snapshot row of ``state`` at its last seq."""
        return StoredEvent(
            originator_id=match_id,
            originator_version=state.events,
            topic=SNAPSHOT_TOPIC,
            state=_SNAPSHOT_ENCODER.encode(state),
        )

    def snapshot_from_stored(self, stored: StoredEvent) -> MatchState | None:
        """The state in a snapshot row, or None when it was written by another shape of state."""
        if stored.topic != SNAPSHOT_TOPIC:
            return None
        try:
            state = _SNAPSHOT_DECODER.decode(stored.state)
        except msgspec.DecodeError:
            return None
        return state if state.events == stored.originator_version else None
