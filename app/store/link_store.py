"""The linking streams (codes, wrong codes, devices seen) in a table of their own.

They sit beside the players' streams in eventsourcing's aggregate recorder ``stored_links``
(created when first opened, so an older store needs no migration step), outside the global
log. Appends are optimistic: rows are keyed by (stream, seq), so of two writers that read the
same last seq only one appends (ConflictError for the other): a code is spent once, a wrong code
is counted once, whichever process sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec
from eventsourcing.persistence import AggregateRecorder, StoredEvent

from app.errors import CorruptEventError
from app.store.decoding import TOPIC_PREFIX
from app.store.match_store import MatchStore, side_recorder, translated_errors
from domain.links import LINK_EVENT_DECODER, LINK_EVENT_TYPES, AnyLinkEvent

PURPOSE: Final = "links"
"""The recorder's purpose: its table is ``stored_links``."""

_ENCODER = msgspec.json.Encoder()
_TOPICS: Final = {cls: TOPIC_PREFIX + str(cls.__struct_config__.tag) for cls in LINK_EVENT_TYPES}


class LinkStore:
    """Linking streams, each read whole (or its last fact) and appended at an expected seq."""

    def __init__(self, store: MatchStore) -> None:
        self.calls = store.calls  # closing the store waits for these calls, then refuses
        self.recorder: AggregateRecorder = side_recorder(store, PURPOSE)
        self.backend = store.backend

    def read(self, stream: str) -> list[AnyLinkEvent]:
        """The stream's facts in order (empty when there is none)."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream)
        return [_decode(row) for row in rows]

    def last(self, stream: str) -> tuple[int, AnyLinkEvent | None]:
        """The stream's last seq and fact (0 and None when there is none)."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(stream, desc=True, limit=1)
        if not rows:
            return 0, None
        return rows[0].originator_version, _decode(rows[0])

    def append(self, stream: str, after: int, events: Sequence[AnyLinkEvent]) -> None:
        """Append ``events`` right after seq ``after``; ConflictError if another writer did."""
        rows = [
            StoredEvent(stream, after + i, _TOPICS[type(event)], _ENCODER.encode(event))
            for i, event in enumerate(events, start=1)
        ]
        with self.calls.call(), translated_errors():
            self.recorder.insert_events(rows)
        self.backend.side_appended(self.recorder, rows)


def _decode(row: StoredEvent) -> AnyLinkEvent:
    """The fact in a stored row, or CorruptEventError naming its stream and seq."""
    try:
        event: AnyLinkEvent = LINK_EVENT_DECODER.decode(row.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(
            str(row.originator_id), row.originator_version, str(error)
        ) from None
    return event
