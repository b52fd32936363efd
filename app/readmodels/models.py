"""Cross-match read models in their own SQLite file: ``matches``, ``players`` and
``player_matches``, kept up to the global log by the projection runner (app.readmodels.runner).

``matches`` and ``player_matches`` are folded from the log in the same batch and under one
tracked position; the ``players`` directory is read from the players' own streams before each
catch-up (app.readmodels.players).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import sqlite_utils

from app.readmodels.cursors import BadCursorError, LobbyCursor, Page, decode_cursor, encode_cursor
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
from app.readmodels.runner import ProjectionRunner, write_transaction
from app.store.match_store import LogEntry, MatchStore
from app.store.player_store import PlayerStore
from domain.players import fold_player

SCHEMA_VERSION: Final = "5"
"""Bumped when the read models' tables change shape; an older file is rebuilt."""

PROJECTION: Final = "matches"
"""The name under which the ``matches`` projection tracks its position."""

DEFAULT_BATCH: Final = 5000
"""Log entries folded per transaction."""


class MatchesProjection:
    """How the log changes ``matches`` and ``player_matches`` (and the ``players`` directory)."""

    name = PROJECTION
    schema_version = SCHEMA_VERSION
    tables: tuple[str, ...] = ("matches", "players", "player_matches")
    topics: tuple[str, ...] = ()  # every entry: each one is decoded to flag unreadable streams

    def create_tables(self, db: sqlite_utils.Database) -> None:
        """The three tables and their indexes, where missing."""
        table = db.table
        table("matches").create(COLUMNS, pk="match_id", if_not_exists=True)
        table("matches").create_index(["status"], if_not_exists=True)
        table("matches").create_index(["created"], if_not_exists=True)
        table("players").create(PLAYER_COLUMNS, pk="player_id", if_not_exists=True)
        table("player_matches").create(
            PLAYER_MATCH_COLUMNS, pk=("player_id", "match_id"), if_not_exists=True
        )
        table("player_matches").create_index(["match_id"], if_not_exists=True)

    def refresh(self, db: sqlite_utils.Database, store: MatchStore) -> None:
        """Re-read the player streams that moved on since the directory last saw them."""
        streams = PlayerStore(store)
        with write_transaction(db):
            stored = streams.versions()
            known = db.table("players").rows_where(select="player_id, version")
            changed = []
            for player_id in changed_players(stored, known):
                player = fold_player(list(streams.read(player_id)))
                if player is not None:
                    changed.append(directory_row(player))
            if changed:
                db.table("players").upsert_all(changed, pk="player_id")

    def apply(self, db: sqlite_utils.Database, store: MatchStore, entries: list[LogEntry]) -> None:
        """Fold the entries into their matches' rows and their registered players' rows."""
        match_ids = sorted({e.match_id for e in entries})
        rows = _match_rows(db, match_ids)
        seated = _player_rows(db, match_ids)
        decode = store.to_recorded
        for entry in entries:
            row = rows.get(entry.match_id)
            if row is None:
                row = rows[entry.match_id] = blank_row(entry.match_id)
            apply_entry(row, entry, decode)
            fold_player_matches(seated, row, entry, decode)
        db.table("matches").upsert_all(list(rows.values()), pk="match_id")
        players = [r for by_player in seated.values() for r in by_player.values()]
        if players:
            db.table("player_matches").upsert_all(players, pk=("player_id", "match_id"))


def _match_rows(db: sqlite_utils.Database, ids: list[str]) -> dict[str, Row]:
    marks = ",".join("?" * len(ids))
    rows: dict[str, Row] = {}
    for row in db.table("matches").rows_where(f"match_id in ({marks})", ids):
        for column in JSON_COLUMNS:
            row[column] = json.loads(row[column]) if row[column] else []
        rows[row["match_id"]] = row
    return rows


def _player_rows(db: sqlite_utils.Database, ids: list[str]) -> dict[str, dict[str, Row]]:
    marks = ",".join("?" * len(ids))
    seated: dict[str, dict[str, Row]] = {}
    for row in db.table("player_matches").rows_where(f"match_id in ({marks})", ids):
        seated.setdefault(row["match_id"], {})[row["player_id"]] = row
    return seated


class ReadModels(ProjectionRunner):
    """The ``matches`` and players tables and their tracked position, in one SQLite file."""

    def __init__(self, path: Path, store: MatchStore, *, batch_size: int = DEFAULT_BATCH) -> None:
        super().__init__(path, store, MatchesProjection(), batch_size=batch_size)

    @classmethod
    def for_store(cls, store: MatchStore, path: Path | None = None) -> ReadModels:
        """The read models of ``store`` in ``path`` (default: app.config.readmodel_path)."""
        from app.config import readmodel_path

        return cls(path or readmodel_path(store.config), store)

    # -- reading ------------------------------------------------------------------------------

    def matches(
        self, *, status: str | None = None, limit: int | None = None
    ) -> list[MatchSummaryView]:
        """Rows of ``matches``, newest first (optionally of one status)."""
        where = "status = ?" if status else None
        with self.lock:
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
        with self.lock:
            rows = list(
                self.db.table("matches").rows_where(
                    " AND ".join(where), params, order_by="created desc, match_id", limit=limit
                )
            )
        return [view_of(row) for row in rows]

    def lobby_page(
        self,
        *,
        status: str | None,
        ruleset: str | None,
        seats: int | None,
        limit: int,
        cursor: str | None,
    ) -> Page[MatchSummaryView]:
        """A page of ``lobby`` after ``cursor``; BadCursorError unless the cursor is one handed
        out for a table it lists."""
        after = None
        if cursor is not None:
            at = decode_cursor(cursor, LobbyCursor)
            row = self.match(at.match_id)
            if row is None or row.private or row.created != at.created:
                raise BadCursorError("the cursor points at no listed table")
            after = (at.created, at.match_id)
        rows = self.lobby(status=status, ruleset=ruleset, seats=seats, limit=limit + 1, after=after)
        if len(rows) <= limit:
            return Page(rows)
        last = rows[limit - 1]
        assert last.created is not None  # the lobby lists created tables only
        return Page(rows[:limit], encode_cursor(LobbyCursor(last.created, last.match_id)))

    def match(self, match_id: str) -> MatchSummaryView | None:
        """One match's row, if the read model has seen it."""
        with self.lock:
            rows = list(self.db.table("matches").rows_where("match_id = ?", [match_id]))
        return view_of(rows[0]) if rows else None

    def player_matches(self, player_id: str, *, limit: int | None = None) -> list[PlayerMatchView]:
        """The player's matches, newest first (by when the match was created)."""
        with self.lock:
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
        with self.lock:
            rows = self.db.table("players").rows_where(f"player_id in ({marks})", player_ids)
            return {row["player_id"]: shown_name(row) for row in rows}

    def player_rows(self) -> list[dict[str, Any]]:
        """Both players tables exactly as kept, in key order (to compare two builds)."""
        with self.lock:
            directory = list(self.db.table("players").rows_where(order_by="player_id"))
            seats = list(self.db.table("player_matches").rows_where(order_by="player_id, match_id"))
        return directory + seats

    def table_rows(self) -> list[dict[str, Any]]:
        """Every stored row exactly as kept, in id order (to compare two builds of the file)."""
        with self.lock:
            return list(self.db.table("matches").rows_where(order_by="match_id"))
