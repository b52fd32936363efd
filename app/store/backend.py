"""What differs between the three stores, behind one interface: ``Backend``.

``MatchStore`` (app.store.match_store) is the same code on every store; everything that differs
between eventsourcing's in-memory recorder, a SQLite file and PostgreSQL lives in one class
each: ``MemoryBackend`` (app.store.memory), ``SQLiteBackend`` (app.store.sqlite) and
``PostgresBackend`` (app.store.postgres). A backend holds the connections and recorders, the
schema and its stored form, the store's lock, the insert that group commit calls, the log's
reads, the snapshots, the side tables (players, support) and the stream numbers' table.

The backend modules are imported only when their store is opened (``backend_class``), so a
command on SQLite never loads psycopg.
"""

from __future__ import annotations

import abc
import contextlib
import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

from app.config import StoreConfig, StoreKind
from app.errors import ConflictError, StoreUnavailableError

if TYPE_CHECKING:
    from eventsourcing.persistence import (
        AggregateRecorder,
        ApplicationRecorder,
        InfrastructureFactory,
        StoredEvent,
    )

    from app.store.live import LogListener

PRESENCE_TABLE: Final = "stored_presence"
"""The table of which process holds a feed of which seat (app.runtime.presence)."""

STORED_FORM: Final = 3
"""The stored form this build reads and writes: compact rows under stream keys. A store is
marked with it when created, or when ``basra store migrate`` has rewritten an earlier one
(forms 1 and 2: JSON rows under match ids, docs/storage.md "One stored form")."""

MIGRATE_HINT: Final = "run `basra store migrate` (with no server running) to rewrite it once"
"""What a process opening an unmigrated store is told to do."""


class LogRow(NamedTuple):
    """One stored row of the global log: its position, stream name, seq, stored topic, state."""

    position: int
    stream: str
    seq: int
    topic: str
    state: bytes


OnRow = Callable[[int, str, int, str, bytes], None]
"""Told (position, stream name, seq, stored topic, state) of each row the database pushes."""

Run = Callable[[str, tuple[Any, ...]], list[Any]]
"""One statement in an open transaction (``{t}`` the stream numbers' table, ``{e}`` the events'
table, ``{p}`` a parameter), returning its rows."""


@contextlib.contextmanager
def translated_errors(match_id: str | None = None) -> Iterator[None]:
    """Turn eventsourcing's persistence errors into this project's errors."""
    from eventsourcing.persistence import IntegrityError, PersistenceError

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


class Backend(abc.ABC):
    """One store's connections, schema, lock and the operations that differ between stores.

    Opened for serving (``migrating=False``), it shares the store's lock with every other
    process serving or reading it and refuses a store of an earlier form
    (StoreNotMigratedError); opened for ``basra store migrate`` it holds the lock alone and
    opens any form.
    """

    kind: ClassVar[StoreKind]
    never_waits: ClassVar[bool] = False
    """Whether a call never waits on a lock, a disk or a network (memory only): the API may then
    run short store calls on its event loop."""
    config: StoreConfig
    factory: InfrastructureFactory[Any]
    events: ApplicationRecorder
    """The match streams and the global log (table ``stored_events``)."""
    gate: Callable[[], contextlib.AbstractContextManager[None]] = contextlib.nullcontext
    """Entered around every statement of the backend's own (the store's gate of calls under
    way, set by the store that owns it): closing waits for them, then refuses new ones."""

    # -- opening and closing ----------------------------------------------------------------

    @classmethod
    @abc.abstractmethod
    def open(cls, config: StoreConfig, *, migrating: bool = False) -> Backend:
        """The store ``config`` describes, its tables made when missing."""

    @classmethod
    def adopt(cls, factory: InfrastructureFactory[Any], config: StoreConfig) -> Backend:
        """A backend over recorders of a factory made elsewhere (a benchmark's library-made
        factory), with no lock and no form check."""
        raise NotImplementedError(f"the {cls.kind} store makes its own factory")

    @abc.abstractmethod
    def reopen(self) -> Backend:
        """Another handle on the same store with its own connections, as another process
        would have."""

    def close(self) -> None:
        """Release the connections and the store's lock."""
        self.factory.close()

    # -- the stored form --------------------------------------------------------------------

    def form(self) -> int:
        """The stored form the store is marked with (STORED_FORM once migrated)."""
        return STORED_FORM

    def mark_form(self) -> None:
        """Mark the store as being in STORED_FORM (the end of a migration)."""
        return None

    # -- appends, reads, the log ------------------------------------------------------------

    def insert(self, rows: Sequence[StoredEvent]) -> Sequence[int] | None:
        """Insert rows of any streams in one transaction; their log positions (group commit)."""
        return self.events.insert_events(rows)

    def log_rows(self, position: int, limit: int, topics: Sequence[str]) -> list[LogRow]:
        """Up to ``limit`` rows of the log after ``position`` (of these stored topics, if any)."""
        rows = self.events.select_notifications(
            start=position, limit=limit, topics=topics, inclusive_of_start=False
        )
        return [
            LogRow(n.id, str(n.originator_id), n.originator_version, n.topic, n.state) for n in rows
        ]

    def listen(self, position: int, on_row: OnRow) -> LogListener | None:
        """A listener the database pushes every log row after ``position`` to, not started;
        None where the database cannot push (the log is polled)."""
        return None

    # -- snapshots and side tables ----------------------------------------------------------

    @property
    @abc.abstractmethod
    def snapshots(self) -> AggregateRecorder:
        """The snapshots' recorder (table ``stored_snapshots``)."""

    @abc.abstractmethod
    def drop_snapshots(self) -> int:
        """Delete every snapshot; how many there were."""

    @abc.abstractmethod
    def side_recorder(self, purpose: str) -> AggregateRecorder:
        """The recorder of the table ``stored_PURPOSE`` (players, support) beside the streams."""

    @abc.abstractmethod
    def side_rows(self, recorder: AggregateRecorder, ids: list[str]) -> list[StoredEvent]:
        """Every row of these streams of a side table, by stream then seq, in one read."""

    @abc.abstractmethod
    def side_versions(self, recorder: AggregateRecorder) -> dict[str, int]:
        """Each stream of a side table and its last seq (one scan of its key)."""

    def side_appended(self, recorder: AggregateRecorder, rows: Sequence[StoredEvent]) -> None:
        """Rows were appended to a side table (the in-memory store notes their versions)."""
        return None

    # -- stream numbers (app.store.streams) -------------------------------------------------

    @abc.abstractmethod
    def stream_number(self, match_id: str) -> int | None:
        """The number the match's stream is stored under, if it has one."""

    @abc.abstractmethod
    def stream_matches(self, numbers: Sequence[int]) -> dict[int, str]:
        """The match id of each of these stream numbers that names one."""

    @abc.abstractmethod
    def assign_stream(self, match_id: str) -> int:
        """The match's stream number: the one it has, or a new one (in one transaction)."""

    # -- presence (app.runtime.presence) ----------------------------------------------------
    # One row per (match, seat, process) while that process holds a feed of that seat open,
    # its ``beat`` (Unix seconds) refreshed by the process; an old beat is a process gone.

    @abc.abstractmethod
    def presence_write(
        self,
        process: str,
        holds: Sequence[tuple[str, int]],
        releases: Sequence[tuple[str, int]],
        beat: float,
    ) -> None:
        """In one transaction: the process holds a feed of each (match, seat) of ``holds`` (its
        row written or refreshed to ``beat``) and of none of ``releases`` (its row deleted)."""

    @abc.abstractmethod
    def presence_beat(self, process: str, beat: float, gone_before: float) -> list[tuple[str, int]]:
        """Refresh every row of the process to ``beat`` (one statement) and delete every row of
        any process whose beat is older than ``gone_before``; the (match, seat) of each row the
        process has."""

    @abc.abstractmethod
    def presence_release_all(self, process: str) -> None:
        """The process stops: every row of it deleted."""

    @abc.abstractmethod
    def presence_elsewhere(self, process: str, live_since: float) -> bool:
        """Whether any process other than ``process`` holds a seat, its beat ``live_since`` or
        later (one row read at most)."""

    @abc.abstractmethod
    def presence_seats(
        self, match_ids: Sequence[str], process: str, live_since: float
    ) -> dict[str, frozenset[int]]:
        """For each of these matches that has any, the seats held by a process other than
        ``process`` whose beat is ``live_since`` or later."""

    # -- migration (app.store.migration) ----------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Run]:
        """Statements in one committed transaction on the store's own connections."""
        raise NotImplementedError(f"the {self.kind} store has nothing to migrate")
        yield  # pragma: no cover

    position_column: ClassVar[str] = "rowid"
    """The events table's column holding a row's log position."""


BACKENDS: Final[dict[str, str]] = {
    "memory": "app.store.memory:MemoryBackend",
    "sqlite": "app.store.sqlite:SQLiteBackend",
    "postgres": "app.store.postgres:PostgresBackend",
}
"""Where each kind of store's backend class lives (imported when that store is opened)."""


def backend_class(kind: str) -> type[Backend]:
    """The backend class of a kind of store."""
    module, name = BACKENDS[kind].split(":")
    found: type[Backend] = getattr(importlib.import_module(module), name)
    return found
