"""Support's reads of the read models: players found by name or id prefix, told apart.

Two players may share a name, so each hit carries what tells them apart: the id, when they were
first seen at a table, how many matches they played and their rating. The name search is a range
over a case-blind index of the ``players`` directory (made here on first use), so it answers in
a few index steps whatever the number of players.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final
from urllib.parse import quote

import msgspec

from app.readmodels.models import ReadModels
from app.readmodels.players import PlayerMatchView, directory_row, player_match_view
from app.readmodels.results import Results
from app.readmodels.runner import BUSY_TIMEOUT_SECONDS
from app.store.match_store import MatchStore
from app.store.player_store import PlayerStore
from domain.players import fold_player
from domain.ratings import NEW_PLAYER

SEARCH_LIMIT: Final = 50
"""Most players one search returns."""

FRESH_SECONDS: Final = 30.0
"""How old the directory may be for support's reads: catching the ``players`` directory up
re-reads every player stream's version (0.3-0.45 s at 100,000 players on a quiet machine of this
kind, 1.5 s under load), so a process does it at most this often for support, and never on the
request that finds it due: that request answers from the directory as it is and the refresh
runs beside it (``fresh_enough``). A player registered since is found by id on their page (read
from their stream) and by name within this time; a rename by support is in the directory at
once (``directory_now``)."""

_caught: weakref.WeakKeyDictionary[ReadModels, float] = weakref.WeakKeyDictionary()
_refreshing: weakref.WeakSet[ReadModels] = weakref.WeakSet()
_caught_lock = threading.Lock()


def fresh_enough(models: ReadModels) -> None:
    """Keep the read models at most ``FRESH_SECONDS`` old for support without making a read
    wait for the directory's refresh: the first read of a process catches them up (there is
    nothing to answer from before); a later one that finds them due starts the catch-up on a
    thread of its own, once at a time, and answers at once."""
    now = time.monotonic()
    with _caught_lock:
        last = _caught.get(models)
        if last is not None and now - last < FRESH_SECONDS:
            return
        _caught[models] = now
        if last is not None:
            if models in _refreshing:
                return
            _refreshing.add(models)
    if last is None:
        models.catch_up()
        return
    threading.Thread(
        target=_refresh_beside, args=(models,), name="support-directory", daemon=True
    ).start()


def _refresh_beside(models: ReadModels) -> None:
    """The catch-up a read found due, off that read's path (a failure is retried when next due)."""
    try:
        models.catch_up()
    except Exception:  # the store closing under it: the next read finds it due again
        with _caught_lock:
            _caught.pop(models, None)
    finally:
        with _caught_lock:
            _refreshing.discard(models)


def directory_now(models: ReadModels, store: MatchStore, player_id: str) -> None:
    """Bring one player's row of the ``players`` directory up to their stream now (after a
    rename by support), so a search finds the new name at once."""
    player = fold_player(list(PlayerStore(store).read(player_id)))
    if player is None:
        return
    with models.lock, models.write_transaction():
        models.db.table("players").upsert(directory_row(player), pk="player_id")


_NAME_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS players_name_nocase ON players (name COLLATE NOCASE)"
)

_indexed: weakref.WeakSet[ReadModels] = weakref.WeakSet()
_readers: weakref.WeakKeyDictionary[ReadModels, threading.local] = weakref.WeakKeyDictionary()


def _name_index(models: ReadModels) -> None:
    """The case-blind name index, made once per read models (on their own connection)."""
    with _caught_lock:
        if models in _indexed:
            return
    with models.lock:
        models.db.execute(_NAME_INDEX)
    with _caught_lock:
        _indexed.add(models)


@contextmanager
def _snapshot(db: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: the queries inside it see one state of the file."""
    db.execute("BEGIN")
    try:
        yield
    finally:
        db.execute("COMMIT")


def _reader(models: ReadModels) -> sqlite3.Connection:
    """This thread's read-only connection to the read models' file."""
    with _caught_lock:
        local = _readers.setdefault(models, threading.local())
    found: sqlite3.Connection | None = getattr(local, "db", None)
    if found is None:
        found = sqlite3.connect(
            f"file:{quote(str(models.path))}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS
        )
        local.db = found
    return found


class PlayerHit(msgspec.Struct, frozen=True, kw_only=True):
    """A player a search found, with what tells them apart from others of the same name."""

    player_id: str
    name: str
    name_erased: bool
    first_seen: str | None
    matches: int
    rating: float
    rated_matches: int
    points: int


def _upper_bound(prefix: str) -> str:
    """The smallest text after every text that starts with ``prefix``."""
    return prefix + "\U0010ffff"


def player_matches_of(models: ReadModels, player_id: str, limit: int) -> list[PlayerMatchView]:
    """The player's matches, newest first, as ``ReadModels.player_matches`` reads them but on
    this thread's read-only connection, so a player page never waits for a directory refresh."""
    db = _reader(models)
    with _snapshot(db):
        cursor = db.execute(
            "SELECT * FROM player_matches WHERE player_id = ?"
            " ORDER BY created DESC, match_id LIMIT ?",
            [player_id, limit],
        )
        names = [column[0] for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return [player_match_view(row) for row in rows]


def search_players(
    models: ReadModels, results: Results, query: str, limit: int = SEARCH_LIMIT
) -> list[PlayerHit]:
    """Players whose name starts with ``query`` (case-blind) or whose id does, by name then id."""
    fresh_enough(models)
    results.catch_up()
    query = query.strip()
    if not query:
        return []
    rows: list[Any]
    _name_index(models)
    # Its own read-only connection to the file (WAL): never waits for ``models.lock``, which a
    # directory refresh holds for 0.3 s and more at 100,000 players.
    db = _reader(models)
    with _snapshot(db):
        # Two walks along an index each, in its order (no sort of every match of a common prefix).
        by_name: list[Any] = db.execute(
            "SELECT player_id, name, erased FROM players INDEXED BY players_name_nocase"
            " WHERE name COLLATE NOCASE >= ? AND name COLLATE NOCASE < ?"
            " ORDER BY name COLLATE NOCASE, player_id LIMIT ?",
            [query, _upper_bound(query), limit],
        ).fetchall()
        by_id: list[Any] = db.execute(
            "SELECT player_id, name, erased FROM players WHERE player_id >= ? AND player_id < ?"
            " ORDER BY player_id LIMIT ?",
            [query, _upper_bound(query), limit],
        ).fetchall()
        named = {row[0] for row in by_name}
        rows = [*by_name, *(row for row in by_id if row[0] not in named)][:limit]
        ids = [row[0] for row in rows]
        marks = ",".join("?" * len(ids))
        seen = {
            row[0]: (row[1], int(row[2]))
            for row in db.execute(
                "SELECT player_id, MIN(created), COUNT(*) FROM player_matches"
                f" WHERE player_id IN ({marks}) GROUP BY player_id",
                ids,
            ).fetchall()
        }
    with results.lock:
        ratings = {
            row[0]: (float(row[1]), int(row[2]), int(row[3]))
            for row in results.db.execute(
                "SELECT player_id, rating, rated_matches, points FROM profiles"
                f" WHERE player_id IN ({marks})",
                ids,
            ).fetchall()
        }
    hits = []
    for player_id, name, erased in rows:
        first, count = seen.get(player_id, (None, 0))
        rating, rated, points = ratings.get(player_id, (NEW_PLAYER.rating, 0, 0))
        hits.append(
            PlayerHit(
                player_id=player_id,
                name=name if not erased else "deleted player",
                name_erased=bool(erased),
                first_seen=first,
                matches=count,
                rating=rating,
                rated_matches=rated,
                points=points,
            )
        )
    return hits
