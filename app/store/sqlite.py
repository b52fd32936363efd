"""The embedded SQLite store: eventsourcing's recorder on a file with chosen durability.

eventsourcing switches a file to WAL but leaves ``synchronous`` at SQLite's default and has no
setting for it (docs/architecture.md, L10); the connections made here set it on purpose. A
fresh file is created and switched to WAL once, before any pool opens it, so two processes
starting together do not both try to change its journal mode (docs/architecture.md, L11).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from eventsourcing.persistence import InterfaceError
from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool, SQLiteDatastore

LOCK_TIMEOUT_SECONDS = 5
"""How long a writer waits for another process's transaction before giving up."""

SQLITE_DEFAULT_SYNCHRONOUS = "FULL"
"""What SQLite (as built for Python) runs a WAL connection with when nothing is set: with it,
eventsourcing's own connections are used unchanged (tests/app/test_store_library.py)."""

_PREPARE_ATTEMPTS = 50


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
