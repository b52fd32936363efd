"""What the store relies on in eventsourcing (docs/architecture.md L4, L9, L10): these fail when
the library changes under the store.

- SQLite: the library's own connections run WAL with ``synchronous=FULL`` (the store's default),
  so the store uses them unchanged; only another mode needs connections made by the store.
- PostgreSQL: every insert takes the events table's EXCLUSIVE lock (so that commit order and
  log order are one, which group commit and the live listener rely on) and sends NOTIFY on the
  table's channel (which the listener waits for).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psycopg
import pytest
from eventsourcing.sqlite import SQLiteDatastore

from app.config import PostgresSettings
from app.store.match_store import MatchStore
from app.store.sqlite import DurableDatastore
from domain.events import MatchEnded
from domain.recorded import RecordedEvent


def event_at(seq: int) -> RecordedEvent:
    """A recorded event at ``seq`` (its kind does not matter to the store)."""
    return RecordedEvent(
        seq=seq,
        at="2026-12-01T08:00:00.000000Z",
        event=MatchEnded(reason="abandoned", winner=None, totals=(0, 0)),
    )


def wait_until(condition: object, what: str, seconds: float = 30.0) -> None:
    """Wait for ``condition()`` (a condition, not a timed assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def test_the_default_sqlite_store_uses_the_librarys_own_connections_wal_and_full(
    tmp_path: Path,
) -> None:
    # given a store opened with the default synchronous (FULL)
    store = MatchStore.sqlite(tmp_path / "lib.db")
    try:
        store.append("m-1", [event_at(1)])
        datastore = store.recorder.datastore  # type: ignore[attr-defined]
        # then its datastore is the library's own, and its connections are WAL and FULL
        assert type(datastore) is SQLiteDatastore
        with datastore.transaction(commit=False) as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone()[0] == 2
    finally:
        store.close()


def test_only_another_synchronous_mode_needs_the_stores_own_connections(tmp_path: Path) -> None:
    # given a store opened with synchronous=NORMAL
    store = MatchStore.sqlite(tmp_path / "normal.db", "NORMAL")
    try:
        store.append("m-1", [event_at(1)])
        datastore = store.recorder.datastore  # type: ignore[attr-defined]
        # then its connections are the store's, made through the library's pool hook
        assert isinstance(datastore, DurableDatastore)
        with datastore.transaction(commit=False) as cursor:
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone()[0] == 1
    finally:
        store.close()


def _connect(settings: PostgresSettings) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(
        dbname=settings.dbname,
        host=settings.host,
        port=settings.port,
        user=settings.user,
        password=settings.password,
        autocommit=True,
    )


@pytest.mark.postgres
def test_postgres_inserts_take_the_tables_exclusive_lock_and_notify_the_channel(
    postgres_settings: PostgresSettings,
) -> None:
    # given a store, a listener on the events table's channel, and another transaction
    # holding the table in SHARE mode
    store = MatchStore.postgres(postgres_settings)
    listener = _connect(postgres_settings)
    holder = _connect(postgres_settings)
    watcher = _connect(postgres_settings)
    table = f'"{postgres_settings.schema}".stored_events'
    try:
        listener.execute('LISTEN "stored_events"')
        holder.execute("BEGIN")
        holder.execute(f"LOCK TABLE {table} IN SHARE MODE")
        done = threading.Event()

        def append() -> None:
            store.append("m-lock", [event_at(1)])
            done.set()

        thread = threading.Thread(target=append)
        thread.start()

        # then the append waits for the table's EXCLUSIVE lock (a plain INSERT would wait
        # for ROW EXCLUSIVE instead: pg_locks tells which)
        def waiting_mode() -> str | None:
            row = watcher.execute(
                "SELECT mode FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                (table,),
            ).fetchone()
            return str(row[0]) if row else None

        wait_until(lambda: waiting_mode() is not None, "the append waits on the table")
        assert waiting_mode() == "ExclusiveLock"
        assert not done.is_set()
        holder.execute("ROLLBACK")
        thread.join(30)
        assert done.is_set()
        # and the commit notified the table's channel
        # (other schemas of the database notify the same channel, so there may be more)
        notes = list(listener.notifies(timeout=10, stop_after=1))
        assert notes and {n.channel for n in notes} == {"stored_events"}
    finally:
        for conn in (listener, holder, watcher):
            conn.close()
        store.close()
