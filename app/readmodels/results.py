"""The results projection (R27, docs/ratings.md): profiles, the rated ladder and histories.

It follows the global log like the ``matches`` read model (app.readmodels.models), in its own
SQLite file beside it, and reads only three kinds of entry: ``match_created`` (rule set, bots,
privacy, an import's ``origin``), ``seat_taken`` (who sat where) and ``match_ended``. Each batch
takes the file's write lock, reads the tracked position, applies the entries after it and writes
the rows and the new position in one transaction, so a kill mid-batch rolls the batch back and
the next run applies it once. Matches are applied in the order they ended in the global log and
ratings take their idle time from the recorded ``match_ended`` times, so a rebuild from the
streams gives the same numbers as following the log did.

Whether a card was played is not read from the plays: before the first play a stream holds at
most ``match_created``, one ``seat_taken`` per seat, ``round_started``, ``cards_dealt`` and
``floor_dealt``, so a ``match_ended`` at a later seq follows a play; only a match that ended
within that prefix is read back (a few events) to look.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import msgspec

from app.errors import CorruptEventError
from app.store.decoding import TOPICS
from app.store.match_store import LogEntry, MatchStore
from domain.errors import BadSyntaxError
from domain.events import CardPlayed, MatchCreated, MatchEnded, SeatTaken, table_settings
from domain.ratings import NEW_PLAYER, Rating, days_between, idle, rate_match
from domain.results import SCORE, FinishedMatch, seat_results

SCHEMA_VERSION: Final = "3"
"""Bumped when the results tables change shape; an older file is rebuilt."""

PROJECTION: Final = "results"
"""The name under which the results projection tracks its position."""

DEFAULT_BATCH: Final = 20000
"""Log entries applied per transaction (about 5,000 matches: each of their players' rows is
rewritten once per batch, however many of their matches it holds)."""

CACHE_KIB: Final = 65536
"""The connection's page cache: profiles and results of 100,000 players stay in memory while a
batch rewrites them."""

BUSY_TIMEOUT_SECONDS: Final = 10.0
"""How long a follower waits for another process's batch on a shared file."""

TOPICS_READ: Final = (TOPICS[MatchCreated], TOPICS[SeatTaken], TOPICS[MatchEnded])
"""The only entries of the global log this projection reads."""

PRE_PLAY_EVENTS: Final = 4
"""Events besides the seats that a stream can hold before its first play (created, round
started, cards dealt, floor dealt)."""

Progress = Callable[[int, int], None]
"""Called with (position reached, last position of the log) after each batch."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS positions (name TEXT PRIMARY KEY, position INTEGER);
CREATE TABLE IF NOT EXISTS pending (
    match_id TEXT PRIMARY KEY, ruleset TEXT, seats INTEGER, private INTEGER, bots INTEGER,
    imported INTEGER, player_ids TEXT);
CREATE TABLE IF NOT EXISTS results (
    player_id TEXT, match_id TEXT, position INTEGER, ended TEXT, ruleset TEXT, seats INTEGER,
    private INTEGER, seat INTEGER, player_ids TEXT, reason TEXT, outcome TEXT, points INTEGER,
    rated INTEGER, rating_before REAL, rd_before REAL, rating_after REAL, rd_after REAL,
    volatility_after REAL, PRIMARY KEY (player_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS profiles (
    player_id TEXT PRIMARY KEY, points INTEGER, wins INTEGER, draws INTEGER, losses INTEGER,
    rating REAL, rd REAL, volatility REAL, rated_matches INTEGER, last_rated TEXT,
    provisional INTEGER, sort_rating REAL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ladder ON profiles (provisional, sort_rating, player_id)
    WHERE rated_matches > 0;
"""

_TABLES: Final = ("meta", "positions", "pending", "results", "profiles")


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
    rated: bool
    rating_before: float | None
    rd_before: float | None
    rating_after: float | None
    rd_after: float | None
    volatility_after: float | None


LadderKey = tuple[int, float, str]
"""Where a ladder row stands: (provisional 0/1, rating, player id)."""


class BadCursorError(BadSyntaxError):
    """A ladder cursor that this projection did not hand out."""

    code = "bad_ladder_cursor"


def ladder_cursor(profile: Profile, rank: int) -> str:
    """An opaque cursor after ``profile``'s row of the ladder, which is at ``rank``."""
    text = json.dumps([int(profile.provisional), profile.rating, profile.player_id, rank])
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_ladder_cursor(cursor: str) -> tuple[LadderKey, int]:
    """The ladder key a cursor points after and that row's rank; BadCursorError unless it is
    one of ours."""
    try:
        if len(cursor) > 200:
            raise ValueError("too long")
        padded = cursor + "=" * (-len(cursor) % 4)
        provisional, rating, player_id, rank = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if provisional not in (0, 1) or isinstance(provisional, bool):
            raise ValueError("not a cursor")
        if not isinstance(rating, float) or not isinstance(player_id, str):
            raise ValueError("not a cursor")
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 1:
            raise ValueError("not a cursor")
    except (ValueError, TypeError, UnicodeError, binascii.Error):
        raise BadCursorError("the cursor is not one this server handed out") from None
    return (provisional, rating, player_id), rank


def results_path(readmodels: Path) -> Path:
    """The results file beside the read models' file ``readmodels``."""
    return readmodels.with_name(f"{readmodels.stem}.results{readmodels.suffix or '.sqlite3'}")


class Results:
    """Profiles, results and the ladder, following the global log in one SQLite file."""

    def __init__(self, path: Path, store: MatchStore, *, batch_size: int = DEFAULT_BATCH) -> None:
        self.path = path
        self.store = store
        self.batch_size = batch_size
        path.parent.mkdir(parents=True, exist_ok=True)
        # One connection, used from any thread under self._lock (an API process's workers).
        self.db = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False, isolation_level=None
        )
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        # A cache rebuilt from the log: a lost commit is re-read, its position rolls back with it.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._lock = threading.RLock()
        self._checked = False  # which store and schema the file follows: checked once
        with self._lock:
            self.db.executescript(_SCHEMA)

    @classmethod
    def for_store(cls, store: MatchStore, path: Path | None = None) -> Results:
        """The results of ``store`` beside its read models (app.config.readmodel_path)."""
        from app.config import readmodel_path

        return cls(path or results_path(readmodel_path(store.config)), store)

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
        """Apply every needed log entry after the tracked position; returns how many."""
        applied = 0
        with self._lock:
            if not self._checked:
                self._check_source()
                self._checked = True
            while True:
                count, position, done = self._apply_batch(after_entry)
                applied += count
                if progress is not None:
                    progress(position, self.store.max_position())
                if done:
                    return applied

    def rebuild(self, *, progress: Progress | None = None) -> int:
        """Drop every row and apply the log again from its start."""
        with self._lock, self._write_transaction():
            self._drop_tables()
        with self._lock:
            self.db.executescript(_SCHEMA)
            self._checked = False  # the dropped meta is written again first
        return self.catch_up(progress=progress)

    def position(self) -> int:
        """The log position the tables are up to."""
        with self._lock:
            row = self.db.execute(
                "SELECT position FROM positions WHERE name = ?", [PROJECTION]
            ).fetchone()
        return int(row[0]) if row else 0

    # -- reading ------------------------------------------------------------------------------

    def profile(self, player_id: str) -> Profile:
        """The player's profile (a new player's numbers when they have no result yet)."""
        with self._lock:
            row = self.db.execute("SELECT * FROM profiles WHERE player_id = ?", [player_id])
            found = row.fetchone()
        return _profile(found) if found else Profile(player_id=player_id)

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
        with self._lock:
            rows = self.db.execute(query, [*params, limit]).fetchall()
        return [_profile(row) for row in rows]

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
        query = f"SELECT * FROM results WHERE {where} ORDER BY position DESC"
        if limit is not None:
            query += " LIMIT ?"
            params.append(limit)
        with self._lock:
            rows = self.db.execute(query, params).fetchall()
        return [_result(row) for row in rows]

    def rated_history(self, player_id: str) -> list[ResultRow]:
        """The player's rated results in the order they were applied (for a rating chart)."""
        with self._lock:
            rows = self.db.execute(
                "SELECT * FROM results WHERE player_id = ? AND rated = 1 ORDER BY position",
                [player_id],
            ).fetchall()
        return [_result(row) for row in rows]

    def all_rows(self) -> list[dict[str, Any]]:
        """Every profile and result exactly as kept, in key order (to compare two builds)."""
        with self._lock:
            profiles = self.db.execute("SELECT * FROM profiles ORDER BY player_id").fetchall()
            results = self.db.execute(
                "SELECT * FROM results ORDER BY player_id, match_id"
            ).fetchall()
        return [dict(row) for row in [*profiles, *results]]

    # -- inside ---------------------------------------------------------------------------------

    def _apply_batch(self, after_entry: Callable[[LogEntry], None] | None) -> tuple[int, int, bool]:
        """Apply one batch; returns (entries applied, position reached, whether it was the last)."""
        position = self.position()
        last = self.store.max_position()
        if position >= last:
            return 0, position, True  # nothing new: no write lock taken
        with self._write_transaction():
            position = self.position()
            entries = self.store.log_after(position, self.batch_size, TOPICS_READ)
            batch = _Batch(self.db, self.store)
            batch.apply(entries, after_entry)
            batch.write()
            done = len(entries) < self.batch_size
            # Past the last entry read, every entry up to ``last`` (read before the query) is of
            # a kind this projection skips: the position moves over them too.
            reached = max(position, last) if done else entries[-1].position
            self.db.execute(
                "INSERT OR REPLACE INTO positions (name, position) VALUES (?, ?)",
                [PROJECTION, reached],
            )
            return len(entries), reached, done

    @contextmanager
    def _write_transaction(self) -> Iterator[None]:
        # BEGIN IMMEDIATE takes the write lock before the position is read, so two processes
        # sharing a file never apply the same entries twice.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _drop_tables(self) -> None:
        for name in _TABLES:
            self.db.execute(f"DROP TABLE IF EXISTS {name}")

    def _check_source(self) -> None:
        """Start again from nothing when the file follows another store or is ahead of the log."""
        expected = {"store": self.store.identity, "schema": SCHEMA_VERSION}
        with self._write_transaction():
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
            stale = any(meta.get(k) != v for k, v in expected.items())
            if not stale and self.position() > self.store.max_position():
                stale = True  # it claims entries the log does not have: never serve that
            if stale:
                self._drop_tables()
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", list(expected.items())
                )


class _Batch:
    """The rows one batch reads and changes, written back at its end."""

    def __init__(self, db: sqlite3.Connection, store: MatchStore) -> None:
        self.db = db
        self.store = store
        self.pending: dict[str, dict[str, Any]] = {}
        self.ended: list[str] = []
        self.profiles: dict[str, Profile] = {}
        self.results: list[tuple[Any, ...]] = []

    def apply(
        self, entries: list[LogEntry], after_entry: Callable[[LogEntry], None] | None
    ) -> None:
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
        if after_entry is not None:
            for entry in entries:
                after_entry(entry)

    def _load_pending(self, match_ids: set[str]) -> None:
        for chunk in _chunks(sorted(match_ids)):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT * FROM pending WHERE match_id IN ({marks})"
            for row in self.db.execute(query, chunk).fetchall():
                loaded = dict(row)
                loaded["player_ids"] = json.loads(loaded["player_ids"])
                self.pending[loaded["match_id"]] = loaded

    def _load_profiles(self, player_ids: set[str]) -> None:
        for chunk in _chunks(sorted(player_ids)):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT * FROM profiles WHERE player_id IN ({marks})"
            for row in self.db.execute(query, chunk).fetchall():
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
                (
                    result.player_id,
                    entry.match_id,
                    entry.position,
                    at,
                    match["ruleset"],
                    seats,
                    match["private"],
                    result.seat,
                    ids,
                    ended.reason,
                    result.outcome,
                    result.points,
                    int(now is not None),
                    None if was is None else was.rating,
                    None if was is None else was.rd,
                    None if now is None else now.rating,
                    None if now is None else now.rd,
                    None if now is None else now.volatility,
                )
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
        still = [m for k, m in self.pending.items() if k not in ended]
        self.db.executemany(
            "INSERT OR REPLACE INTO pending VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    m["match_id"],
                    m["ruleset"],
                    m["seats"],
                    m["private"],
                    m["bots"],
                    m["imported"],
                    json.dumps(m["player_ids"]),
                )
                for m in still
            ],
        )
        self.db.executemany("DELETE FROM pending WHERE match_id = ?", [[m] for m in self.ended])
        self.db.executemany(
            "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            self.results,
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    p.player_id,
                    p.points,
                    p.wins,
                    p.draws,
                    p.losses,
                    p.rating,
                    p.rd,
                    p.volatility,
                    p.rated_matches,
                    p.last_rated,
                    int(p.provisional),
                    -p.rating,
                )
                for p in self.profiles.values()
            ],
        )


def _chunks(items: list[str], size: int = 500) -> Iterator[list[str]]:
    """``items`` in lists of at most ``size`` (well under SQLite's limit on bound values)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _idle_days(profile: Profile, at: str) -> float:
    return 0.0 if profile.last_rated is None else days_between(profile.last_rated, at)


def _rating(profile: Profile) -> Rating:
    return Rating(profile.rating, profile.rd, profile.volatility)


def _profile(row: sqlite3.Row) -> Profile:
    fields = dict(row)
    fields.pop("provisional", None)
    fields.pop("sort_rating", None)
    return msgspec.convert(fields, Profile)


def _result(row: sqlite3.Row) -> ResultRow:
    fields = dict(row)
    fields["player_ids"] = json.loads(fields["player_ids"])
    fields["private"] = bool(fields["private"])
    fields["rated"] = bool(fields["rated"])
    return msgspec.convert(fields, ResultRow)
