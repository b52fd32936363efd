"""The custom eventsourcing ``Mapper``: msgspec events in and out of stored rows.

A stored row is (match id, seq, topic, state). The topic is the event's stable tag under the
``basra:`` prefix (``basra:card_played``), registered with eventsourcing, so a class can move or
be renamed without orphaning old streams (DESIGN pitfall 5). The state is one JSON object: the
event (with its ``type`` tag), when it was recorded, who caused it and the request id.
"""

from __future__ import annotations

import hashlib
from typing import Any, Generic, TypeVar

import msgspec
from eventsourcing.persistence import JSONTranscoder, Mapper, StoredEvent
from eventsourcing.utils import TopicError, register_topic, resolve_topic

from app.errors import CorruptEventError
from domain.events import EVENT_TYPES, Event, event_tag
from domain.state import MatchSetup, MatchState
from replays.recorded import RecordedEvent

TOPIC_PREFIX = "basra:"
"""Every stored event topic starts with this; the rest is the event's tag."""

E = TypeVar("E", bound=Event)


class Envelope(msgspec.Struct, Generic[E], frozen=True, omit_defaults=True):
    """The stored state of one event: the event itself and its support-only metadata."""

    event: E
    at: str
    caused_by: str | None = None
    request_id: str | None = None


class MatchRecord(msgspec.Struct, frozen=True):
    """A recorded event as eventsourcing sees it: originator (match id) and version (seq)."""

    originator_id: str
    originator_version: int
    recorded: RecordedEvent


def topic_of(event_type: type[Event]) -> str:
    """The stable stored topic of an event class."""
    tag = event_type.__struct_config__.tag
    assert isinstance(tag, str)
    return TOPIC_PREFIX + tag


TOPICS: dict[type[Event], str] = {cls: topic_of(cls) for cls in EVENT_TYPES}
"""The topic of every event class this build knows."""

for _cls, _topic in TOPICS.items():
    register_topic(_topic, _cls)

_ENCODER = msgspec.json.Encoder()
_DECODERS: dict[type[Event], msgspec.json.Decoder[Any]] = {
    cls: msgspec.json.Decoder(Envelope[cls])  # type: ignore[valid-type]
    for cls in EVENT_TYPES
}


def _state_fingerprint() -> str:
    """Changes whenever the shape of MatchState does, so an old snapshot is never misread."""
    shape = repr([(s.__name__, s.__annotations__) for s in (MatchState, MatchSetup)])
    return hashlib.sha256(shape.encode()).hexdigest()[:16]


SNAPSHOT_TOPIC = f"{TOPIC_PREFIX}snapshot/{_state_fingerprint()}"
"""The topic of snapshots this build writes and trusts; any other snapshot is ignored."""

_SNAPSHOT_DECODER = msgspec.json.Decoder(MatchState)


class EventMapper(Mapper[str]):
    """Maps recorded msgspec events to eventsourcing stored events and back."""

    def __init__(self) -> None:
        super().__init__(transcoder=JSONTranscoder())

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        """A stored row for a ``MatchRecord``."""
        record: MatchRecord = domain_event
        recorded = record.recorded
        event = recorded.event
        envelope = Envelope(event, recorded.at, recorded.caused_by, recorded.request_id)
        return StoredEvent(
            originator_id=record.originator_id,
            originator_version=record.originator_version,
            topic=TOPICS.get(type(event)) or TOPIC_PREFIX + event_tag(event),
            state=_ENCODER.encode(envelope),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        """The ``MatchRecord`` of a stored row, or CorruptEventError naming match and seq."""
        return MatchRecord(
            str(stored_event.originator_id),
            stored_event.originator_version,
            self.to_recorded(stored_event),
        )

    def to_recorded(self, stored: StoredEvent) -> RecordedEvent:
        """The recorded event of a stored row, or CorruptEventError naming match and seq."""
        match_id = str(stored.originator_id)
        seq = stored.originator_version
        try:
            cls = resolve_topic(stored.topic)
        except (TopicError, ImportError, AttributeError, ValueError):
            raise CorruptEventError(match_id, seq, f"unknown event type {stored.topic!r}") from None
        decoder = _DECODERS.get(cls) if isinstance(cls, type) else None
        if decoder is None:
            raise CorruptEventError(match_id, seq, f"topic {stored.topic!r} is not an event")
        try:
            envelope = decoder.decode(stored.state)
        except (msgspec.DecodeError, UnicodeDecodeError) as error:
            raise CorruptEventError(match_id, seq, str(error)) from None
        return RecordedEvent(
            seq=seq,
            at=envelope.at,
            event=envelope.event,
            caused_by=envelope.caused_by,
            request_id=envelope.request_id,
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
