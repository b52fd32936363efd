"""The one runner that keeps every read model up to the global log (docs/storage.md).

A pull loop (eventsourcing's ProjectionRunner cannot subscribe to SQLite, docs/architecture.md, L4):
each batch takes the write lock on the read model's file, reads its tracked position, fetches the
log entries after it, has the ``Projection`` apply them and writes its rows and the new position
in the same transaction. A crash mid-batch rolls the whole batch back, so the next run resumes at
the last committed position with nothing lost or counted twice, whichever process runs it. The
file is a cache: it records which store it follows and in which schema, and is dropped and
rebuilt from the log when either changes or when it claims a position the log does not have.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Final, Protocol

import sqlite_utils

from app.store.match_store import LogEntry, MatchStore

BUSY_TIMEOUT_SECONDS: Final = 10.0
"""How long a follower waits for another process's batch on a shared file."""

Progress = Callable[[int, int], None]
"""Called with (position reached, last position of the log) after each batch."""

AfterEntry = Callable[[LogEntry], None]
"""Called with each entry of a batch once the batch has applied it (before it commits)."""


class Projection(Protocol):
    """A read model as the runner sees it: its tables and how a batch of the log changes them."""

    name: str
    """The name its position is tracked under in ``positions``."""
    schema_version: str
    """Bumped when its tables change shape: a file of another version is rebuilt."""
    tables: tuple[str, ...]
    """Its own tables (dropped on a rebuild)."""
    topics: tuple[str, ...]
    """The kinds of log entry it reads; empty for every entry."""

    def create_tables(self, db: sqlite_utils.Database) -> None:
        """Create its tables where missing (inside the caller's transaction, if any)."""

    def refresh(self, db: sqlite_utils.Database, store: MatchStore) -> None:
        """Bring up to date what does not follow the log (before the batches)."""

    def apply(self, db: sqlite_utils.Database, store: MatchStore, entries: list[LogEntry]) -> None:
        """Apply a batch of entries, in log order, inside the batch's transaction."""


@contextmanager
def write_transaction(db: sqlite_utils.Database) -> Iterator[None]:
    """One transaction on ``db`` holding the file's write lock from its start.

    BEGIN IMMEDIATE takes the lock before the position is read, so two processes sharing a file
    never apply the same entries twice.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class ProjectionRunner:
    """One projection's SQLite file, kept up to the log of ``store`` batch by batch."""

    def __init__(
        self,
        path: Path,
        store: MatchStore,
        projection: Projection,
        *,
        batch_size: int,
        cache_kib: int | None = None,
    ) -> None:
        self.path = path
        self.store = store
        self.projection = projection
        self.batch_size = batch_size
        path.parent.mkdir(parents=True, exist_ok=True)
        # One connection, used from any thread under self.lock (an API process's workers).
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
        self.db = sqlite_utils.Database(connection)
        if self.db.journal_mode != "wal":
            self.db.enable_wal()
        # A cache rebuilt from the log: losing the last commits to a power cut only means
        # re-reading them, since the position rolls back with the rows.
        self.db.execute("PRAGMA synchronous=NORMAL")
        if cache_kib is not None:
            self.db.execute(f"PRAGMA cache_size=-{cache_kib}")
        self.lock = threading.RLock()
        """Held by every use of the connection: reads too."""
        with self.lock:
            self._create_tables()

    def close(self) -> None:
        """Close the file."""
        with self.lock:
            self.db.close()

    def catch_up(
        self,
        *,
        progress: Progress | None = None,
        after_entry: AfterEntry | None = None,
        refresh: bool = True,
    ) -> int:
        """Apply every log entry after the tracked position; returns how many were applied.

        ``refresh=False`` skips what does not follow the log (the players directory, whose
        refresh reads every player stream's version): for a reader that takes what it needs of
        that from the store itself.
        """
        applied = 0
        with self.lock:
            last = self.store.max_position()
            self._check_source(last)
            if refresh:
                self.projection.refresh(self.db, self.store)
            while True:
                count, position, done = self._apply_batch(last, after_entry)
                applied += count
                if progress is not None:
                    progress(position, last)
                if done:
                    return applied
                last = self.store.max_position()

    def rebuild(self, *, progress: Progress | None = None) -> int:
        """Drop the projection's tables and apply the log again from its start."""
        with self.lock:
            with self.write_transaction():
                self._drop_tables()
                self._create_tables()
            return self.catch_up(progress=progress)

    def position(self) -> int:
        """The last log position applied to the tables."""
        with self.lock:
            row = self.db.execute(
                "SELECT position FROM positions WHERE name = ?", [self.projection.name]
            ).fetchone()
        return int(row[0]) if row else 0

    def write_transaction(self) -> AbstractContextManager[None]:
        """One transaction on the file holding its write lock from the start."""
        return write_transaction(self.db)

    # -- inside ---------------------------------------------------------------------------------

    def _apply_batch(self, last: int, after_entry: AfterEntry | None) -> tuple[int, int, bool]:
        """One batch, ``last`` being the log's last position read just before: returns
        (entries applied, position reached, whether that was the last batch)."""
        position = self.position()
        if position >= last:
            return 0, position, True  # nothing new: no write lock taken
        with self.write_transaction():
            position = self.position()
            entries = self.store.log_after(position, self.batch_size, self.projection.topics)
            if entries:
                self.projection.apply(self.db, self.store, entries)
            if after_entry is not None:
                for entry in entries:
                    after_entry(entry)
            done = len(entries) < self.batch_size
            reached = entries[-1].position if entries else position
            if done:
                # Every entry up to ``last`` (read before the query) is in the batch or of a
                # kind the projection skips: the position moves over those too.
                reached = max(reached, last)
            self.db.table("positions").upsert(
                {"name": self.projection.name, "position": reached}, pk="name"
            )
            return len(entries), reached, done

    def _create_tables(self) -> None:
        table = self.db.table
        table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
        table("positions").create({"name": str, "position": int}, pk="name", if_not_exists=True)
        self.projection.create_tables(self.db)

    def _drop_tables(self) -> None:
        for name in (*self.projection.tables, "positions", "meta"):
            self.db.table(name).drop(ignore=True)

    def _meta(self) -> dict[str, str]:
        return {row["key"]: row["value"] for row in self.db.table("meta").rows}

    def _stale(self, expected: dict[str, str], last: int) -> bool:
        meta = self._meta()
        if any(meta.get(k) != v for k, v in expected.items()):
            return True
        return self.position() > last  # it claims entries the log does not have: never serve that

    def _check_source(self, last: int) -> None:
        """Start again from nothing when the file follows another store or schema, or is ahead
        of the log (``last``): looked at first without the write lock, taken only to start
        again."""
        expected = {"store": self.store.identity, "schema": self.projection.schema_version}
        if not self._stale(expected, last):
            return
        with self.write_transaction():
            if not self._stale(expected, last):
                return  # another process started it again meanwhile
            self._drop_tables()
            self._create_tables()
            self.db.table("meta").upsert_all(
                [{"key": k, "value": v} for k, v in expected.items()], pk="key"
            )
