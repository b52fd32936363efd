"""The players' streams (one per player, ``p-…``) in a table of their own.

They sit in the same database as the match streams, in eventsourcing's aggregate recorder
``stored_players``, so the global log, the match listings, ``verify --all`` and the live feeds
never mistake a player for a match. Appends are optimistic like a match's: rows are keyed by
(player id, seq), so of two writers that read the same last seq only one appends (the other
gets ConflictError). Every read goes to the database, so a token rotated through one API
process is refused by every other at once.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any, Final

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


class _MemoryVersions:
    """In memory (tests), the last seq of every player's stream, kept as appends commit.

    The library's in-memory recorder has no public way to list the streams it holds, and the
    in-memory store lives in this process only, so its appends are all seen here.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_recorder: weakref.WeakKeyDictionary[AggregateRecorder, dict[str, int]] = (
            weakref.WeakKeyDictionary()
        )

    def record(self, recorder: AggregateRecorder, player_id: str, version: int) -> None:
        """A stream reached ``version``."""
        with self.lock:
            versions = self.by_recorder.setdefault(recorder, {})
            versions[player_id] = max(version, versions.get(player_id, 0))

    def of(self, recorder: AggregateRecorder) -> dict[str, int]:
        """Every stream's last seq."""
        with self.lock:
            return dict(self.by_recorder.get(recorder, {}))


_MEMORY_VERSIONS = _MemoryVersions()


class PlayerStore:
    """Players' streams, each read whole and appended at an expected seq."""

    def __init__(self, store: MatchStore) -> None:
        self.recorder: AggregateRecorder = side_recorder(store, PURPOSE)
        self.in_memory = store.kind == "memory"

    def read(self, player_id: str) -> list[AnyPlayerEvent]:
        """The player's events in order (empty when there is no such player)."""
        with translated_errors():
            rows = self.recorder.select_events(player_id)
        return [_decode(row) for row in rows]

    def append(self, player_id: str, after: int, events: Sequence[PlayerEvent]) -> None:
        """Append ``events`` right after seq ``after``; ConflictError if another writer did."""
        rows = [
            StoredEvent(player_id, after + i, _TOPICS[type(event)], _ENCODER.encode(event))
            for i, event in enumerate(events, start=1)
        ]
        with translated_errors():
            self.recorder.insert_events(rows)
        if self.in_memory and rows:
            _MEMORY_VERSIONS.record(self.recorder, player_id, rows[-1].originator_version)

    def read_many(self, player_ids: Sequence[str]) -> dict[str, list[AnyPlayerEvent]]:
        """Several players' events in order, by id, in one query (a ladder page's names);
        an id with no stream is left out."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        recorder: Any = self.recorder
        found: dict[str, list[AnyPlayerEvent]] = {}
        with translated_errors():
            if self.in_memory:
                for pid in ids:
                    rows = recorder.select_events(pid)
                    if rows:
                        found[pid] = [_decode(row) for row in rows]
                return found
            datastore = recorder.datastore
            schema = getattr(datastore, "schema", None)
            if schema is None:  # SQLite
                marks = ",".join("?" * len(ids))
                query: Any = _MANY.format(table=recorder.events_table_name, marks=marks)
            else:  # PostgreSQL
                from psycopg.sql import SQL, Identifier

                marks = ",".join(["%s"] * len(ids))
                query = SQL(_MANY.format(table="{}.{}", marks=marks)).format(
                    Identifier(schema), Identifier(recorder.events_table_name)
                )
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(query, ids)
                for row in cursor.fetchall():
                    pid = str(row["originator_id"])
                    stored = StoredEvent(
                        pid, int(row["originator_version"]), str(row["topic"]), bytes(row["state"])
                    )
                    found.setdefault(pid, []).append(_decode(stored))
        return found

    def versions(self) -> dict[str, int]:
        """Every player's id and the last seq of their stream (one scan of the key index).

        The streams have no global order, so this is how the players read model finds out
        which players changed since it last looked (docs/storage.md).
        """
        recorder: Any = self.recorder
        with translated_errors():
            if self.in_memory:
                return _MEMORY_VERSIONS.of(self.recorder)
            datastore = recorder.datastore
            schema = getattr(datastore, "schema", None)
            if schema is None:  # SQLite
                query: Any = _VERSIONS.format(table=recorder.events_table_name)
            else:  # PostgreSQL
                from psycopg.sql import SQL, Identifier

                query = SQL(_VERSIONS.format(table="{}.{}")).format(
                    Identifier(schema), Identifier(recorder.events_table_name)
                )
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(query)
                return {str(row["id"]): int(row["version"]) for row in cursor.fetchall()}


_MANY: Final = (
    "SELECT originator_id, originator_version, topic, state FROM {table}"
    " WHERE originator_id IN ({marks}) ORDER BY originator_id, originator_version"
)

_VERSIONS: Final = (
    "SELECT originator_id AS id, MAX(originator_version) AS version"
    " FROM {table} GROUP BY originator_id"
)


def _decode(row: StoredEvent) -> AnyPlayerEvent:
    """The event in a stored row, or CorruptEventError naming its stream and seq."""
    try:
        event: AnyPlayerEvent = PLAYER_EVENT_DECODER.decode(row.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise CorruptEventError(
            str(row.originator_id), row.originator_version, str(error)
        ) from None
    return event
