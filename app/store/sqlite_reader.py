"""Reading match streams from a SQLite store file with sqlite3 alone, for commands that only read.

Opening the store through eventsourcing costs a command-line process more than the rest of its
work (docs/performance.md, command start-up). This reader runs the same queries eventsourcing's
SQLite application recorder runs on the table it writes (``stored_events``: originator_id,
originator_version, topic, state; the log position is the rowid), finds each match's stream
key in ``stored_streams`` as app.store.streams does, and decodes each row with
app.store.decoding, as the store does. It never creates or changes anything: a file without the
table holds no match. Like the store, it holds the store's lock shared while open and refuses a
store of an earlier form (StoreNotMigratedError). Writers, snapshots and PostgreSQL stay with
app.store.match_store.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path
from typing import Any

import msgspec

from app.errors import (
    CorruptEventError,
    MatchNotFoundError,
    StoreNotMigratedError,
    StoreUnavailableError,
)
from app.store.compact import COMPACT_TOPICS
from app.store.decoding import decode_row
from app.store.streams import STREAMS_TABLE, stream_key
from domain.events import MatchCreated
from domain.players import PLAYER_EVENT_DECODER, PlayerState, fold_player
from domain.recorded import RecordedEvent

EVENTS_TABLE = "stored_events"
"""The table eventsourcing's SQLite application recorder keeps the events in."""

PLAYERS_TABLE = "stored_players"
"""The table the players' streams are kept in (app.store.player_store)."""

STORED_FORM = 3
"""The stored form this build reads (app.store.backend.STORED_FORM, which imports eventsourcing;
tests/app/test_light_readers.py checks they agree)."""

_CHUNK = 500  # ids per query, well under SQLite's limit on bound parameters

LOCK_TIMEOUT_SECONDS = 5
"""How long a read waits for another process's transaction, as the store does."""


def _shared_lock(path: Path) -> int | None:
    """The store's lock (app.store.sqlite.take_lock) held shared, when its lock file exists."""
    try:
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # no server or migration ever opened it: nothing to share with
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreNotMigratedError(
            f"the store {path} is being migrated by basra store migrate: wait for it to end"
        ) from None
    return fd


class SQLiteStreams:
    """The match streams of one SQLite store file, read-only, without eventsourcing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = _shared_lock(path)
        self._connection = sqlite3.connect(str(path), timeout=LOCK_TIMEOUT_SECONDS)
        self._checked = False

    def close(self) -> None:
        """Close the file and release the lock."""
        self._connection.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _check_form(self) -> None:
        """Refuse a store of an earlier build's form (one that holds events and is not marked
        with this build's), on the first read."""
        self._checked = True
        rows = self._rows("PRAGMA user_version", ())
        if rows and int(rows[0][0]) == STORED_FORM:
            return
        if self._rows(f"SELECT 1 FROM {EVENTS_TABLE} LIMIT 1", ()):
            raise StoreNotMigratedError(
                f"the store {self.path} was written by an earlier build: run `basra store "
                "migrate` (with no server running) to rewrite it once"
            )

    def _rows(self, statement: str, params: tuple[str, ...]) -> list[Any]:
        """The rows of one query; no table is no rows, a file SQLite cannot read is a fault."""
        if not self._checked:
            self._check_form()
        try:
            return self._connection.execute(statement, params).fetchall()
        except sqlite3.OperationalError as error:
            if str(error).startswith("no such table"):
                return []
            raise StoreUnavailableError(f"the event store is unavailable: {error}") from None
        except sqlite3.DatabaseError as error:  # not a database, damaged beyond reading
            raise StoreUnavailableError(f"cannot open {self.path}: {error}") from None

    def events(self, match_id: str) -> list[RecordedEvent]:
        """The whole stream of ``match_id`` in seq order; MatchNotFoundError when there is none."""
        key = self._stream(match_id)
        rows = (
            self._rows(
                f"SELECT originator_version, topic, state FROM {EVENTS_TABLE} "
                "WHERE originator_id=? ORDER BY originator_version ASC",
                (key,),
            )
            if key is not None
            else []
        )
        if not rows:
            raise MatchNotFoundError(match_id)
        return [decode_row(match_id, int(seq), str(topic), state) for seq, topic, state in rows]

    def _stream(self, match_id: str) -> str | None:
        """The key the match's stream is stored under (None: no such match)."""
        rows = self._rows(f"SELECT n FROM {STREAMS_TABLE} WHERE match_id=?", (match_id,))
        return stream_key(int(rows[0][0])) if rows else None

    def match_ids(self) -> list[str]:
        """Every stored match id, in the order the matches were created."""
        keys = {
            stream_key(int(n)): str(match_id)
            for n, match_id in self._rows(f"SELECT n, match_id FROM {STREAMS_TABLE}", ())
        }
        rows = self._rows(
            f"SELECT originator_id FROM {EVENTS_TABLE} WHERE topic = ? ORDER BY rowid",
            (COMPACT_TOPICS[MatchCreated],),
        )
        return [keys.get(str(row[0]), str(row[0])) for row in rows]

    def max_position(self) -> int:
        """The last position of the global log (its largest rowid), 0 when it is empty."""
        rows = self._rows(f"SELECT MAX(rowid) FROM {EVENTS_TABLE}", ())
        return int(rows[0][0] or 0) if rows else 0

    def player_versions(self, player_ids: list[str]) -> dict[str, int]:
        """The last seq of each of these players' streams (players not stored are left out)."""
        versions: dict[str, int] = {}
        for start in range(0, len(player_ids), _CHUNK):
            chunk = tuple(player_ids[start : start + _CHUNK])
            rows = self._rows(
                f"SELECT originator_id, MAX(originator_version) FROM {PLAYERS_TABLE} "
                f"WHERE originator_id IN ({','.join('?' * len(chunk))}) GROUP BY originator_id",
                chunk,
            )
            versions.update((str(pid), int(version)) for pid, version in rows)
        return versions

    def players(self, player_ids: list[str]) -> dict[str, PlayerState]:
        """These players folded from their streams as stored now (players not stored left out)."""
        found: dict[str, PlayerState] = {}
        for player_id in player_ids:
            rows = self._rows(
                f"SELECT originator_version, state FROM {PLAYERS_TABLE} "
                "WHERE originator_id=? ORDER BY originator_version ASC",
                (player_id,),
            )
            try:
                player = fold_player([PLAYER_EVENT_DECODER.decode(state) for _, state in rows])
            except (msgspec.DecodeError, UnicodeDecodeError) as error:
                seq = int(rows[-1][0]) if rows else 0
                raise CorruptEventError(player_id, seq, str(error)) from None
            if player is not None:
                found[player_id] = player
        return found
