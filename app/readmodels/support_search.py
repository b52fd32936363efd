"""Support's reads of the read models: players found by name or id prefix, told apart.

Two players may share a name, so each hit carries what tells them apart: the id, when they were
first seen at a table, how many matches they played and their rating. The name search is a range
over a case-blind index of the ``players`` directory (made here on first use), so it answers in
a few index steps whatever the number of players.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any, Final

import msgspec

from app.readmodels.models import ReadModels
from app.readmodels.results import Results
from domain.ratings import NEW_PLAYER

SEARCH_LIMIT: Final = 50
"""Most players one search returns."""

FRESH_SECONDS: Final = 30.0
"""How old the directory may be for support's reads: catching the ``players`` directory up
re-reads every player stream's version (about 1.5 s at 100,000 players on this machine), so a
process does it at most this often for support; a player registered since is found by id on
their page (read from their stream) and by name within this time."""

_caught: weakref.WeakKeyDictionary[ReadModels, float] = weakref.WeakKeyDictionary()
_caught_lock = threading.Lock()


def fresh_enough(models: ReadModels) -> None:
    """Catch the read models up unless this process did so in the last ``FRESH_SECONDS``."""
    now = time.monotonic()
    with _caught_lock:
        last = _caught.get(models)
        if last is not None and now - last < FRESH_SECONDS:
            return
        _caught[models] = now
    models.catch_up()


_NAME_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS players_name_nocase ON players (name COLLATE NOCASE)"
)


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
    with models.lock:
        db = models.db
        db.execute(_NAME_INDEX)
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
