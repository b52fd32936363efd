"""Voided results in the results projection (R28): the ladder as if a match was never played.

The ``voids`` stream of the desk (app.store.desk_store) says which matches are voided now. The
results file keeps that set in ``voided``; each refresh compares the two and, when they differ,
replays every result from the earliest match that changed on: the affected players' profiles
are taken back to what the results before it give, then each later match is applied again in
its order (a voided one is set aside in ``voided_results``, untouched by the ladder; a restored
one takes its place again). That is exactly what a rebuild from scratch without the voided
matches computes, since a rebuild applies the same matches in the same order from the same
starting numbers. Every process sharing the store does this on its next refresh.
"""

from __future__ import annotations

from typing import Any, Final

import sqlite_utils

from app.readmodels.rows import insert_rows
from app.readmodels.runner import write_transaction
from app.store.desk_store import DeskStore
from app.store.match_store import MatchStore
from domain.desk import voided_matches
from domain.ratings import NEW_PLAYER, Rating, days_between, idle, rate_match
from domain.results import SCORE

VOIDS_STREAM: Final = "voids"
"""The desk's stream of voided and restored results."""

VOIDS_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS voided (match_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS voided_results (
    player_id TEXT, match_id TEXT, position INTEGER, ended TEXT, ruleset TEXT, seats INTEGER,
    private INTEGER, seat INTEGER, player_ids TEXT, reason TEXT, outcome TEXT, points INTEGER,
    totals TEXT, rated INTEGER, rating_before REAL, rd_before REAL, rating_after REAL,
    rd_after REAL, volatility_after REAL, PRIMARY KEY (player_id, position)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS voided_match ON voided_results (match_id);
CREATE INDEX IF NOT EXISTS results_match ON results (match_id);
"""

VOID_TABLES: Final = ("voided", "voided_results")

UNRATED: Final = {
    "rated": 0,
    "rating_before": None,
    "rd_before": None,
    "rating_after": None,
    "rd_after": None,
    "volatility_after": None,
}
"""What a set-aside result keeps of its rating: nothing (it changes no rating)."""


def wanted_voids(store: MatchStore) -> set[str]:
    """The matches the desk says are voided now."""
    return voided_matches(DeskStore(store).read(VOIDS_STREAM))


def stored_voids(db: sqlite_utils.Database) -> set[str]:
    """The matches the results file has set aside."""
    return {str(row[0]) for row in db.execute("SELECT match_id FROM voided").fetchall()}


def reconcile_voids(db: sqlite_utils.Database, store: MatchStore) -> None:
    """Bring the file's results in line with the desk's voids (nothing when they agree)."""
    wanted = wanted_voids(store)
    if wanted == stored_voids(db):
        return
    with write_transaction(db):
        stored = stored_voids(db)
        changed = wanted ^ stored
        if not changed:
            return
        marks = ",".join("?" * len(changed))
        found = db.execute(
            f"SELECT MIN(position) FROM (SELECT position FROM results WHERE match_id IN ({marks})"
            f" UNION ALL SELECT position FROM voided_results WHERE match_id IN ({marks}))",
            [*changed, *changed],
        ).fetchone()
        db.execute("DELETE FROM voided")
        db.conn.executemany("INSERT INTO voided (match_id) VALUES (?)", [(m,) for m in wanted])
        if found is not None and found[0] is not None:
            replay_from(db, int(found[0]), wanted)


def _rows(
    db: sqlite_utils.Database, table: str, where: str, params: list[Any]
) -> list[dict[str, Any]]:
    cursor = db.execute(f"SELECT * FROM {table} WHERE {where}", params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def replay_from(db: sqlite_utils.Database, position: int, voided: set[str]) -> None:
    """Apply again every result at ``position`` or later (inside the caller's transaction)."""
    later = _rows(db, "results", "position >= ?", [position])
    later += _rows(db, "voided_results", "position >= ?", [position])
    db.execute("DELETE FROM results WHERE position >= ?", [position])
    db.execute("DELETE FROM voided_results WHERE position >= ?", [position])
    players = sorted({row["player_id"] for row in later})
    profiles = {p: _profile_before(db, p) for p in players}
    by_match: dict[int, list[dict[str, Any]]] = {}
    for row in later:
        by_match.setdefault(int(row["position"]), []).append(row)
    kept: list[dict[str, Any]] = []
    set_aside: list[dict[str, Any]] = []
    for at in sorted(by_match):
        rows = sorted(by_match[at], key=lambda r: int(r["seat"]))
        if rows[0]["match_id"] in voided:
            set_aside.extend(row | UNRATED for row in rows)
            continue
        kept.extend(apply_match(profiles, rows))
    insert_rows(db, "results", kept)
    insert_rows(db, "voided_results", set_aside)
    _write_profiles(db, profiles)


def apply_match(
    profiles: dict[str, dict[str, Any]], rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One match's results applied to ``profiles`` (changed in place), as the projection does
    when it first meets the match: points and counts, and at two players a Glicko-2 update."""
    at = str(rows[0]["ended"])
    before: dict[str, Rating] = {}
    after: dict[str, Rating] = {}
    if int(rows[0]["seats"]) == 2 and len(rows) == 2:  # domain.results.is_rated
        first, second = (profiles[str(r["player_id"])] for r in rows)
        a = idle(_rating(first), _idle_days(first, at))
        b = idle(_rating(second), _idle_days(second, at))
        a2, b2 = rate_match(a, b, SCORE[str(rows[0]["outcome"])])
        before = {rows[0]["player_id"]: a, rows[1]["player_id"]: b}
        after = {rows[0]["player_id"]: a2, rows[1]["player_id"]: b2}
    out = []
    for row in rows:
        profile = profiles[str(row["player_id"])]
        profile["points"] += int(row["points"])
        profile[{"win": "wins", "draw": "draws", "loss": "losses"}[str(row["outcome"])]] += 1
        was, now = before.get(row["player_id"]), after.get(row["player_id"])
        if now is not None:
            profile.update(
                rating=now.rating,
                rd=now.rd,
                volatility=now.volatility,
                rated_matches=profile["rated_matches"] + 1,
                last_rated=at,
            )
        out.append(
            row
            | {
                "rated": int(now is not None),
                "rating_before": None if was is None else was.rating,
                "rd_before": None if was is None else was.rd,
                "rating_after": None if now is None else now.rating,
                "rd_after": None if now is None else now.rd,
                "volatility_after": None if now is None else now.volatility,
            }
        )
    return out


def _profile_before(db: sqlite_utils.Database, player_id: str) -> dict[str, Any]:
    """The player's profile from their kept results alone (those before the replay point)."""
    totals = db.execute(
        "SELECT COALESCE(SUM(points), 0), COALESCE(SUM(outcome = 'win'), 0),"
        " COALESCE(SUM(outcome = 'draw'), 0), COALESCE(SUM(outcome = 'loss'), 0),"
        " COALESCE(SUM(rated), 0) FROM results WHERE player_id = ?",
        [player_id],
    ).fetchone()
    last = db.execute(
        "SELECT rating_after, rd_after, volatility_after, ended FROM results"
        " WHERE player_id = ? AND rated = 1 ORDER BY position DESC LIMIT 1",
        [player_id],
    ).fetchone()
    rating = NEW_PLAYER if last is None else Rating(last[0], last[1], last[2])
    return {
        "player_id": player_id,
        "points": int(totals[0]),
        "wins": int(totals[1]),
        "draws": int(totals[2]),
        "losses": int(totals[3]),
        "rating": rating.rating,
        "rd": rating.rd,
        "volatility": rating.volatility,
        "rated_matches": int(totals[4]),
        "last_rated": None if last is None else last[3],
    }


def _write_profiles(db: sqlite_utils.Database, profiles: dict[str, dict[str, Any]]) -> None:
    rows = []
    for profile in profiles.values():
        if profile["wins"] + profile["draws"] + profile["losses"] == 0:
            # No result left: no profile row, as a build that never met the player has none.
            db.execute("DELETE FROM profiles WHERE player_id = ?", [profile["player_id"]])
            continue
        rating = Rating(profile["rating"], profile["rd"], profile["volatility"])
        rows.append(
            profile | {"provisional": int(rating.provisional), "sort_rating": -rating.rating}
        )
    insert_rows(db, "profiles", rows, replace=True)


def _idle_days(profile: dict[str, Any], at: str) -> float:
    last = profile["last_rated"]
    return 0.0 if last is None else days_between(str(last), at)


def _rating(profile: dict[str, Any]) -> Rating:
    return Rating(profile["rating"], profile["rd"], profile["volatility"])


def paid_points(results: Any, match_id: str) -> bool:
    """Whether the match ended with a result that pays points (voided or not), as the results
    file has it after catching up (``results``: app.readmodels.results.Results)."""
    results.catch_up()
    with results.lock:
        found = results.db.execute(
            "SELECT 1 FROM results WHERE match_id = ? UNION ALL"
            " SELECT 1 FROM voided_results WHERE match_id = ? LIMIT 1",
            [match_id, match_id],
        ).fetchone()
    return found is not None
