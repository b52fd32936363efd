"""The stored forms of an event, without the store: topics, envelopes, and reading a row back.

A stored row is (stream, seq, topic, state). Rows are written in the compact form
(app.store.compact: a one-letter topic, a MessagePack array). Rows written before it hold the
JSON form, read here: the topic is the event's stable tag under the ``basra:`` prefix
(``basra:card_played``) and the state one JSON object: the event (with its ``type`` tag), when
it was recorded, who caused it and the request id. Either way the rest of the server sees one
topic per kind, the JSON form's (``TOPICS``, what log entries carry). The eventsourcing mapper
(app.store.mapper) and the light SQLite reader (app.store.sqlite_reader) both read rows with
``decode_row``, so they cannot disagree.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from app.errors import CorruptEventError
from app.store.compact import COMPACT_TOPICS, EVENT_OF_COMPACT_TOPIC, decode_compact
from domain.events import EVENT_TYPES, Event
from domain.recorded import RecordedEvent

TOPIC_PREFIX = "basra:"
"""Every stored event topic starts with this; the rest is the event's tag."""

E = TypeVar("E", bound=Event)


class Envelope(msgspec.Struct, Generic[E], frozen=True, omit_defaults=True):
    """The stored state of one event: the event itself and its support-only metadata."""

    event: E
    at: str
    caused_by: str | None = None
    request_id: str | None = None
    chain: str | None = None  # the hash chain link (domain.chain); absent from older rows
    sealed: str | None = None  # an imported event's hash of its support-only fields


def topic_of(event_type: type[Event]) -> str:
    """The stable stored topic of an event class."""
    tag = event_type.__struct_config__.tag
    assert isinstance(tag, str)
    return TOPIC_PREFIX + tag


TOPICS: dict[type[Event], str] = {cls: topic_of(cls) for cls in EVENT_TYPES}
"""The topic of every event class this build knows."""

EVENT_OF_TOPIC: dict[str, type[Event]] = {topic: cls for cls, topic in TOPICS.items()}
"""The event class stored under each topic; any other topic is not an event of this build."""

CANONICAL_TOPIC: dict[str, str] = {
    **{topic: topic for topic in EVENT_OF_TOPIC},
    **{COMPACT_TOPICS[cls]: TOPICS[cls] for cls in EVENT_TYPES},
}
"""The topic the server knows each stored topic by (the JSON form's, whichever form a row has)."""

STORED_TOPICS: dict[str, tuple[str, ...]] = {
    TOPICS[cls]: (COMPACT_TOPICS[cls], TOPICS[cls]) for cls in EVENT_TYPES
}
"""The stored topics of each kind's topic: the compact form's and the JSON form's."""


def stored_topics(topics: tuple[str, ...] | list[str]) -> list[str]:
    """Every stored topic rows of these kinds can have (a topic of no kind stays as it is)."""
    return [stored for topic in topics for stored in STORED_TOPICS.get(topic, (topic,))]


_DECODERS: dict[type[Event], msgspec.json.Decoder[Any]] = {}


def _decoder(cls: type[Event]) -> msgspec.json.Decoder[Any]:
    """The envelope decoder of one event class, made on first use (a command reads few kinds)."""
    decoder = _DECODERS.get(cls)
    if decoder is None:
        decoder = _DECODERS[cls] = msgspec.json.Decoder(Envelope[cls])  # type: ignore[valid-type]
    return decoder


def decode_row(match_id: str, seq: int, topic: str, state: bytes) -> RecordedEvent:
    """The recorded event of a stored row, or CorruptEventError naming match and seq."""
    if topic in EVENT_OF_COMPACT_TOPIC:
        return decode_compact(match_id, seq, topic, state)
    cls = EVENT_OF_TOPIC.get(topic)
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
