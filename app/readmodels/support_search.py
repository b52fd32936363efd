"""Support's reads of the read models: players found by name or id prefix, told apart.

Two players may share a name, so each hit carries what tells them apart: the id, when they were
first seen at a table, how many matches they played and their rating. The name search is a range
over a case-blind index of the ``players`` directory (made here on first use), so it answers in
a few index steps whatever the number of players.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from app.readmodels.models import ReadModels
from app.readmodels.results import Results

SEARCH_LIMIT: Final = 50
"""Most players one search returns."""

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
    models.catch_up()
    results.catch_up()
    query = query.strip()
    if not query:
        return []
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
        seen: dict[str, tuple[str | None, int]] = {}
        for row in rows:
            found = db.execute(
                "SELECT MIN(created), COUNT(*) FROM player_matches WHERE player_id = ?", [row[0]]
            ).fetchone()
            seen[row[0]] = (found[0], int(found[1]))
    hits = []
    for player_id, name, erased in rows:
        profile = results.profile(player_id)
        first, count = seen[player_id]
        hits.append(
            PlayerHit(
                player_id=player_id,
                name=name if not erased else "deleted player",
                name_erased=bool(erased),
                first_seen=first,
                matches=count,
                rating=profile.rating,
                rated_matches=profile.rated_matches,
                points=profile.points,
            )
        )
    return hits
