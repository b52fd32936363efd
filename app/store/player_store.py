"""The players' streams (one per player, ``p-…``) in a table of their own.

They sit in the same database as the match streams, in eventsourcing's aggregate recorder
``stored_players``, so the global log, the match listings, ``verify --all`` and the live feeds
never mistake a player for a match. Appends are optimistic like a match's: rows are keyed by
(player id, seq), so of two writers that read the same last seq only one appends (the other
gets ConflictError). Every read goes to the database, so a token rotated through one API
process is refused by every other at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec
from eventsourcing.persistence import AggregateRecorder, StoredEvent

from app.errors import CorruptEventError
from app.store.decoding import TOPIC_PREFIX
from app.store.match_store import MatchStore, side_recorder, translated_errors
from domain.players import PLAYER_EVENT_DECODER, PLAYER_EVENT_TYPES, AnyPlayerEvent, PlayerEvent

PURPOSE: Final = "players"
"""The recorder's purpose: its table is ``stored_players``."""

_ENCODER = msgspec.json.Encoder()
_TOPICS: Final = {cls: TOPIC_PREFIX + str(cls.__struct_config__.tag) for cls in PLAYER_EVENT_TYPES}


class PlayerStore:
    """Players' streams, each read whole and appended at an expected seq."""

    def __init__(self, store: MatchStore) -> None:
        self.calls = store.calls  # closing the store waits for these calls, then refuses
        self.recorder: AggregateRecorder = side_recorder(store, PURPOSE)
        self.backend = store.backend

    def read(self, player_id: str) -> list[AnyPlayerEvent]:
        """The player's events in order (empty when there is no such player)."""
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_events(player_id)
        return [_decode(row) for row in rows]

    def append(self, player_id: str, after: int, events: Sequence[PlayerEvent]) -> None:
        """Append ``events`` right after seq ``after``; ConflictError if another writer did."""
        rows = [
            StoredEvent(player_id, after + i, _TOPICS[type(event)], _ENCODER.encode(event))
            for i, event in enumerate(events, start=1)
        ]
        with self.calls.call(), translated_errors():
            self.recorder.insert_events(rows)
        self.backend.side_appended(self.recorder, rows)

    def read_many(self, player_ids: Sequence[str]) -> dict[str, list[AnyPlayerEvent]]:
        """Several players' events in order, by id, in one query (a ladder page's names);
        an id with no stream is left out."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        found: dict[str, list[AnyPlayerEvent]] = {}
        with self.calls.call(), translated_errors():
            rows = self.backend.side_rows(self.recorder, ids)
        for row in rows:
            found.setdefault(str(row.originator_id), []).append(_decode(row))
        return found

    def versions(self) -> dict[str, int]:
        """Every player's id and the last seq of their stream (one scan of the key index).

        The streams have no global order, so this is how the players read model finds out
        which players changed since it last looked (docs/storage.md).
        """
        with self.calls.call(), translated_errors():
            return self.backend.side_versions(self.recorder)


def _decode(row: StoredEvent) -> AnyPlayerEvent:
    """The event in a stored row, or CorruptEventError naming its stream and seq."""
    try:
        event: AnyPlayerEvent = PLAYER_EVENT_DECODER.decode(row.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(
            str(row.originator_id), row.originator_version, str(error)
        ) from None
    return event
