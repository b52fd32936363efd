"""The stored forms of earlier builds, read only by ``basra store migrate`` (app.store.migration).

Before the compact form (app.store.compact) an event row held the JSON form: the topic was the
event's stable tag under the ``basra:`` prefix (``basra:card_played``) and the state one JSON
object, the envelope ``{"event": {...}, "at", "caused_by", "request_id", "chain", "sealed"}``.
The server itself reads and writes only the compact form; a store holding rows of this form is
migrated once, in place, before it is served (docs/storage.md, "One stored form").
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from app.errors import CorruptEventError
from app.store.decoding import TOPIC_PREFIX, TOPICS
from domain.events import Event, event_tag
from domain.recorded import RecordedEvent

E = TypeVar("E", bound=Event)


class Envelope(msgspec.Struct, Generic[E], frozen=True, omit_defaults=True):
    """The JSON form's state of one event: the event itself and its support-only metadata."""

    event: E
    at: str
    caused_by: str | None = None
    request_id: str | None = None
    chain: str | None = None  # the hash chain link (domain.chain); absent from the first rows
    sealed: str | None = None  # an imported event's hash of its support-only fields


EVENT_OF_JSON_TOPIC: dict[str, type[Event]] = {topic: cls for cls, topic in TOPICS.items()}
"""The event class stored under each JSON form's topic."""

_DECODERS: dict[type[Event], msgspec.json.Decoder[Any]] = {}
_ENCODER = msgspec.json.Encoder()


def is_json_topic(topic: str) -> bool:
    """Whether a stored event topic is the JSON form's (``basra:TAG``)."""
    return topic.startswith(TOPIC_PREFIX)


def _decoder(cls: type[Event]) -> msgspec.json.Decoder[Any]:
    decoder = _DECODERS.get(cls)
    if decoder is None:
        decoder = _DECODERS[cls] = msgspec.json.Decoder(Envelope[cls])  # type: ignore[valid-type]
    return decoder


def decode_json_row(match_id: str, seq: int, topic: str, state: bytes) -> RecordedEvent:
    """The recorded event of a JSON form row, or CorruptEventError naming match and seq."""
    cls = EVENT_OF_JSON_TOPIC.get(topic)
    if cls is None:
        raise CorruptEventError(match_id, seq, f"unknown event type {topic!r}")
    try:
        envelope = _decoder(cls).decode(state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(match_id, seq, str(error)) from None
    return RecordedEvent(
        seq=seq,
        at=envelope.at,
        event=envelope.event,
        caused_by=envelope.caused_by,
        request_id=envelope.request_id,
        chain=envelope.chain,
        sealed=envelope.sealed,
    )


def encode_json_row(recorded: RecordedEvent) -> tuple[str, bytes]:
    """The (topic, state) ``recorded`` had in the JSON form (for tests and benchmarks that make
    stores as earlier builds wrote them)."""
    event = recorded.event
    envelope = Envelope(
        event,
        recorded.at,
        recorded.caused_by,
        recorded.request_id,
        recorded.chain,
        recorded.sealed,
    )
    topic = TOPICS.get(type(event)) or TOPIC_PREFIX + event_tag(event)
    return topic, _ENCODER.encode(envelope)
