"""The store's mapper: recorded msgspec events in and out of eventsourcing's stored rows.

A stored row is (match id, seq, topic, state); app.store.decoding describes both and reads a
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

from app.store.decoding import TOPIC_PREFIX, TOPICS, Envelope, decode_row
from domain.events import event_tag
from domain.recorded import RecordedEvent
from domain.state import MatchSetup, MatchState

for _cls, _topic in TOPICS.items():
    register_topic(_topic, _cls)

_ENCODER = msgspec.json.Encoder()


def _state_fingerprint() -> str:
    """Changes whenever the shape of MatchState does, so an old snapshot is never misread."""
    shape = repr([(s.__name__, s.__annotations__) for s in (MatchState, MatchSetup)])
    return hashlib.sha256(shape.encode()).hexdigest()[:16]


SNAPSHOT_TOPIC = f"{TOPIC_PREFIX}snapshot/{_state_fingerprint()}"
"""The topic of snapshots this build writes and trusts; any other snapshot is ignored."""

_SNAPSHOT_DECODER = msgspec.json.Decoder(MatchState)


class EventMapper:
    """Maps recorded msgspec events to eventsourcing stored events and back."""

    def to_stored_event(self, match_id: str, recorded: RecordedEvent) -> StoredEvent:
        """The stored row of ``recorded``: match id, seq, its event's topic and the envelope."""
        event = recorded.event
        envelope = Envelope(
            event,
            recorded.at,
            recorded.caused_by,
            recorded.request_id,
            recorded.chain,
            recorded.sealed,
        )
        return StoredEvent(
            originator_id=match_id,
            originator_version=recorded.seq,
            topic=TOPICS.get(type(event)) or TOPIC_PREFIX + event_tag(event),
            state=_ENCODER.encode(envelope),
        )

    def to_recorded(self, stored: StoredEvent) -> RecordedEvent:
        """The recorded event of a stored row, or CorruptEventError naming match and seq."""
        return decode_row(
            str(stored.originator_id), stored.originator_version, stored.topic, stored.state
        )

    def snapshot_to_stored(self, match_id: str, state: MatchState) -> StoredEvent:
        """A stored snapshot row of ``state`` at its last seq."""
        return StoredEvent(
            originator_id=match_id,
            originator_version=state.events,
            topic=SNAPSHOT_TOPIC,
            state=_ENCODER.encode(state),
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
