"""The stored form of an event, without the store: topics, and reading a row back.

A stored row is (stream, seq, topic, state), in the one form this build reads and writes: the
compact form (app.store.compact: a one-letter topic, a MessagePack array). The rest of the
server knows each kind by its ``basra:TAG`` topic (``TOPICS``, what log entries carry); the
store translates between the two. Rows of earlier builds' forms are rewritten once by
``basra store migrate`` (app.store.migration) and never read here. The eventsourcing mapper
(app.store.mapper) and the light SQLite reader (app.store.sqlite_reader) both read rows with
``decode_row``, so they cannot disagree.
"""

from __future__ import annotations

from app.errors import CorruptEventError
from app.store.compact import COMPACT_TOPICS, EVENT_OF_COMPACT_TOPIC, decode_compact
from domain.events import EVENT_TYPES, Event
from domain.recorded import RecordedEvent

TOPIC_PREFIX = "basra:"
"""Every topic the server knows a kind by starts with this; the rest is the event's tag."""


def topic_of(event_type: type[Event]) -> str:
    """The stable topic of an event class (``basra:TAG``)."""
    tag = event_type.__struct_config__.tag
    assert isinstance(tag, str)
    return TOPIC_PREFIX + tag


TOPICS: dict[type[Event], str] = {cls: topic_of(cls) for cls in EVENT_TYPES}
"""The topic of every event class this build knows."""

CANONICAL_TOPIC: dict[str, str] = {COMPACT_TOPICS[cls]: TOPICS[cls] for cls in EVENT_TYPES}
"""The topic the server knows each stored topic by."""

STORED_TOPIC: dict[str, str] = {TOPICS[cls]: COMPACT_TOPICS[cls] for cls in EVENT_TYPES}
"""The stored topic of each kind's topic."""


def stored_topics(topics: tuple[str, ...] | list[str]) -> list[str]:
    """The stored topics of rows of these kinds (a topic of no kind stays as it is)."""
    return [STORED_TOPIC.get(topic, topic) for topic in topics]


def decode_row(match_id: str, seq: int, topic: str, state: bytes) -> RecordedEvent:
    """The recorded event of a stored row, or CorruptEventError naming match and seq."""
    if topic not in EVENT_OF_COMPACT_TOPIC:
        raise CorruptEventError(match_id, seq, f"unknown event type {topic!r}")
    return decode_compact(match_id, seq, topic, state)
