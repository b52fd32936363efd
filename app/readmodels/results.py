"""The results projection (R27, docs/ratings.md): profiles, the rated ladder and histories.

It follows the global log through the projection runner (app.readmodels.runner), as the
``matches`` read model does, in its own SQLite file beside it, and reads only three kinds of
entry: ``match_created`` (rule set, bots, privacy, an import's ``origin``), ``seat_taken`` (who
sat where) and ``match_ended``; a kill mid-batch rolls the batch back and the next run applies
it once. Matches are applied in the order they ended in the global log and
ratings take their idle time from the recorded ``match_ended`` times, so a rebuild from the
streams gives the same numbers as following the log did.

Whether a card was played is not read from the plays: before the first play a stream holds at
most ``match_created``, one ``seat_taken`` per seat, ``round_started``, ``cards_dealt`` and
``floor_dealt``, so a ``match_ended`` at a later seq follows a play; only a match that ended
within that prefix is read back (a few events) to look.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec
import sqlite_utils

from app.errors import CorruptEventError
from app.readmodels.cursors import (
    HistoryCursor,
    LadderCursor,
    Page,
    decode_cursor,
    encode_cursor,
)
from app.readmodels.rows import insert_rows
from app.readmodels.runner import ProjectionRunner
from app.readmodels.voids import UNRATED, VOID_TABLES, VOIDS_SCHEMA, reconcile_voids, stored_voids
from app.store.decoding import TOPICS
from app.store.match_store import LogEntry, MatchStore
from domain.events import CardPlayed, MatchCreated, MatchEnded, SeatTaken, table_settings
from domain.ratings import NEW_PLAYER, Rating, days_between, idle, rate_match
from domain.results import SCORE, FinishedMatch, seat_results

SCHEMA_VERSION: Final = "5"
"""Bumped when the results tables change shape; an older file is rebuilt."""

PROJECTION: Final = "results"
"""The name under which the results projection tracks its position."""

DEFAULT_BATCH: Final = 20000
"""Log entries applied per transaction (about 5,000 matches: each of their players' rows is
rewritten once per batch, however many of their matches it holds)."""

CACHE_KIB: Final = 65536
"""The connection's page cache: profiles and results of 100,000 players stay in memory while a
batch rewrites them."""

TOPICS_READ: Final = (TOPICS[MatchCreated], TOPICS[SeatTaken], TOPICS[MatchEnded])
"""The only entries of the global log this projection reads."""

PRE_PLAY_EVENTS: Final = 4
"""Events besides the seats that a stream can hold before its first play (created, round
started, cards dealt, floor dealt)."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS pending (
    match_id TEXT PRIMARY KEY, ruleset TEXT, seats INTEGER, private INTEGER, bots INTEGER,
    imported INTEGER, player_ids TEXT);
CREATE TABLE IF NOT EXISTS results (
    player_id TEXT, match_id TEXT, position INTEGER, ended TEXT, ruleset TEXT, seats INTEGER,
    private INTEGER, seat INTEGER, player_ids TEXT, reason TEXT, outcome TEXT, points INTEGER,
    totals TEXT, rated INTEGER, rating_before REAL, rd_before REAL, rating_after REAL,
    rd_after REAL, volatility_after REAL, PRIMARY KEY (player_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS profiles (
    player_id TEXT PRIMARY KEY, points INTEGER, wins INTEGER, draws INTEGER, losses INTEGER,
    rating REAL, rd REAL, volatility REAL, rated_matches INTEGER, last_rated TEXT,
    provisional INTEGER, sort_rating REAL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ladder ON profiles (provisional, sort_rating, player_id)
    WHERE rated_matches > 0;
"""

_TABLES: Final = ("pending", "results", "profiles", *VOID_TABLES)


class Profile(msgspec.Struct, frozen=True, kw_only=True):
    """A player's results: profile points, counts and rating (a new player's when none)."""

    player_id: str
    points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rating: float = NEW_PLAYER.rating
    rd: float = NEW_PLAYER.rd
    volatility: float = NEW_PLAYER.volatility
    rated_matches: int = 0
    last_rated: str | None = None

    @property
    def provisional(self) -> bool:
        """True while the rating's deviation is above 110 (docs/ratings.md)."""
        return Rating(self.rating, self.rd, self.volatility).provisional


class ResultRow(msgspec.Struct, frozen=True, kw_only=True):
    """One player's result of one ended match, with their rating before and after it."""

    player_id: str
    match_id: str
    position: int
    ended: str
    ruleset: str
    seats: int
    private: bool
    seat: int
    player_ids: list[str]
    reason: str
    outcome: str
    points: int
    totals: list[int]
    rated: bool
    rating_before: float | None
    rd_before: float | None
    rating_after: float | None
    rd_after: float | None
    volatility_after: float | None


LadderKey = tuple[int, float, str]
"""Where a ladder row stands: (provisional 0/1, rating, player id)."""


def results_path(readmodels: Path) -> Path:
    """The results file beside the read models' file ``readmodels``."""
    return readmodels.with_name(f"{readmodels.stem}.results{readmodels.suffix or '.sqlite3'}")


class ResultsProjection:
    """How the log's created, seat and end entries change profiles, results and the ladder."""

    name = PROJECTION
    schema_version = SCHEMA_VERSION
    tables: tuple[str, ...] = _TABLES
    topics: tuple[str, ...] = TOPICS_READ

    def create_tables(self, db: sqlite_utils.Database) -> None:
        """The tables and the ladder's index, where missing (one statement at a time, so an
        open transaction stays open)."""
        for statement in (_SCHEMA + VOIDS_SCHEMA).split(";"):
            if statement.strip():
                db.execute(statement)

    def refresh(self, db: sqlite_utils.Database, store: MatchStore) -> None:
        """Voids and restores (R28) the desk recorded since: results replayed from the earliest
        match they change (app.readmodels.voids)."""
        reconcile_voids(db, store)

    def apply(self, db: sqlite_utils.Database, store: MatchStore, entries: list[LogEntry]) -> None:
        """Apply a batch: seats as they are taken, each ended match's results and ratings."""
        batch = _Batch(db, store)
        batch.apply(entries)
        batch.write()


class Results(ProjectionRunner):
    """Profiles, results and the ladder, following the global log in one SQLite file."""

    def __init__(self, path: Path, store: MatchStore, *, batch_size: int = DEFAULT_BATCH) -> None:
        super().__init__(
            path, store, ResultsProjection(), batch_size=batch_size, cache_kib=CACHE_KIB
        )

    @classmethod
    def for_store(cls, store: MatchStore, path: Path | None = None) -> Results:
        """The results of ``store`` beside its read models (app.config.readmodel_path)."""
        from app.config import readmodel_path

        return cls(path or results_path(readmodel_path(store.config)), store)

    # -- reading ------------------------------------------------------------------------------

    def profile(self, player_id: str) -> Profile:
        """The player's profile (a new player's numbers when they have no result yet)."""
        with self.lock:
            found = list(self.db.table("profiles").rows_where("player_id = ?", [player_id]))
        return _profile(found[0]) if found else Profile(player_id=player_id)

    def ladder(self, *, limit: int, after: LadderKey | None = None) -> list[Profile]:
        """Rated players: the settled ones by rating, then the provisional ones by rating."""
        # ``sort_rating`` is minus the rating, so one ascending index range serves every page.
        where = "rated_matches > 0"
        params: list[Any] = []
        if after is not None:
            where += " AND (provisional, sort_rating, player_id) > (?, ?, ?)"
            params = [after[0], -after[1], after[2]]
        query = (
            f"SELECT * FROM profiles INDEXED BY ladder WHERE {where}"
            " ORDER BY provisional, sort_rating, player_id LIMIT ?"
        )
        with self.lock:
            rows = list(self.db.query(query, [*params, limit]))
        return [_profile(row) for row in rows]

    def ladder_page(self, *, limit: int, cursor: str | None) -> Page[Profile]:
        """A page of ``ladder`` after ``cursor`` (BadCursorError unless it is one handed out),
        with how many rows came before it (the ranks go on from there)."""
        after, before = None, 0
        if cursor is not None:
            at = decode_cursor(cursor, LadderCursor)
            after, before = (at.provisional, at.rating, at.player_id), at.rank
        rows = self.ladder(limit=limit + 1, after=after)
        if len(rows) <= limit:
            return Page(rows, before=before)
        last = rows[limit - 1]
        key = LadderCursor(
            1 if last.provisional else 0, last.rating, last.player_id, before + limit
        )
        return Page(rows[:limit], encode_cursor(key), before)

    def history(
        self,
        player_id: str,
        *,
        limit: int | None = None,
        before: int | None = None,
        include_private: bool = True,
    ) -> list[ResultRow]:
        """The player's results, the latest first (by where the match ended in the log)."""
        where = "player_id = ?"
        params: list[Any] = [player_id]
        if before is not None:
            where += " AND position < ?"
            params.append(before)
        if not include_private:
            where += " AND private = 0"
        with self.lock:
            rows = list(
                self.db.table("results").rows_where(
                    where, params, order_by="position DESC", limit=limit
                )
            )
        return [_result(row) for row in rows]

    def history_page(
        self, player_id: str, *, limit: int, cursor: str | None, include_private: bool
    ) -> Page[ResultRow]:
        """A page of the player's ``history`` after ``cursor`` (BadCursorError unless it is one
        handed out), with the cursor of the next page when there is one."""
        before = None if cursor is None else decode_cursor(cursor, HistoryCursor).position
        rows = self.history(
            player_id, limit=limit + 1, before=before, include_private=include_private
        )
        if len(rows) <= limit:
            return Page(rows)
        return Page(rows[:limit], encode_cursor(HistoryCursor(rows[limit - 1].position)))

    def rated_history(self, player_id: str) -> list[ResultRow]:
        """The player's rated results in the order they were applied (for a rating chart)."""
        with self.lock:
            rows = list(
                self.db.table("results").rows_where(
                    "player_id = ? AND rated = 1", [player_id], order_by="position"
                )
            )
        return [_result(row) for row in rows]

    def all_rows(self) -> list[dict[str, Any]]:
        """Every profile and result exactly as kept, in key order (to compare two builds)."""
        with self.lock:
            profiles = list(self.db.table("profiles").rows_where(order_by="player_id"))
            results = list(self.db.table("results").rows_where(order_by="player_id, match_id"))
        return [*profiles, *results]


class _Batch:
    """The rows one batch reads and changes, written back at its end."""

    def __init__(self, db: sqlite_utils.Database, store: MatchStore) -> None:
        self.db = db
        self.store = store
        self.pending: dict[str, dict[str, Any]] = {}
        self.ended: list[str] = []
        self.profiles: dict[str, Profile] = {}
        self.results: list[dict[str, Any]] = []
        self.voided = stored_voids(db)
        self.set_aside: list[dict[str, Any]] = []

    def apply(self, entries: list[LogEntry]) -> None:
        """Apply the batch's entries in log order: tables and seats first, then each ended
        match in the order it ended (the rows they need are read in a few queries)."""
        decoded = []
        for entry in entries:
            # A stream the matches read model flags as unreadable is never a result.
            with contextlib.suppress(CorruptEventError):
                decoded.append((entry, self.store.to_recorded(entry)))
        created = {e.match_id for e, r in decoded if isinstance(r.event, MatchCreated)}
        self._load_pending({e.match_id for e, _ in decoded} - created)
        ended: list[tuple[LogEntry, MatchEnded, str]] = []
        for entry, recorded in decoded:
            event = recorded.event
            if isinstance(event, MatchCreated):
                cause = recorded.caused_by or ""
                self.pending[entry.match_id] = {
                    "match_id": entry.match_id,
                    "ruleset": event.ruleset,
                    "seats": event.seats,
                    "private": int(table_settings(event).private),
                    "bots": int(bool(event.bots)),
                    "imported": int(event.origin is not None or cause.startswith("import")),
                    "player_ids": [None] * event.seats,
                }
                continue
            match = self.pending.get(entry.match_id)
            if match is None:
                continue  # a stream that began before a damaged match_created: never a result
            if isinstance(event, SeatTaken):
                ids = match["player_ids"]
                if 0 <= event.seat < len(ids) and isinstance(event.player_id, str):
                    ids[event.seat] = event.player_id
            elif isinstance(event, MatchEnded):
                self.ended.append(entry.match_id)
                ended.append((entry, event, recorded.at))
        self._load_profiles(
            {p for e, _, _ in ended for p in self.pending[e.match_id]["player_ids"] if p}
        )
        for entry, event, at in ended:
            self._finish(self.pending[entry.match_id], entry, event, at)

    def _load_pending(self, match_ids: set[str]) -> None:
        for chunk in _chunks(sorted(match_ids)):
            marks = ",".join("?" * len(chunk))
            for loaded in self.db.table("pending").rows_where(f"match_id IN ({marks})", chunk):
                loaded["player_ids"] = json.loads(loaded["player_ids"])
                self.pending[loaded["match_id"]] = loaded

    def _load_profiles(self, player_ids: set[str]) -> None:
        for chunk in _chunks(sorted(player_ids)):
            marks = ",".join("?" * len(chunk))
            for row in self.db.table("profiles").rows_where(f"player_id IN ({marks})", chunk):
                profile = _profile(row)
                self.profiles[profile.player_id] = profile

    def _finish(self, match: dict[str, Any], entry: LogEntry, ended: MatchEnded, at: str) -> None:
        seats = int(match["seats"])
        finished = FinishedMatch(
            match_id=entry.match_id,
            seats=seats,
            player_ids=tuple(match["player_ids"]),
            bots=bool(match["bots"]),
            imported=bool(match["imported"]),
            played=True,
            winner=ended.winner,
            reason=ended.reason,
        )
        results = seat_results(finished)
        if results and entry.seq - 1 <= seats + PRE_PLAY_EVENTS:
            finished = msgspec.structs.replace(finished, played=self._played(entry))
            results = seat_results(finished)
        if not results:
            return
        totals = json.dumps(list(ended.totals))
        if entry.match_id in self.voided:  # R28: kept aside, changing no profile or rating
            self.set_aside.extend(
                {
                    "player_id": r.player_id,
                    "match_id": entry.match_id,
                    "position": entry.position,
                    "ended": at,
                    "ruleset": match["ruleset"],
                    "seats": seats,
                    "private": match["private"],
                    "seat": r.seat,
                    "player_ids": json.dumps(list(match["player_ids"])),
                    "reason": ended.reason,
                    "outcome": r.outcome,
                    "points": r.points,
                    "totals": totals,
                }
                | UNRATED
                for r in results
            )
            return
        before: dict[str, Rating] = {}
        after: dict[str, Rating] = {}
        if seats == 2 and len(results) == 2:  # domain.results.is_rated
            first, second = (self._profile(r.player_id) for r in results)
            a = idle(_rating(first), _idle_days(first, at))
            b = idle(_rating(second), _idle_days(second, at))
            a2, b2 = rate_match(a, b, SCORE[results[0].outcome])
            before = {first.player_id: a, second.player_id: b}
            after = {first.player_id: a2, second.player_id: b2}
        ids = json.dumps(list(match["player_ids"]))
        for result in results:
            profile = self._profile(result.player_id)
            was, now = before.get(result.player_id), after.get(result.player_id)
            changes: dict[str, Any] = {
                "points": profile.points + result.points,
                "wins": profile.wins + (result.outcome == "win"),
                "draws": profile.draws + (result.outcome == "draw"),
                "losses": profile.losses + (result.outcome == "loss"),
            }
            if now is not None:
                changes.update(
                    rating=now.rating,
                    rd=now.rd,
                    volatility=now.volatility,
                    rated_matches=profile.rated_matches + 1,
                    last_rated=at,
                )
            self.profiles[result.player_id] = msgspec.structs.replace(profile, **changes)
            self.results.append(
                {
                    "player_id": result.player_id,
                    "match_id": entry.match_id,
                    "position": entry.position,
                    "ended": at,
                    "ruleset": match["ruleset"],
                    "seats": seats,
                    "private": match["private"],
                    "seat": result.seat,
                    "player_ids": ids,
                    "reason": ended.reason,
                    "outcome": result.outcome,
                    "points": result.points,
                    "totals": totals,
                    "rated": int(now is not None),
                    "rating_before": None if was is None else was.rating,
                    "rd_before": None if was is None else was.rd,
                    "rating_after": None if now is None else now.rating,
                    "rd_after": None if now is None else now.rd,
                    "volatility_after": None if now is None else now.volatility,
                }
            )

    def _played(self, entry: LogEntry) -> bool:
        """Whether any card was played before the end (read back from the short stream)."""
        try:
            prefix = self.store.read(entry.match_id, 0, entry.seq - 1)
        except CorruptEventError:
            return False
        return any(isinstance(r.event, CardPlayed) for r in prefix)

    def _profile(self, player_id: str) -> Profile:
        """The player's profile as the batch has it (loaded up front; a new player's if none)."""
        if player_id not in self.profiles:
            self.profiles[player_id] = Profile(player_id=player_id)
        return self.profiles[player_id]

    def write(self) -> None:
        """Write the batch's rows (inside the caller's transaction)."""
        ended = set(self.ended)
        still = [
            m | {"player_ids": json.dumps(m["player_ids"])}
            for k, m in self.pending.items()
            if k not in ended
        ]
        insert_rows(self.db, "pending", still, replace=True)
        for chunk in _chunks(self.ended):
            marks = ",".join("?" * len(chunk))
            self.db.table("pending").delete_where(f"match_id IN ({marks})", chunk)
        insert_rows(self.db, "results", self.results, replace=False)  # a result is never replaced
        insert_rows(self.db, "voided_results", self.set_aside, replace=False)
        profiles = [
            msgspec.structs.asdict(p)
            | {"provisional": int(p.provisional), "sort_rating": -p.rating}
            for p in self.profiles.values()
        ]
        insert_rows(self.db, "profiles", profiles, replace=True)


def _chunks(items: list[str], size: int = 500) -> Iterator[list[str]]:
    """``items`` in lists of at most ``size`` (well under SQLite's limit on bound values)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _idle_days(profile: Profile, at: str) -> float:
    return 0.0 if profile.last_rated is None else days_between(profile.last_rated, at)


def _rating(profile: Profile) -> Rating:
    return Rating(profile.rating, profile.rd, profile.volatility)


def _profile(row: dict[str, Any]) -> Profile:
    fields = dict(row)
    fields.pop("provisional", None)
    fields.pop("sort_rating", None)
    return msgspec.convert(fields, Profile)


def _result(row: dict[str, Any]) -> ResultRow:
    fields = dict(row)
    fields["player_ids"] = json.loads(fields["player_ids"])
    fields["totals"] = json.loads(fields["totals"] or "[]")
    fields["private"] = bool(fields["private"])
    fields["rated"] = bool(fields["rated"])
    return msgspec.convert(fields, ResultRow)
