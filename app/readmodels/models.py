"""Cross-match read models in their own SQLite file (sqlite-utils), following the global log.

A pull loop (eventsourcing's ProjectionRunner cannot subscribe to SQLite, docs/architecture.md, L4):
each batch takes the write lock on the read-model file, reads its tracked position, fetches the
log entries after it, folds them into rows and writes the rows and the new position in the same
transaction. A crash mid-batch rolls the whole batch back, so the next run resumes at the last
committed position with nothing lost or counted twice. The file is a cache: it records which
store it follows, and is dropped and rebuilt from the log when that changes or when it claims a
position the log does not have.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils

from app.readmodels.matches import (
    COLUMNS,
    JSON_COLUMNS,
    MatchSummaryView,
    Row,
    apply_entry,
    blank_row,
    view_of,
)
from app.readmodels.players import (
    PLAYER_COLUMNS,
    PLAYER_MATCH_COLUMNS,
    PlayerMatchView,
    changed_players,
    directory_row,
    fold_player_matches,
    player_match_view,
    shown_name,
)
from app.store.match_store import LogEntry, MatchStore
from app.store.player_store import PlayerStore
from domain.players import fold_player

SCHEMA_VERSION = "4"
"""Bumped when the read models' tables change shape; an older file is rebuilt."""

PROJECTION = "matches"
"""The name under which the ``matches`` projection tracks its position."""

DEFAULT_BATCH = 5000
"""Log entries folded per transaction."""

BUSY_TIMEOUT_SECONDS = 10.0
"""How long a follower waits for another process's batch on a shared file."""

Progress = Callable[[int, int], None]
"""Called with (position reached, last position of the log) after each batch."""


class ReadModels:
    """The ``matches`` table and its tracked position, in one SQLite file."""

    def __init__(self, path: Path, store: MatchStore, *, batch_size: int = DEFAULT_BATCH) -> None:
        self.path = path
        self.store = store
        self.batch_size = batch_size
        path.parent.mkdir(parents=True, exist_ok=True)
        # One connection, used from any thread under self._lock (an API process's workers).
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
        self.db = sqlite_utils.Database(connection)
        if self.db.journal_mode != "wal":
            self.db.enable_wal()
        # A cache rebuilt from the log: losing the last commits to a power cut only means
        # re-reading them, since the position rolls back with the rows.
        self.db.conn.execute("PRAGMA synchronous=NORMAL")
        self._lock = threading.RLock()
        self._create_tables()

    @classmethod
    def for_store(cls, store: MatchStore, path: Path | None = None) -> ReadModels:
        """The read models of ``store`` in ``path`` (default: app.config.readmodel_path)."""
        from app.config import readmodel_path

        return cls(path or readmodel_path(store.config), store)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self.db.close()

    # -- following the log --------------------------------------------------------------------

    def catch_up(
        self,
        *,
        progress: Progress | None = None,
        after_entry: Callable[[LogEntry], None] | None = None,
    ) -> int:
        """Apply every log entry after the tracked position; returns how many were applied."""
        applied = 0
        with self._lock:
            self._check_source()
            self._sync_players()
            while True:
                count, position = self._apply_batch(after_entry)
                applied += count
                if progress is not None:
                    progress(position, self.store.max_position())
                if count < self.batch_size:
                    return applied

    def rebuild(self, *, progress: Progress | None = None) -> int:
        """Drop every read model and rebuild it from the start of the log."""
        with self._lock, self._write_transaction():
            self._drop_tables()
            self._create_tables()
        return self.catch_up(progress=progress)

    def position(self) -> int:
        """The last log position folded into the tables."""
        with self._lock:
            row = self.db.execute(
                "SELECT position FROM positions WHERE name = ?", [PROJECTION]
            ).fetchone()
        return int(row[0]) if row else 0

    # -- reading ------------------------------------------------------------------------------

    def matches(
        self, *, status: str | None = None, limit: int | None = None
    ) -> list[MatchSummaryView]:
        """Rows of ``matches``, newest first (optionally of one status)."""
        where = "status = ?" if status else None
        with self._lock:
            rows = list(
                self.db.table("matches").rows_where(
                    where,
                    [status] if status else None,
                    order_by="created desc, match_id",
                    limit=limit,
                )
            )
        return [view_of(row) for row in rows]

    def lobby(
        self,
        *,
        status: str | None = None,
        ruleset: str | None = None,
        seats: int | None = None,
        limit: int = 20,
        after: tuple[str, str] | None = None,
    ) -> list[MatchSummaryView]:
        """Public tables (never a private one), newest first, after the row ``after``.

        ``after`` is the (created, match_id) of the last row of the previous page; rows are
        ordered by ``created`` descending, then ``match_id`` ascending.
        """
        where = ["private = 0", "created IS NOT NULL", "status IN ('waiting', 'playing', 'ended')"]
        params: list[str | int] = []
        for column, value in (("status", status), ("ruleset", ruleset), ("seats", seats)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if after is not None:
            where.append("(created < ? OR (created = ? AND match_id > ?))")
            params.extend([after[0], after[0], after[1]])
        with self._lock:
            rows = list(
                self.db.table("matches").rows_where(
                    " AND ".join(where), params, order_by="created desc, match_id", limit=limit
                )
            )
        return [view_of(row) for row in rows]

    def match(self, match_id: str) -> MatchSummaryView | None:
        """One match's row, if the read model has seen it."""
        with self._lock:
            rows = list(self.db.table("matches").rows_where("match_id = ?", [match_id]))
        return view_of(rows[0]) if rows else None

    def player_matches(self, player_id: str, *, limit: int | None = None) -> list[PlayerMatchView]:
        """The player's matches, newest first (by when the match was created)."""
        with self._lock:
            rows = list(
                self.db.table("player_matches").rows_where(
                    "player_id = ?", [player_id], order_by="created desc, match_id", limit=limit
                )
            )
        return [player_match_view(row) for row in rows]

    def shown_names(self, player_ids: list[str]) -> dict[str, str]:
        """The name each player in the directory shows under (``deleted player`` once erased)."""
        if not player_ids:
            return {}
        marks = ",".join("?" * len(player_ids))
        with self._lock:
            rows = self.db.table("players").rows_where(f"player_id in ({marks})", player_ids)
            return {row["player_id"]: shown_name(row) for row in rows}

    def player_rows(self) -> list[dict[str, Any]]:
        """Both players tables exactly as kept, in key order (to compare two builds)."""
        with self._lock:
            directory = list(self.db.table("players").rows_where(order_by="player_id"))
            seats = list(self.db.table("player_matches").rows_where(order_by="player_id, match_id"))
        return directory + seats

    def table_rows(self) -> list[dict[str, Any]]:
        """Every stored row exactly as kept, in id order (to compare two builds of the file)."""
        with self._lock:
            return list(self.db.table("matches").rows_where(order_by="match_id"))

    # -- inside ---------------------------------------------------------------------------------

    def _apply_batch(self, after_entry: Callable[[LogEntry], None] | None) -> tuple[int, int]:
        with self._write_transaction():
            position = self.position()
            entries = self.store.log_after(position, self.batch_size)
            if not entries:
                return 0, position
            rows = self._rows_for({e.match_id for e in entries})
            seated = self._player_rows_for({e.match_id for e in entries})
            decode = self.store.to_recorded
            for entry in entries:
                row = rows.get(entry.match_id)
                if row is None:
                    row = rows[entry.match_id] = blank_row(entry.match_id)
                apply_entry(row, entry, decode)
                fold_player_matches(seated, row, entry, decode)
                if after_entry is not None:
                    after_entry(entry)
            self.db.table("matches").upsert_all(list(rows.values()), pk="match_id")
            players = [r for by_player in seated.values() for r in by_player.values()]
            if players:
                self.db.table("player_matches").upsert_all(players, pk=("player_id", "match_id"))
            last = entries[-1].position
            self.db.table("positions").upsert({"name": PROJECTION, "position": last}, pk="name")
            return len(entries), last

    def _player_rows_for(self, match_ids: set[str]) -> dict[str, dict[str, Row]]:
        ids = sorted(match_ids)
        marks = ",".join("?" * len(ids))
        found = self.db.table("player_matches").rows_where(f"match_id in ({marks})", ids)
        seated: dict[str, dict[str, Row]] = {}
        for row in found:
            seated.setdefault(row["match_id"], {})[row["player_id"]] = row
        return seated

    def _sync_players(self) -> None:
        """Re-read the player streams that moved on since the directory last saw them."""
        streams = PlayerStore(self.store)
        with self._write_transaction():
            stored = streams.versions()
            known = self.db.table("players").rows_where(select="player_id, version")
            changed = []
            for player_id in changed_players(stored, known):
                player = fold_player(list(streams.read(player_id)))
                if player is not None:
                    changed.append(directory_row(player))
            if changed:
                self.db.table("players").upsert_all(changed, pk="player_id")

    def _rows_for(self, match_ids: set[str]) -> dict[str, Row]:
        ids = sorted(match_ids)
        marks = ",".join("?" * len(ids))
        found = self.db.table("matches").rows_where(f"match_id in ({marks})", ids)
        rows: dict[str, Row] = {}
        for row in found:
            for column in JSON_COLUMNS:
                row[column] = json.loads(row[column]) if row[column] else []
            rows[row["match_id"]] = row
        return rows

    @contextmanager
    def _write_transaction(self) -> Iterator[None]:
        # BEGIN IMMEDIATE takes the write lock before the position is read, so two processes
        # sharing a file never fold the same entries twice.
        self.db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.conn.execute("ROLLBACK")
            raise
        self.db.conn.execute("COMMIT")

    def _create_tables(self) -> None:
        table = self.db.table
        table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
        table("positions").create({"name": str, "position": int}, pk="name", if_not_exists=True)
        table("matches").create(COLUMNS, pk="match_id", if_not_exists=True)
        table("matches").create_index(["status"], if_not_exists=True)
        table("matches").create_index(["created"], if_not_exists=True)
        table("players").create(PLAYER_COLUMNS, pk="player_id", if_not_exists=True)
        table("player_matches").create(
            PLAYER_MATCH_COLUMNS, pk=("player_id", "match_id"), if_not_exists=True
        )
        table("player_matches").create_index(["match_id"], if_not_exists=True)

    def _drop_tables(self) -> None:
        for name in ("matches", "players", "player_matches", "positions", "meta"):
            self.db.table(name).drop(ignore=True)

    def _meta(self) -> dict[str, str]:
        return {row["key"]: row["value"] for row in self.db.table("meta").rows}

    def _check_source(self) -> None:
        """Rebuild from nothing when the file follows another store or is ahead of this log."""
        expected = {"store": self.store.identity, "schema": SCHEMA_VERSION}
        with self._write_transaction():
            meta = self._meta()
            stale = any(meta.get(k) != v for k, v in expected.items())
            if not stale and self.position() > self.store.max_position():
                stale = True  # it claims entries the log does not have: never serve that
            if stale:
                self._drop_tables()
                self._create_tables()
                self.db.table("meta").upsert_all(
                    [{"key": k, "value": v} for k, v in expected.items()], pk="key"
                )
