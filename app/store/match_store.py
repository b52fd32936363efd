"""The event store: one eventsourcing stream per match, seq = version.

A match's stream is stored under a short key (app.store.streams), its rows in the compact form
(app.store.compact); what the store hands out names matches by id and kinds by their
``basra:TAG`` topic.

The same code runs on eventsourcing's in-memory (POPO) recorder, a SQLite file and PostgreSQL:
what differs lives in one backend class each (app.store.backend). Appends are optimistic: a
stream's rows are keyed by (stream, seq), so a writer that read an old seq collides with the
row another writer already stored and its whole transaction is refused (eventsourcing
``IntegrityError`` → ConflictError). Snapshots of the folded state sit in their own table; they
are caches and can be dropped.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    StoredEvent,
)

from app.config import PostgresSettings, StoreConfig
from app.errors import ConflictError, StoreUnavailableError
from app.store.backend import Backend, backend_class, translated_errors
from app.store.decoding import CANONICAL_TOPIC, STORED_TOPIC, TOPICS, stored_topics
from app.store.grouping import GroupCommit
from app.store.live import LogListener, OnEntry
from app.store.mapper import EventMapper
from app.store.sqlite import TOPIC_INDEX
from app.store.streams import StreamKeys
from domain.events import MatchCreated
from domain.recorded import RecordedEvent
from domain.state import MatchState

__all__ = ["TOPIC_INDEX", "LogEntry", "MatchStore", "side_recorder", "translated_errors"]

NOTIFICATION_PAGE = 1000
"""How many log entries one read of the global log returns at most when scanning it all."""


@dataclass(frozen=True)
class LogEntry:
    """One entry of the global event log: its position, and which match event it is."""

    position: int
    match_id: str
    seq: int
    topic: str
    """The kind's topic (``basra:card_played``)."""
    state: bytes
    stored_topic: str = ""
    """The row's own topic (``p``); empty: the stored topic of ``topic``."""


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
        self, backend: Backend | InfrastructureFactory[Any], *, config: StoreConfig | None = None
    ) -> None:
        if not isinstance(backend, Backend):  # a factory made elsewhere (benchmarks)
            assert config is not None
            backend = backend_class(config.kind).adopt(backend, config)
        self.backend = backend
        self.config = backend.config
        self.kind = backend.kind
        self.factory = backend.factory
        self.identity = self.config.identity()
        self.mapper = EventMapper()
        self.calls = _CallsInFlight()
        # The backend's own statements (presence, stream numbers, counters) pass the same gate.
        backend.gate = self.calls.call
        self.streams = StreamKeys(backend)
        # Concurrent commands share one transaction, one flush and (PostgreSQL) one turn of
        # the events table's lock: docs/storage.md "Group commit".
        self.grouped = GroupCommit(backend.insert)

    @property
    def recorder(self) -> ApplicationRecorder:
        """The match streams' recorder (table ``stored_events``)."""
        return self.backend.events

    @property
    def snapshots(self) -> AggregateRecorder:
        """The snapshots' recorder (table ``stored_snapshots``)."""
        return self.backend.snapshots

    def reopen(self) -> MatchStore:
        """Another handle on the same database with its own connections, as another process
        would have (the in-memory store shares its recorders)."""
        return MatchStore(self.backend.reopen())

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def memory(cls) -> MatchStore:
        """eventsourcing's in-memory recorder: for tests; gone when the process ends."""
        return cls.open(StoreConfig(kind="memory"))

    @classmethod
    def sqlite(cls, path: Path, synchronous: str = "FULL") -> MatchStore:
        """A SQLite file (created on first use), WAL with the given ``synchronous``."""
        return cls.open(StoreConfig(kind="sqlite", sqlite_path=path, synchronous=synchronous))

    @classmethod
    def postgres(cls, settings: PostgresSettings) -> MatchStore:
        """PostgreSQL through eventsourcing.postgres; the schema is created when missing."""
        return cls.open(StoreConfig(kind="postgres", postgres=settings))

    @classmethod
    def open(cls, config: StoreConfig, *, migrating: bool = False) -> MatchStore:
        """The store ``config`` describes; StoreNotMigratedError when it holds an earlier
        build's stored form (``migrating``: opened by ``basra store migrate``, alone)."""
        return cls(backend_class(config.kind).open(config, migrating=migrating))

    def time_calls(self, timer: CallTimer) -> None:
        """Tell ``timer`` (operation, seconds) after every append and read of a stream."""
        self.calls.timer = timer

    def close(self) -> None:
        """Release the connections (and the store's lock) once the calls under way have ended."""
        self.calls.close()
        self.backend.close()

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
            return self.backend.drop_snapshots()

    # -- the global log -----------------------------------------------------------------------

    def log_after(self, position: int, limit: int, topics: Sequence[str] = ()) -> list[LogEntry]:
        """Up to ``limit`` entries of the global log after ``position``, in order."""
        with self.calls.call(), translated_errors():
            rows = self.backend.log_rows(position, limit, stored_topics(list(topics)))
            self.streams.prefetch([row.stream for row in rows])
            match_of = self.streams.match_of
            return [
                LogEntry(
                    row.position,
                    match_of(row.stream),
                    row.seq,
                    CANONICAL_TOPIC.get(row.topic, row.topic),
                    row.state,
                    row.topic,
                )
                for row in rows
            ]

    def max_position(self) -> int:
        """The last position of the global log, 0 when it is empty."""
        with self.calls.call(), translated_errors():
            return self.recorder.max_notification_id() or 0

    def listen(self, position: int, on_entry: OnEntry) -> LogListener | None:
        """A listener pushed every log entry after ``position`` by the database (PostgreSQL
        LISTEN/NOTIFY), not started; None on stores that cannot push (poll ``log_after``)."""
        match_of = self.streams.match_of
        to_recorded = self.mapper.to_recorded

        def on_row(at: int, stream: str, seq: int, topic: str, state: bytes) -> None:
            match_id = match_of(stream)
            decoded: list[RecordedEvent] = []

            def recorded() -> RecordedEvent:
                if not decoded:  # decoded once, however many of the process's caches want it
                    decoded.append(to_recorded(StoredEvent(match_id, seq, topic, state)))
                return decoded[0]

            on_entry(at, match_id, seq, recorded)

        return self.backend.listen(position, on_row)

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
        topic = entry.stored_topic or STORED_TOPIC.get(entry.topic, entry.topic)
        return self.mapper.to_recorded(StoredEvent(entry.match_id, entry.seq, topic, entry.state))


def side_recorder(store: MatchStore, purpose: str) -> AggregateRecorder:
    """The recorder of the table ``stored_PURPOSE`` beside the match streams.

    Players' and support's streams live there, outside the global log. In memory every handle
    on one store shares one recorder per purpose, as handles on one file share its tables.
    """
    return store.backend.side_recorder(purpose)
