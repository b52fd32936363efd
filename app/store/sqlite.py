"""The embedded SQLite store (``SQLiteBackend``): eventsourcing's recorders on one file.

eventsourcing switches a file to WAL but leaves ``synchronous`` at SQLite's default and has no
setting for it (docs/architecture.md, L10); the connections made here set it on purpose. A
fresh file is created and switched to WAL once, before any pool opens it, so two processes
starting together do not both try to change its journal mode (docs/architecture.md, L11).

The store's lock is a ``flock`` on the file ``PATH.lock`` beside it: every process that serves
or reads the store holds it shared for as long as it has the store open, and ``basra store
migrate`` holds it alone (docs/storage.md, "One stored form"). It is a file of its own because
closing any descriptor of the database file itself would drop the POSIX locks SQLite holds on
it in the same process. The stored form is the file's ``user_version``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    InterfaceError,
    StoredEvent,
)
from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteDatastore,
)

from app.config import StoreConfig
from app.errors import StoreNotMigratedError, StoreUnavailableError
from app.store.backend import (
    MIGRATE_HINT,
    PRESENCE_TABLE,
    STORED_FORM,
    LogRow,
    translated_errors,
)
from app.store.sql import PRESENCE_INDEX, PRESENCE_SCHEMA, SqlBackend
from app.store.streams import STREAMS_TABLE

LOCK_TIMEOUT_SECONDS = 5
"""How long a writer waits for another process's transaction before giving up."""

SQLITE_DEFAULT_SYNCHRONOUS = "FULL"
"""What SQLite (as built for Python) runs a WAL connection with when nothing is set: with it,
eventsourcing's own connections are used unchanged (tests/app/test_store_library.py)."""

_PREPARE_ATTEMPTS = 50

ROWS_PER_INSERT: Final = 200
"""The most rows one INSERT statement of a grouped append carries (four parameters a row, well
under the 999 an older SQLite allows in one statement)."""


class DurableConnectionPool(SQLiteConnectionPool):
    """eventsourcing's SQLite pool, with ``synchronous`` set on every new connection."""

    def __init__(self, *, db_name: str, synchronous: str, lock_timeout: int) -> None:
        self.synchronous = synchronous
        super().__init__(db_name=db_name, lock_timeout=lock_timeout)

    def _create_connection(self) -> SQLiteConnection:
        for attempt in range(_PREPARE_ATTEMPTS):
            try:
                connection = super()._create_connection()
                break
            except sqlite3.OperationalError as error:
                # Another process is switching the file to WAL at this moment.
                if "locked" not in str(error) or attempt == _PREPARE_ATTEMPTS - 1:
                    raise InterfaceError(str(error)) from error
                time.sleep(0.05)
        connection._sqlite_conn.execute(f"PRAGMA synchronous={self.synchronous}")
        return connection


class DurableDatastore(SQLiteDatastore):
    """eventsourcing's SQLite datastore over a DurableConnectionPool, text originator ids."""

    def __init__(self, path: Path, synchronous: str) -> None:
        super().__init__(str(path), lock_timeout=LOCK_TIMEOUT_SECONDS, originator_id_type="text")
        self.pool.close()
        self.pool = DurableConnectionPool(
            db_name=str(path), synchronous=synchronous, lock_timeout=LOCK_TIMEOUT_SECONDS
        )


def prepare_file(path: Path) -> None:
    """Create the file if needed and switch it to WAL, retrying while another process does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(_PREPARE_ATTEMPTS):
        try:
            connection = sqlite3.connect(str(path), timeout=LOCK_TIMEOUT_SECONDS)
            try:
                mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    connection.execute("PRAGMA journal_mode=WAL")
            finally:
                connection.close()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == _PREPARE_ATTEMPTS - 1:
                raise
            time.sleep(0.05)


EVENTS_TABLE: Final = "stored_events"
"""The table eventsourcing's SQLite application recorder keeps the events in."""

TOPIC_INDEX: Final = "stored_events_topic"
"""The index over the events' topics: the projections that read a few kinds of entry (results,
the turn clock's recovery) find them without walking every other entry."""


def lock_path(path: Path) -> Path:
    """The store's lock file beside it."""
    return path.with_name(path.name + ".lock")


def take_lock(path: Path, *, alone: bool, create: bool = True) -> int | None:
    """Hold the store's lock (shared, or ``alone``); its descriptor, to be closed to release it.

    None when ``create`` is False and no lock file exists (a reader never makes one). A store
    being migrated refuses a shared lock (StoreNotMigratedError); a store in use refuses the
    lock alone (StoreUnavailableError).
    """
    flags = os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    try:
        fd = os.open(lock_path(path), flags, 0o644)
    except FileNotFoundError:
        if create:
            raise
        return None
    except PermissionError:
        if create:
            raise
        return None
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        if alone:
            raise StoreUnavailableError(
                f"the store {path} is in use: stop the server and every command using it, "
                "then run basra store migrate again"
            ) from None
        raise StoreNotMigratedError(
            f"the store {path} is being migrated by basra store migrate: wait for it to end"
        ) from None
    return fd


def stored_form(connection: sqlite3.Connection) -> tuple[int, bool]:
    """The file's stored form (``user_version``) and whether it holds any event row."""
    form = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if form == STORED_FORM:
        return form, False
    try:
        rows = connection.execute(f"SELECT 1 FROM {EVENTS_TABLE} LIMIT 1").fetchall()
    except sqlite3.OperationalError:  # no events table yet
        return form, False
    return form, bool(rows)


def refuse_earlier_form(path: Path) -> StoreNotMigratedError:
    """The error of a process opening a store of an earlier form."""
    return StoreNotMigratedError(
        f"the store {path} was written by an earlier build: {MIGRATE_HINT}"
    )


class SQLiteBackend(SqlBackend):
    """A SQLite file through eventsourcing.sqlite, WAL with the chosen ``synchronous``."""

    kind = "sqlite"
    position_column = "rowid"

    def __init__(
        self,
        config: StoreConfig,
        factory: InfrastructureFactory[Any],
        recorders: tuple[ApplicationRecorder, AggregateRecorder],
        lock: int,
    ) -> None:
        self.config = config
        self.factory = factory
        self.events, self._snapshots = recorders
        self._lock: int | None = lock

    @classmethod
    def open(cls, config: StoreConfig, *, migrating: bool = False) -> SQLiteBackend:
        """The file (created on first use), the store's lock taken, its form checked."""
        path = config.sqlite_path
        assert path is not None
        with translated_errors():
            try:
                prepare_file(path)
                lock = take_lock(path, alone=migrating)
                assert lock is not None
            except OSError as error:
                raise StoreUnavailableError(f"cannot open {path}: {error}") from None
            except sqlite3.Error as error:  # not a database, unreadable, …
                raise StoreUnavailableError(f"cannot open {path}: {error}") from None
            try:
                return cls._opened(config, path, lock, migrating)
            except BaseException:
                os.close(lock)
                raise

    @classmethod
    def _opened(cls, config: StoreConfig, path: Path, lock: int, migrating: bool) -> SQLiteBackend:
        with contextlib.closing(sqlite3.connect(str(path), timeout=LOCK_TIMEOUT_SECONDS)) as raw:
            form, has_events = stored_form(raw)
        if form != STORED_FORM and has_events and not migrating:
            raise refuse_earlier_form(path)
        factory = InfrastructureFactory.construct(
            {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(path),
                "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
                "ORIGINATOR_ID_TYPE": "text",
            }
        )
        try:
            if config.synchronous != SQLITE_DEFAULT_SYNCHRONOUS:
                # The one setting eventsourcing lacks (docs/architecture.md L10): only a mode
                # other than SQLite's own default needs connections made here.
                factory.datastore.close()  # type: ignore[attr-defined]
                factory.datastore = DurableDatastore(path, config.synchronous)  # type: ignore[attr-defined]
            events = factory.application_recorder()
            backend = cls(config, factory, (events, factory.aggregate_recorder("snapshots")), lock)
            if form != STORED_FORM:
                backend._finish_schema(path, migrating)
            backend._index_topics()
            backend._presence_table()
        except BaseException:
            factory.close()
            raise
        return backend

    def _finish_schema(self, path: Path, migrating: bool) -> None:
        """Make the tables the library does not (stream numbers), and mark a new store with
        this build's form, in one transaction (another process may be opening it too)."""
        with contextlib.closing(
            sqlite3.connect(str(path), timeout=LOCK_TIMEOUT_SECONDS, isolation_level=None)
        ) as raw:
            raw.execute("BEGIN IMMEDIATE")
            try:
                form, has_events = stored_form(raw)
                raw.execute(
                    f"CREATE TABLE IF NOT EXISTS {STREAMS_TABLE} "
                    "(n INTEGER PRIMARY KEY, match_id TEXT NOT NULL UNIQUE)"
                )
                if form != STORED_FORM and not migrating:
                    if has_events:
                        raise refuse_earlier_form(path)
                    raw.execute(f"PRAGMA user_version = {STORED_FORM}")
                raw.execute("COMMIT")
            except BaseException:
                raw.execute("ROLLBACK")
                raise

    def _index_topics(self) -> None:
        """Create the topic index when missing (a store written before it gets it on first
        open, which reads the whole table once)."""
        if self._read("SELECT 1 FROM sqlite_master WHERE name = {p}", (TOPIC_INDEX,)):
            return
        with self.transaction() as run:
            run(f"CREATE INDEX IF NOT EXISTS {TOPIC_INDEX} ON {{e}} (topic)", ())

    def _presence_table(self) -> None:
        """Create the presence table when missing (a store written before it gets it on its
        next open; its rows live only while processes hold feeds, so nothing is migrated)."""
        if self._read("SELECT 1 FROM sqlite_master WHERE name = {p}", (PRESENCE_TABLE,)):
            return
        with self.transaction() as run:
            run(PRESENCE_SCHEMA.replace("{real}", "REAL"), ())
            run(PRESENCE_INDEX, ())

    def reopen(self) -> SQLiteBackend:
        """The same file, opened again."""
        return SQLiteBackend.open(self.config)

    def close(self) -> None:
        """Close the connections, then release the store's lock."""
        try:
            self.factory.close()
        finally:
            if self._lock is not None:
                os.close(self._lock)
                self._lock = None

    def query(self, statement: str, tables: dict[str, str]) -> str:
        """``?`` parameters, bare table names."""
        return statement.replace("{p}", "?").format(**tables)

    # -- the stored form --------------------------------------------------------------------

    def form(self) -> int:
        """The file's ``user_version``."""
        return int(self._read("PRAGMA user_version", ())[0][0])

    def mark_form(self) -> None:
        """Set the file's ``user_version`` to this build's form."""
        with self.transaction() as run:
            run(f"PRAGMA user_version = {STORED_FORM}", ())

    # -- the log ----------------------------------------------------------------------------

    def log_rows(self, position: int, limit: int, topics: Sequence[str]) -> list[LogRow]:
        """The log's rows; for several topics, one statement on the topic index.

        An IN over the topics would make SQLite sort every later entry of those topics for each
        page; instead each topic's next ``limit`` positions are read from the index alone
        (already in order), the first ``limit`` of them taken, and only those rows fetched.
        """
        if len(topics) < 2:
            return super().log_rows(position, limit, topics)
        one = "SELECT * FROM (SELECT rowid AS n FROM {e} WHERE topic = {p} AND rowid > {p}"
        one += " ORDER BY rowid LIMIT {p})"
        statement = (
            "SELECT rowid, originator_id, originator_version, topic, state FROM {e}"
            f" WHERE rowid IN (SELECT n FROM ({' UNION ALL '.join([one] * len(topics))})"
            " ORDER BY n LIMIT {p}) ORDER BY rowid"
        )
        params = [v for topic in topics for v in (topic, position, limit)]
        rows = self._read(statement, (*params, limit))
        return [LogRow(row[0], str(row[1]), row[2], row[3], row[4]) for row in rows]

    # -- appends ----------------------------------------------------------------------------

    def insert(self, rows: Sequence[StoredEvent]) -> Sequence[int] | None:
        """Insert rows of any streams in one transaction, a few hundred rows a statement; their
        log positions.

        eventsourcing's recorder runs one statement a row. Each statement gives up the GIL while
        SQLite works and must win it back from the event loop's thread after, so a grouped
        append of a hundred rows on a busy process waited for the GIL a hundred times while
        every other command waited for it (docs/performance.md, "Capacity at human pace").
        A row's position is its rowid: SQLite gives the rows of one INSERT the rowids after the
        largest one, in order, so a statement's last rowid names them all.
        """
        recorder = self.events
        assert isinstance(recorder, SQLiteApplicationRecorder)
        positions: list[int] = []
        with recorder.datastore.transaction(commit=True) as cursor:
            for start in range(0, len(rows), ROWS_PER_INSERT):
                chunk = rows[start : start + ROWS_PER_INSERT]
                cursor.execute(
                    f"INSERT INTO {recorder.events_table_name} VALUES "
                    + ",".join(["(?,?,?,?)"] * len(chunk)),
                    [
                        value
                        for row in chunk
                        for value in (
                            str(row.originator_id),
                            row.originator_version,
                            row.topic,
                            row.state,
                        )
                    ],
                )
                last = cursor.lastrowid
                positions.extend(range(last - len(chunk) + 1, last + 1))
        return positions

    # -- snapshots and side tables ----------------------------------------------------------

    @property
    def snapshots(self) -> AggregateRecorder:
        """The snapshots' recorder of this handle."""
        return self._snapshots

    def drop_snapshots(self) -> int:
        """Delete the snapshot table's rows."""
        table: Any = self._snapshots
        with self.transaction(side=table.events_table_name) as run:
            run("DELETE FROM {s}", ())
            return int(run("SELECT changes()", ())[0][0])

    def side_recorder(self, purpose: str) -> AggregateRecorder:
        """The library's recorder of ``stored_PURPOSE`` (created when missing)."""
        with translated_errors():
            return self.factory.aggregate_recorder(purpose)
