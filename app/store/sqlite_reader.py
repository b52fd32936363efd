"""Reading match streams from a SQLite store file with sqlite3 alone, for commands that only read.

Opening the store through eventsourcing costs a command-line process more than the rest of its
work (docs/performance.md, command start-up). This reader runs the same queries eventsourcing's
SQLite application recorder runs on the table it writes (``stored_events``: originator_id,
originator_version, topic, state; the log position is the rowid), finds each match's stream
name in ``stored_streams`` as app.store.streams does, and decodes each row with
app.store.decoding, as the store does. It never creates or changes anything: a file without the
table holds no match. Writers, snapshots and PostgreSQL stay with
app.store.match_store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import msgspec

from app.errors import CorruptEventError, MatchNotFoundError, StoreUnavailableError
from app.store.decoding import STORED_TOPICS, TOPICS, decode_row
from app.store.streams import STREAMS_TABLE, stream_key
from domain.events import MatchCreated
from domain.players import PLAYER_EVENT_DECODER, PlayerState, fold_player
from domain.recorded import RecordedEvent

EVENTS_TABLE = "stored_events"
"""The table eventsourcing's SQLite application recorder keeps the events in."""

PLAYERS_TABLE = "stored_players"
"""The table the players' streams are kept in (app.store.player_store)."""

_CHUNK = 500  # ids per query, well under SQLite's limit on bound parameters

LOCK_TIMEOUT_SECONDS = 5
"""How long a read waits for another process's transaction, as the store does."""


class SQLiteStreams:
    """The match streams of one SQLite store file, read-only, without eventsourcing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection = sqlite3.connect(str(path), timeout=LOCK_TIMEOUT_SECONDS)

    def close(self) -> None:
        """Close the file."""
        self._connection.close()

    def _rows(self, statement: str, params: tuple[str, ...]) -> list[Any]:
        """The rows of one query; no table is no rows, a file SQLite cannot read is a fault."""
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
        rows = self._rows(
            f"SELECT originator_version, topic, state FROM {EVENTS_TABLE} "
            "WHERE originator_id=? ORDER BY originator_version ASC",
            (self._stream(match_id),),
        )
        if not rows:
            raise MatchNotFoundError(match_id)
        return [decode_row(match_id, int(seq), str(topic), state) for seq, topic, state in rows]

    def _stream(self, match_id: str) -> str:
        """The name the match's stream is stored under (its key, or its id: a legacy stream)."""
        rows = self._rows(f"SELECT n FROM {STREAMS_TABLE} WHERE match_id=?", (match_id,))
        return stream_key(int(rows[0][0])) if rows else match_id

    def match_ids(self) -> list[str]:
        """Every stored match id, in the order the matches were created."""
        compact, legacy = STORED_TOPICS[TOPICS[MatchCreated]]
        keys = {
            stream_key(int(n)): str(match_id)
            for n, match_id in self._rows(f"SELECT n, match_id FROM {STREAMS_TABLE}", ())
        }
        rows = self._rows(
            f"SELECT originator_id FROM {EVENTS_TABLE} WHERE topic IN (?, ?) ORDER BY rowid",
            (compact, legacy),
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
