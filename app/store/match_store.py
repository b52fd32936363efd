"""The event store: one eventsourcing stream per match, seq = version.

A match's stream is stored under a short key (app.store.streams; under its match id when it
was stored before keys), its rows in the compact form (app.store.compact); what the store hands
out names matches by id and kinds by their ``basra:TAG`` topic whichever form a row has.

The same code runs on eventsourcing's in-memory (POPO) recorder, a SQLite file and PostgreSQL:
only the infrastructure factory differs. Appends are optimistic: a stream's rows are keyed by
(match id, seq), so a writer that read an old seq collides with the row another writer already
stored and its whole transaction is refused (eventsourcing ``IntegrityError`` → ConflictError).
Snapshots of the folded state sit in their own table; they are caches and can be dropped.
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    IntegrityError,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.popo import POPOAggregateRecorder

from app.config import PostgresSettings, StoreConfig
from app.errors import ConflictError, StoreUnavailableError
from app.store.decoding import CANONICAL_TOPIC, TOPICS, stored_topics
from app.store.grouping import GroupCommit
from app.store.live import LogListener, OnEntry
from app.store.mapper import EventMapper
from app.store.sqlite import (
    LOCK_TIMEOUT_SECONDS,
    SQLITE_DEFAULT_SYNCHRONOUS,
    DurableDatastore,
    prepare_file,
)
from app.store.streams import StreamKeys
from domain.events import MatchCreated
from domain.recorded import RecordedEvent
from domain.state import MatchState

NOTIFICATION_PAGE = 1000
"""How many log entries one read of the global log returns at most when scanning it all."""


@dataclass(frozen=True)
class LogEntry:
    """One entry of the global event log: its position, and which match event it is."""

    position: int
    match_id: str
    seq: int
    topic: str
    """The kind's topic (``basra:card_played``), whichever form the row is stored in."""
    state: bytes
    stored_topic: str = ""
    """The row's own topic (``p`` in the compact form); empty: the same as ``topic``."""


@contextlib.contextmanager
def translated_errors(match_id: str | None = None) -> Iterator[None]:
    """Turn eventsourcing's persistence errors into this project's errors."""
    try:
        yield
    except IntegrityError:
        where = f"match {match_id}" if match_id else "the stream"
        raise ConflictError(
            f"{where} changed since it was read; nothing was written, reload and retry",
            match_id=match_id,
        ) from None
    except PersistenceError as error:
        raise StoreUnavailableError(f"the event store is unavailable: {error}") from None


CallTimer = Callable[[str, float], None]
"""Told (operation, seconds) after each timed store call: the server's metrics."""


class _CallsInFlight:
    """Store calls under way on any thread, so closing waits for them and refuses new ones.

    The server's log followers and the turn clock read the store on worker threads; closing
    the connections under a read that is still running crashes the SQLite driver.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running = 0
        self._closed = False
        self.timer: CallTimer | None = None  # told how long each named call took

    @contextlib.contextmanager
    def call(self, operation: str | None = None) -> Iterator[None]:
        """One store call; StoreUnavailableError once the store is closed. A named
        ``operation`` (``append``, ``read``) is timed for the ``timer``, if one is set."""
        with self._changed:
            if self._closed:
                raise StoreUnavailableError("the event store is closed")
            self._running += 1
        timer = self.timer if operation is not None else None
        started = time.perf_counter() if timer is not None else 0.0
        try:
            yield
        finally:
            if timer is not None and operation is not None:
                timer(operation, time.perf_counter() - started)
            with self._changed:
                self._running -= 1
                self._changed.notify_all()

    def close(self, wait_seconds: float = 30.0) -> None:
        """Refuse new calls and wait (up to ``wait_seconds``) for those under way to end."""
        with self._changed:
            self._closed = True
            self._changed.wait_for(lambda: self._running == 0, timeout=wait_seconds)


class MatchStore:
    """Match streams in an eventsourcing application recorder, snapshots beside them."""

    def __init__(
        self,
        factory: InfrastructureFactory[Any],
        *,
        config: StoreConfig,
        recorders: tuple[ApplicationRecorder, AggregateRecorder] | None = None,
    ) -> None:
        self.factory = factory
        self.config = config
        self.kind = config.kind
        self.identity = config.identity()
        self.mapper = EventMapper()
        self.calls = _CallsInFlight()
        if recorders is None:
            with translated_errors():
                events = factory.application_recorder()
                recorders = (events, factory.aggregate_recorder("snapshots"))
        self.recorder: ApplicationRecorder = recorders[0]
        self._snapshots: AggregateRecorder = recorders[1]
        if self.kind == "sqlite":
            _index_topics(self.recorder)
        with translated_errors():
            self.streams = StreamKeys(self.kind, self.recorder, factory)
        if self.kind == "memory":  # every handle on one in-memory store shares its snapshots
            _MEMORY_SNAPSHOTS.setdefault(factory, recorders[1])
        # Concurrent commands share one transaction, one flush and (PostgreSQL) one turn of
        # the events table's lock: docs/storage.md "Group commit".
        self.grouped = GroupCommit(self.recorder.insert_events)

    @property
    def snapshots(self) -> AggregateRecorder:
        """The snapshots' recorder (table ``stored_snapshots``)."""
        if self.kind == "memory":
            return _MEMORY_SNAPSHOTS[self.factory]
        return self._snapshots

    def reopen(self) -> MatchStore:
        """Another handle on the same database with its own connections, as another process
        would have (the in-memory store shares its recorders)."""
        if self.kind == "memory":
            shared = (self.recorder, self.snapshots)
            return MatchStore(self.factory, config=self.config, recorders=shared)
        return MatchStore.open(self.config)

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def memory(cls) -> MatchStore:
        """eventsourcing's in-memory recorder: for tests; gone when the process ends."""
        factory = InfrastructureFactory.construct({"PERSISTENCE_MODULE": "eventsourcing.popo"})
        recorders = (factory.application_recorder(), MemorySnapshots())
        return cls(factory, config=StoreConfig(kind="memory"), recorders=recorders)

    @classmethod
    def sqlite(cls, path: Path, synchronous: str = "FULL") -> MatchStore:
        """A SQLite file (created on first use), WAL with the given ``synchronous``."""
        with translated_errors():
            try:
                prepare_file(path)
            except OSError as error:
                raise StoreUnavailableError(f"cannot open {path}: {error}") from None
            except Exception as error:  # sqlite3 errors: not a database, unreadable, …
                raise StoreUnavailableError(f"cannot open {path}: {error}") from None
            factory = InfrastructureFactory.construct(
                {
                    "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                    "SQLITE_DBNAME": str(path),
                    "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
                    "ORIGINATOR_ID_TYPE": "text",
                }
            )
            if synchronous != SQLITE_DEFAULT_SYNCHRONOUS:
                # The one setting eventsourcing lacks (docs/architecture.md L10): only a mode
                # other than SQLite's own default needs connections made here.
                factory.datastore.close()  # type: ignore[attr-defined]
                factory.datastore = DurableDatastore(path, synchronous)  # type: ignore[attr-defined]
            config = StoreConfig(kind="sqlite", sqlite_path=path, synchronous=synchronous)
            return cls(factory, config=config)

    @classmethod
    def postgres(cls, settings: PostgresSettings) -> MatchStore:
        """PostgreSQL through eventsourcing.postgres; the schema is created when missing."""
        from app.store.postgres import creating_tables, ensure_schema, factory_env

        with translated_errors():
            ensure_schema(settings)
            # eventsourcing's own factory, named by topic, with recorders that refuse at once
            # while the database is down instead of waiting out the library's retries
            # (docs/architecture.md L19); its recorders create the tables, one process at a time.
            factory = InfrastructureFactory.construct(factory_env(settings))
            try:
                with creating_tables(settings):
                    return cls(factory, config=StoreConfig(kind="postgres", postgres=settings))
            except BaseException:
                factory.close()
                raise

    @classmethod
    def open(cls, config: StoreConfig) -> MatchStore:
        """The store ``config`` describes."""
        if config.kind == "postgres":
            assert config.postgres is not None
            return cls.postgres(config.postgres)
        if config.kind == "sqlite":
            assert config.sqlite_path is not None
            return cls.sqlite(config.sqlite_path, config.synchronous)
        return cls.memory()

    def time_calls(self, timer: CallTimer) -> None:
        """Tell ``timer`` (operation, seconds) after every append and read of a stream."""
        self.calls.timer = timer

    def close(self) -> None:
        """Release the connections once the calls under way have ended."""
        self.calls.close()
        self.factory.close()

    # -- streams ------------------------------------------------------------------------------

    def append(self, match_id: str, recorded: Sequence[RecordedEvent]) -> list[int]:
        """Store events at their seqs in one transaction; ConflictError if any seq is taken.

        The first event's seq must be the stream's last seq + 1 as the writer read it: that is
        the expected version. Returns the events' positions in the global log (empty when the
        recorder does not report them). Appends made at the same moment on other threads are
        committed in the same transaction; each is still refused or kept on its own.
        """
        with self.calls.call("append"), translated_errors(match_id):
            stream = self._stream_to_write(match_id, recorded)
            rows = [self.mapper.to_stored_event(stream, r) for r in recorded]
            return self.grouped.append(rows)

    def append_many(
        self, appends: Sequence[tuple[str, Sequence[RecordedEvent]]]
    ) -> list[list[int] | Exception]:
        """``append`` for several streams at once, sharing transactions (the turn clock's
        expiries due together); each one's positions, or the error refusing it alone
        (ConflictError when its stream moved on)."""
        with self.calls.call("append"), translated_errors():
            batches = [
                [
                    self.mapper.to_stored_event(self._stream_to_write(m, recorded), r)
                    for r in recorded
                ]
                for m, recorded in appends
            ]
            outcomes = self.grouped.append_many(batches)
        translated: list[list[int] | Exception] = []
        for (match_id, _), outcome in zip(appends, outcomes, strict=True):
            if isinstance(outcome, Exception):
                try:
                    with translated_errors(match_id):
                        raise outcome
                except Exception as error:  # handed back to its caller, not swallowed
                    outcome = error
            translated.append(outcome)
        return translated

    def _stream_to_write(self, match_id: str, recorded: Sequence[RecordedEvent]) -> str:
        """The stored name of the stream these events go to (a new key for a new match)."""
        if recorded and recorded[0].seq == 1:
            return self.streams.create(match_id)
        return self.streams.originator(match_id)

    def read(
        self, match_id: str, after_seq: int = 0, upto_seq: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events after ``after_seq`` (up to ``upto_seq``), in order."""
        with self.calls.call("read"), translated_errors(match_id):
            rows = self.recorder.select_events(
                self.streams.originator(match_id),
                gt=after_seq if after_seq > 0 else None,
                lte=upto_seq,
            )
        to_recorded = self.mapper.to_recorded
        return [to_recorded(row, match_id) for row in rows]

    def last_seq(self, match_id: str) -> int:
        """The stream's last seq, 0 when there is no such match."""
        with self.calls.call(), translated_errors(match_id):
            stream = self.streams.originator(match_id)
            rows = self.recorder.select_events(stream, desc=True, limit=1)
        return rows[0].originator_version if rows else 0

    # -- snapshots ----------------------------------------------------------------------------

    def save_snapshot(self, match_id: str, state: MatchState) -> None:
        """Keep ``state`` as a snapshot at its seq; a snapshot already there is left alone."""
        row = self.mapper.snapshot_to_stored(match_id, state)
        with contextlib.suppress(ConflictError), self.calls.call(), translated_errors(match_id):
            self.snapshots.insert_events([row])

    def latest_snapshot(self, match_id: str) -> MatchState | None:
        """The latest snapshot this build can read, if any."""
        with self.calls.call(), translated_errors(match_id):
            rows = self.snapshots.select_events(match_id, desc=True, limit=1)
        return self.mapper.snapshot_from_stored(rows[0]) if rows else None

    def drop_snapshots(self) -> int:
        """Forget every snapshot (they are rebuilt from the streams); returns how many."""
        with self.calls.call(), translated_errors():
            return _drop_rows(self)

    # -- the global log -----------------------------------------------------------------------

    def log_after(self, position: int, limit: int, topics: Sequence[str] = ()) -> list[LogEntry]:
        """Up to ``limit`` entries of the global log after ``position``, in order."""
        topics = stored_topics(list(topics))
        if len(topics) > 1 and self.kind == "sqlite":
            return self._log_after_topics(position, limit, topics)
        with self.calls.call(), translated_errors():
            rows = self.recorder.select_notifications(
                start=position, limit=limit, topics=topics, inclusive_of_start=False
            )
            self.streams.prefetch([str(n.originator_id) for n in rows])
            return [
                self._entry(n.id, str(n.originator_id), n.originator_version, n.topic, n.state)
                for n in rows
            ]

    def _entry(self, position: int, stream: str, seq: int, topic: str, state: bytes) -> LogEntry:
        """The log entry of a stored row: its match by id and its kind's topic."""
        return LogEntry(
            position,
            self.streams.match_of(stream),
            seq,
            CANONICAL_TOPIC.get(topic, topic),
            state,
            topic,
        )

    def _log_after_topics(self, position: int, limit: int, topics: Sequence[str]) -> list[LogEntry]:
        """``log_after`` for several topics on SQLite, in one statement on the topic index.

        An IN over the topics would make SQLite sort every later entry of those topics for each
        page; instead each topic's next ``limit`` positions are read from the index alone
        (already in order), the first ``limit`` of them taken, and only those rows fetched.
        """
        table: Any = self.recorder
        name = table.events_table_name
        one = f"SELECT * FROM (SELECT rowid AS n FROM {name} WHERE topic = ? AND rowid > ?"
        one += " ORDER BY rowid LIMIT ?)"
        statement = (
            f"SELECT rowid, originator_id, originator_version, topic, state FROM {name}"
            f" WHERE rowid IN (SELECT n FROM ({' UNION ALL '.join([one] * len(topics))})"
            " ORDER BY n LIMIT ?) ORDER BY rowid"
        )
        params: list[Any] = [v for topic in topics for v in (topic, position, limit)]
        with (
            self.calls.call(),
            translated_errors(),
            table.datastore.transaction(commit=False) as cursor,
        ):
            cursor.execute(statement, [*params, limit])
            rows = cursor.fetchall()
        with self.calls.call(), translated_errors():
            self.streams.prefetch([str(row[1]) for row in rows])
            return [self._entry(row[0], str(row[1]), row[2], row[3], row[4]) for row in rows]

    def max_position(self) -> int:
        """The last position of the global log, 0 when it is empty."""
        with self.calls.call(), translated_errors():
            return self.recorder.max_notification_id() or 0

    def listen(self, position: int, on_entry: OnEntry) -> LogListener | None:
        """A listener pushed every log entry after ``position`` by the database (PostgreSQL
        LISTEN/NOTIFY), not started; None on stores that cannot push (poll ``log_after``)."""
        if self.kind != "postgres":
            return None
        match_of = self.streams.match_of

        def on_row(at: int, stream: str, seq: int) -> None:
            on_entry(at, match_of(stream), seq)

        return LogListener(self.recorder, position, on_row)

    def match_ids(self) -> list[str]:
        """Every stored match id, in the order the matches were created."""
        created = [TOPICS[MatchCreated]]
        ids: list[str] = []
        position = 0
        while True:
            page = self.log_after(position, NOTIFICATION_PAGE, created)
            ids.extend(entry.match_id for entry in page)
            if len(page) < NOTIFICATION_PAGE:
                return ids
            position = page[-1].position

    def to_recorded(self, entry: LogEntry) -> RecordedEvent:
        """Decode a log entry (CorruptEventError names its match and seq)."""
        return self.mapper.to_recorded(
            StoredEvent(entry.match_id, entry.seq, entry.stored_topic or entry.topic, entry.state)
        )


TOPIC_INDEX = "stored_events_topic"
"""The SQLite index over the events' topics: the projections that read a few kinds of entry
(results, the turn clock's recovery) find them without walking every other entry."""


def _index_topics(recorder: ApplicationRecorder) -> None:
    """Create the topic index when missing (once per file; a store written before it gets it on
    first open, which reads the whole table once)."""
    table: Any = recorder
    with translated_errors():
        with table.datastore.transaction(commit=False) as cursor:  # a read: no write lock
            cursor.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TOPIC_INDEX,))
            if cursor.fetchone() is not None:
                return
        with table.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {TOPIC_INDEX} ON {table.events_table_name} (topic)"
            )


def _drop_rows(store: MatchStore) -> int:
    """Delete the snapshot table's rows with the recorder's own connection."""
    recorder: Any = store.snapshots
    if store.kind == "sqlite":
        with recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(f"DELETE FROM {recorder.events_table_name}")
            return int(cursor.sqlite_cursor.rowcount)
    if store.kind == "postgres":
        from psycopg.sql import SQL, Identifier

        with recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                SQL("DELETE FROM {0}.{1}").format(
                    Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name)
                )
            )
            return int(cursor.rowcount)
    # In memory: count the snapshots through the recorder's own reads, then give every handle
    # on this store a new, empty recorder (the library's in-memory recorder deletes nothing).
    assert isinstance(recorder, MemorySnapshots)
    count = sum(len(recorder.select_events(key)) for key in recorder.streams())
    _MEMORY_SNAPSHOTS[store.factory] = MemorySnapshots()
    return count


class MemorySnapshots(POPOAggregateRecorder):
    """eventsourcing's in-memory recorder, remembering which streams it holds (so that
    dropping them can say how many there were, through the recorder's public reads)."""

    def __init__(self) -> None:
        super().__init__()
        self._keys: set[str] = set()

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Store as the library does; note the streams."""
        ids = super().insert_events(stored_events, **kwargs)
        self._keys.update(str(e.originator_id) for e in stored_events)
        return ids

    def streams(self) -> list[str]:
        """The streams that have snapshots."""
        return sorted(self._keys)


_MEMORY_SNAPSHOTS: weakref.WeakKeyDictionary[InfrastructureFactory[Any], AggregateRecorder] = (
    weakref.WeakKeyDictionary()
)
"""The snapshots' recorder of each in-memory store, shared by its handles."""


_SIDE_RECORDERS: weakref.WeakKeyDictionary[
    InfrastructureFactory[Any], dict[str, AggregateRecorder]
] = weakref.WeakKeyDictionary()


def side_recorder(store: MatchStore, purpose: str) -> AggregateRecorder:
    """The recorder of the table ``stored_PURPOSE`` beside the match streams.

    Players' and support's streams live there, outside the global log. In memory every handle
    on one store shares one recorder per purpose, as handles on one file share its tables.
    """
    factory = store.factory
    with translated_errors():
        if store.kind == "postgres":
            from app.store.postgres import creating_tables

            assert store.config.postgres is not None
            with creating_tables(store.config.postgres):
                return factory.aggregate_recorder(purpose)
        if store.kind != "memory":
            return factory.aggregate_recorder(purpose)
        by_purpose = _SIDE_RECORDERS.setdefault(factory, {})
        recorder = by_purpose.get(purpose)
        if recorder is None:
            recorder = by_purpose[purpose] = factory.aggregate_recorder(purpose)
        return recorder
