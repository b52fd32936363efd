"""The PostgreSQL store (``PostgresBackend``): the store's schema must exist before
eventsourcing creates tables, and while the database is out of reach the store refuses at once
instead of waiting out eventsourcing's retries (docs/architecture.md L19, docs/deploy.md "When
PostgreSQL restarts").

The store's lock is a session advisory lock on a key of the schema's name, held shared on a
connection of its own by every process that has the store open and alone by ``basra store
migrate`` (docs/storage.md, "One stored form"); the stored form is the one row of the table
``stored_form``.

The store reaches PostgreSQL through eventsourcing's own factory, datastore and connection pool.
``GuardedPostgresFactory`` is that factory with two changes made through the library's public
extension points: it is named by its topic in ``PERSISTENCE_MODULE``, and its recorder classes
(the library's PostgreSQL recorders, subclassed) take every connection through a ``Breaker``.
The application recorder also inserts by one call of a database function of the store's
(docs/architecture.md L23).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

import psycopg
from eventsourcing.persistence import (
    InfrastructureFactory,
    InterfaceError,
    OperationalError,
    StoredEvent,
)
from eventsourcing.postgres import (
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresDatastore,
    PostgresFactory,
)
from eventsourcing.utils import Environment, EnvType, get_topic, retry
from psycopg import Connection, Cursor, sql
from psycopg.rows import DictRow

from app.config import PostgresSettings, StoreConfig
from app.errors import StoreNotMigratedError, StoreUnavailableError
from app.store.backend import MIGRATE_HINT, STORED_FORM, OnRow, translated_errors
from app.store.live import notify_payload
from app.store.sql import PRESENCE_INDEX, PRESENCE_SCHEMA, SqlBackend
from app.store.streams import STREAMS_TABLE

if TYPE_CHECKING:
    from eventsourcing.persistence import AggregateRecorder

    from app.store.live import LogListener

log = logging.getLogger("basra.store.postgres")


def connect(settings: PostgresSettings) -> psycopg.Connection[tuple[object, ...]]:
    """A plain autocommit connection, for administration (schemas), not for events."""
    try:
        return psycopg.connect(
            dbname=settings.dbname,
            host=settings.host,
            port=settings.port,
            user=settings.user,
            password=settings.password,
            autocommit=True,
            connect_timeout=5,
        )
    except psycopg.Error as error:
        raise StoreUnavailableError(
            f"cannot reach PostgreSQL at {settings.describe()}: {error}".strip()
        ) from None


def ensure_schema(settings: PostgresSettings) -> None:
    """``CREATE SCHEMA IF NOT EXISTS`` the settings' schema."""
    if settings.schema == "public":
        return
    # Another process creating the same schema at the same moment is not an error.
    with connect(settings) as connection, contextlib.suppress(psycopg.errors.UniqueViolation):
        connection.execute(
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(settings.schema))
        )


@contextlib.contextmanager
def creating_tables(
    settings: PostgresSettings, connection: psycopg.Connection[tuple[object, ...]] | None = None
) -> Iterator[None]:
    """Hold the store's advisory lock while creating its tables, so one process at a time does.

    eventsourcing creates its tables, indexes and types with ``CREATE … IF NOT EXISTS`` when a
    recorder is made. Two server processes starting on a fresh database at the same moment
    can both find a table missing and both create it, and PostgreSQL then fails one of them
    (``tuple concurrently updated``, or a unique violation in its catalog): that process does
    not start. Under this lock the second finds everything made. The lock is PostgreSQL's
    session-level advisory lock on a key of the schema's name, held on a connection of its own
    for as long as the tables are being made (closing the connection releases it too).
    """
    key = f"basra-tables:{settings.schema}"
    with contextlib.ExitStack() as stack:
        if connection is None:
            connection = stack.enter_context(connect(settings))
        try:
            connection.execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
        except psycopg.Error as error:
            raise StoreUnavailableError(f"cannot lock the store's tables: {error}") from None
        try:
            yield
        finally:
            with contextlib.suppress(psycopg.Error):
                connection.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))


def drop_schema(settings: PostgresSettings) -> None:
    """Drop the settings' schema and everything in it (tests clean up with this)."""
    if settings.schema == "public":
        raise ValueError("refusing to drop the public schema")
    with connect(settings) as connection:
        connection.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(settings.schema))
        )


POOL_WAIT_SECONDS = 2
"""How long a store call waits for a pooled connection: eventsourcing's
``POSTGRES_CONNECT_TIMEOUT`` (whole seconds; the store used 5 before the breaker)."""

RECONNECT_GIVE_UP_SECONDS = 1.0
"""How long the pool keeps retrying one lost connection in the background before it gives up
and leaves the next call to start again. psycopg_pool's default retries for 5 minutes with a
delay that doubles each time (1, 2, 4, … s), so after a long outage its next try could come
minutes after the database is back; eventsourcing has no setting for it (L19)."""

CONNECT_TIMEOUT_SECONDS = 2
"""libpq's ``connect_timeout`` for the pool's connections: a host that does not answer at all
(rather than refusing) holds one of the pool's reconnecting threads at most this long (2 is
libpq's least); eventsourcing has no setting for it (L19)."""

OPEN_SECONDS = 1.0
"""How long the store refuses at once after the database failed to answer, before one call
tries it again."""


class Breaker:
    """A circuit breaker over the database: after a connection failure, refuse at once.

    Closed (the database answers), every call goes through. A call that fails to reach the
    database opens it: for ``open_seconds`` every call is refused at once with
    StoreUnavailableError instead of waiting on the pool. Then one call (the probe) goes
    through, the others still refused until it has its answer: a connection that answers a
    query closes the breaker; a failure opens it for another ``open_seconds``. Only the probe
    closes it: a call admitted before the outage that happens to succeed says nothing about
    now. Thread-safe: every request thread and the log listener of a process share one.
    """

    def __init__(
        self, open_seconds: float = OPEN_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.open_seconds = open_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._open_until: float | None = None  # None: closed
        self._probe: int | None = None  # the thread trying the database while open
        self.trips = 0
        """How many times it opened (a closed breaker that saw a failure)."""
        self.refusals = 0
        """How many calls it refused at once."""

    @property
    def is_open(self) -> bool:
        """True while the database is taken to be down."""
        with self._lock:
            return self._open_until is not None

    def admit(self) -> bool:
        """Let a call through (True when it is the probe of an open breaker), or raise
        StoreUnavailableError at once while open."""
        with self._lock:
            if self._open_until is None:
                return False
            wait = self._open_until - self._clock()
            if wait > 0 or self._probe is not None:
                self.refusals += 1
                raise StoreUnavailableError(
                    "the event store is unavailable: PostgreSQL did not answer; "
                    f"trying again in {max(wait, 0.0):.1f} s"
                )
            self._probe = threading.get_ident()
            return True

    def failed(self, error: BaseException) -> None:
        """A call could not reach the database: open (again) for ``open_seconds``."""
        with self._lock:
            if self._open_until is None:
                self.trips += 1
                log.warning(
                    "PostgreSQL did not answer (%s); refusing for %.1f s", error, self.open_seconds
                )
            self._open_until = self._clock() + self.open_seconds
            if self._probe == threading.get_ident():
                self._probe = None

    def answered(self) -> None:
        """The probe reached the database: close."""
        with self._lock:
            if self._probe != threading.get_ident():
                return  # not the probe (or its breaker was closed meanwhile)
            log.warning("PostgreSQL answers again")
            self._open_until = None
            self._probe = None

    def abandoned(self) -> None:
        """The probe ended without an answer either way (interrupted): another may probe."""
        with self._lock:
            if self._probe == threading.get_ident():
                self._probe = None


class GuardedConnections:
    """eventsourcing's PostgreSQL datastore as the recorders see it, every connection taken
    through a Breaker.

    Each recorder call of the library takes its connection with ``get_connection`` inside the
    library's retries (up to 10 attempts: L19); so once the breaker is open a retry is refused
    at once with StoreUnavailableError, which the library does not retry, instead of waiting
    for the pool again. Everything else is the datastore's own (its pool, its settings).
    """

    def __init__(self, datastore: PostgresDatastore, breaker: Breaker) -> None:
        # A weak reference: the factory owns the datastore, and the table of guards below
        # must not keep a closed store's datastore alive.
        self.datastore: PostgresDatastore = weakref.proxy(datastore)
        self.breaker = breaker

    def __getattr__(self, name: str) -> Any:
        """The datastore's own attributes (schema, types, settings)."""
        return getattr(self.datastore, name)

    @contextlib.contextmanager
    def get_connection(self) -> Iterator[Connection[DictRow]]:
        """A pooled connection, unless the breaker refuses at once (StoreUnavailableError).

        A probe asks the connection a trivial query before handing it on, so that the breaker
        closes as soon as the database answers, even when the caller keeps the connection for
        a long time (the log listener's LISTEN).
        """
        probe = self.breaker.admit()
        if probe:
            self._sweep_pool()
        taken: Connection[DictRow] | None = None
        try:
            with self.datastore.get_connection() as connection:
                taken = connection
                if probe:
                    connection.execute("SELECT 1")
                    self.breaker.answered()
                    probe = False
                yield connection
        except (InterfaceError, OperationalError) as error:
            # No connection from the pool, or the one taken broke: the database is out of
            # reach. An error on a connection still open is the database answering.
            if probe or taken is None or taken.closed:
                self.breaker.failed(error)
                probe = False
            raise
        finally:
            if probe:
                self.breaker.abandoned()

    def _sweep_pool(self) -> None:
        """Before a probe, drop the pooled connections that broke while the database was away.

        A restart of PostgreSQL closes every connection the pool holds, and the pool only finds
        out when one is used: each would fail one probe and keep the breaker open another
        ``open_seconds``, so a process with N such connections would take N probes to recover.
        psycopg_pool's ``check`` tests each idle connection once, discards the broken ones and
        starts replacing them, so the probe gets a connection that answers.
        """
        check = getattr(getattr(self.datastore, "pool", None), "check", None)
        if check is None:
            return
        try:
            check()
        except Exception as error:  # the probe that follows finds out what is wrong
            log.debug("checking the pool before a probe failed: %s", error)

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Cursor[DictRow]]:
        """A cursor on a guarded connection (as the datastore's own ``cursor``)."""
        with self.get_connection() as connection:
            yield connection.cursor()

    @contextlib.contextmanager
    def transaction(self, *, commit: bool = False) -> Iterator[Cursor[DictRow]]:
        """A transaction on a guarded connection (as the datastore's own ``transaction``)."""
        with self.get_connection() as connection, connection.transaction(force_rollback=not commit):
            yield connection.cursor()


_GUARDS: weakref.WeakKeyDictionary[PostgresDatastore, GuardedConnections] = (
    weakref.WeakKeyDictionary()
)
_GUARDS_LOCK = threading.Lock()


def guarded(datastore: PostgresDatastore) -> GuardedConnections:
    """The one guard of ``datastore``: every recorder on one pool shares one breaker."""
    with _GUARDS_LOCK:
        guard = _GUARDS.get(datastore)
        if guard is None:
            guard = _GUARDS[datastore] = GuardedConnections(datastore, Breaker())
        return guard


def breaker_of(recorder: object) -> Breaker:
    """The breaker a guarded recorder takes its connections through."""
    datastore = getattr(recorder, "datastore", None)
    if not isinstance(datastore, GuardedConnections):
        raise TypeError(f"{type(recorder).__name__} is not a guarded PostgreSQL recorder")
    return datastore.breaker


class GuardedAggregateRecorder(PostgresAggregateRecorder):
    """eventsourcing's PostgreSQL aggregate recorder (snapshots, players, support), its
    connections taken through the datastore's Breaker."""

    def __init__(
        self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"
    ) -> None:
        # The recorder only calls the datastore's public methods and reads its settings,
        # which the guard passes on: the library's own pool serves every connection.
        guard = cast(PostgresDatastore, guarded(datastore))
        super().__init__(guard, events_table_name=events_table_name)


INSERT_MODE_VARIABLE = "BASRA_POSTGRES_INSERT"
"""``function`` (the default): events are inserted by one call of the store's database function
(the table's lock, the NOTIFY and the insert in one statement); ``library``: through
eventsourcing's own pipelined statements. Both take the same lock and give the same log."""


class GuardedApplicationRecorder(PostgresApplicationRecorder):
    """eventsourcing's PostgreSQL application recorder (the match streams and the global
    log, its LISTEN/NOTIFY subscriptions too), its connections taken through the datastore's
    Breaker, its inserts made by one database function call (docs/architecture.md L23)."""

    def __init__(
        self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"
    ) -> None:
        guard = cast(PostgresDatastore, guarded(datastore))
        super().__init__(guard, events_table_name=events_table_name)
        mode = os.environ.get(INSERT_MODE_VARIABLE, "function")
        if mode not in ("function", "library"):
            raise StoreUnavailableError(
                f"{INSERT_MODE_VARIABLE} must be 'function' or 'library', not {mode!r}"
            )
        self.insert_by_function = mode == "function"
        self.locked_insert_function = f"basra_insert_notify_{datastore.originator_id_type}"
        schema = sql.Identifier(datastore.schema)
        # The library's own insert (POSTGRES_ENABLE_DB_FUNCTIONS) with the table's EXCLUSIVE lock
        # its pipelined insert takes: without the lock a follower of the log could pass an id
        # that commits later (L17). The rows come as four arrays, one a column, so that no
        # composite type has to be read from the database when the recorder is made. The
        # NOTIFY carries the rows themselves (the schema and their positions put in front of
        # ``payload``, which the caller wrote: app.store.live.notify_payload), so that a process
        # following the log has them without reading it; an empty payload says "read the log".
        # (A channel is the database's, not the schema's: the schema says whose rows they are.)
        self.sql_create_statements.append(
            sql.SQL(
                "CREATE OR REPLACE FUNCTION {schema}.{function}("
                "ids {id_type}[], versions bigint[], topics text[], states bytea[], payload text)"
                " RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$"
                " DECLARE positions bigint[]; BEGIN"
                " SET LOCAL lock_timeout = '{lock_timeout}s';"
                " LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE;"
                " WITH inserted AS (INSERT INTO {schema}.{table}"
                " (originator_id, originator_version, topic, state)"
                " SELECT * FROM unnest(ids, versions, topics, states)"
                " RETURNING notification_id)"
                " SELECT array_agg(notification_id ORDER BY notification_id) INTO positions"
                " FROM inserted;"
                " PERFORM pg_notify({channel}, CASE WHEN payload = '' THEN ''"
                " ELSE {schema_name} || chr(9) || array_to_string(positions, ',')"
                " || chr(10) || payload END);"
                " RETURN QUERY SELECT unnest(positions);"
                " END; $BODY$"
            ).format(
                schema=schema,
                function=sql.Identifier(self.locked_insert_function),
                id_type=sql.SQL(datastore.originator_id_type),
                lock_timeout=sql.Literal(int(datastore.lock_timeout)),
                table=sql.Identifier(self.events_table_name),
                channel=sql.Literal(self.channel_name),
                schema_name=sql.Literal(datastore.schema),
            )
        )
        # The four arrays go as array literals in text (text_array, bytea_array), cast in
        # the statement.
        self._invoke_locked_insert = sql.SQL(
            "SELECT * FROM {}.{}(%s::{id_type}[], %s::bigint[], %s::text[], %s::bytea[], %s)"
        ).format(
            schema,
            sql.Identifier(self.locked_insert_function),
            id_type=sql.SQL(datastore.originator_id_type),
        )

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Insert the events in one transaction and return their notification ids."""
        if not self.insert_by_function or not stored_events:
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        positions: list[int] = self._insert_by_function(stored_events)  # (retry is untyped)
        return positions

    # Retried as the library retries its own insert (a lost connection, a restart), through
    # the breaker, which refuses every try once the database is known to be down. (The
    # library's insert above carries its own retry.)
    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def _insert_by_function(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        columns = (
            text_array([str(e.originator_id) for e in stored_events]),
            "{" + ",".join(str(e.originator_version) for e in stored_events) + "}",
            text_array([e.topic for e in stored_events]),
            bytea_array([e.state for e in stored_events]),
            notify_payload(stored_events),
        )
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self._invoke_locked_insert, columns, prepare=True)
            return [int(row[self.locked_insert_function]) for row in cursor.fetchall()]


def text_array(values: Sequence[str]) -> str:
    """PostgreSQL's text form of an array of strings: every element quoted, ``"`` and ``\\``
    escaped with a backslash (the only two characters an element in quotes needs escaped).

    psycopg adapts a Python list to an array in Python, looking at every element's type at
    each call; for the four short lists of an append that was about a fifth of the append's
    CPU (docs/performance.md, "The rows as text"). One string a column, cast in the statement,
    is adapted in C.
    """
    return (
        "{"
        + ",".join('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' for value in values)
        + "}"
    )


def bytea_array(values: Sequence[bytes]) -> str:
    """PostgreSQL's text form of an array of bytea: each element in bytea's hex form
    (``\\x…``), its backslash escaped for the array."""
    return "{" + ",".join('"\\\\x' + value.hex() + '"' for value in values) + "}"


class GuardedPostgresFactory(PostgresFactory):
    """eventsourcing's PostgreSQL factory, its recorders guarded by a Breaker and its pool's
    reconnection bounded (docs/architecture.md L19).

    Named by its topic in ``PERSISTENCE_MODULE``; the library makes the datastore and the pool
    from the ``POSTGRES_*`` settings as usual, then two of the pool's own public settings that
    the library does not pass are set on it (``reconnect_timeout``, libpq's ``connect_timeout``)
    before it opens.
    """

    aggregate_recorder_class = GuardedAggregateRecorder
    application_recorder_class = GuardedApplicationRecorder

    def __init__(self, env: Environment | EnvType | None) -> None:
        super().__init__(env)
        pool = self.datastore.pool
        pool.reconnect_timeout = RECONNECT_GIVE_UP_SECONDS
        if isinstance(pool.kwargs, dict):  # the library passes a dict of connection settings
            pool.kwargs["connect_timeout"] = CONNECT_TIMEOUT_SECONDS


FACTORY_TOPIC = get_topic(GuardedPostgresFactory)
"""``PERSISTENCE_MODULE`` for the guarded factory (eventsourcing accepts a factory's topic)."""


def factory_env(settings: PostgresSettings) -> dict[str, str]:
    """eventsourcing's settings for the store's PostgreSQL factory."""
    return {
        "PERSISTENCE_MODULE": FACTORY_TOPIC,
        "ORIGINATOR_ID_TYPE": "text",
        "POSTGRES_CONNECT_TIMEOUT": str(POOL_WAIT_SECONDS),
        **settings.env(),
    }


FORM_TABLE: Final = "stored_form"
"""The one-row table holding the schema's stored form."""


def _regclass(connection: psycopg.Connection[tuple[object, ...]], schema: str, table: str) -> bool:
    row = connection.execute(
        "SELECT to_regclass(%s) IS NOT NULL", (f'"{schema}"."{table}"',)
    ).fetchone()
    return bool(row and row[0])


def _stored_form(
    connection: psycopg.Connection[tuple[object, ...]], schema: str
) -> tuple[int, bool]:
    """The schema's stored form (0 before the table existed) and whether it has event rows."""
    form = 0
    if _regclass(connection, schema, FORM_TABLE):
        row = connection.execute(
            sql.SQL("SELECT max(form) FROM {}.{}").format(
                sql.Identifier(schema), sql.Identifier(FORM_TABLE)
            )
        ).fetchone()
        form = int(str(row[0])) if row and row[0] is not None else 0
    if form == STORED_FORM or not _regclass(connection, schema, "stored_events"):
        return form, False
    row = connection.execute(
        sql.SQL("SELECT EXISTS (SELECT 1 FROM {}.stored_events)").format(sql.Identifier(schema))
    ).fetchone()
    return form, bool(row and row[0])


def _take_store_lock(
    connection: psycopg.Connection[tuple[object, ...]], settings: PostgresSettings, alone: bool
) -> None:
    """The store's advisory lock on ``connection``: shared, or ``alone`` (docs/storage.md)."""
    function = "pg_try_advisory_lock" if alone else "pg_try_advisory_lock_shared"
    key = f"basra-store:{settings.schema}"
    try:
        row = connection.execute(f"SELECT {function}(hashtext(%s))", (key,)).fetchone()
    except psycopg.Error as error:
        raise StoreUnavailableError(f"cannot lock the store: {error}") from None
    if row and row[0]:
        return
    if alone:
        raise StoreUnavailableError(
            f"the store at {settings.describe()} is in use: stop every server and command "
            "using it, then run basra store migrate again"
        )
    raise StoreNotMigratedError(
        f"the store at {settings.describe()} is being migrated by basra store migrate: "
        "wait for it to end"
    )


class PostgresBackend(SqlBackend):
    """PostgreSQL through eventsourcing.postgres (the guarded factory above); several
    processes on one database."""

    kind = "postgres"
    position_column = "notification_id"
    insert_ignoring = "INSERT INTO {t} (match_id) VALUES ({p}) ON CONFLICT (match_id) DO NOTHING"

    def __init__(
        self,
        config: StoreConfig,
        factory: InfrastructureFactory[Any],
        lock: psycopg.Connection[tuple[object, ...]] | None,
    ) -> None:
        self.config = config
        self.settings = config.postgres
        assert self.settings is not None
        self.factory = factory
        self._lock: psycopg.Connection[tuple[object, ...]] | None = lock
        self.events = factory.application_recorder()
        self._snapshots = factory.aggregate_recorder("snapshots")

    @classmethod
    def open(cls, config: StoreConfig, *, migrating: bool = False) -> PostgresBackend:
        """The schema (created when missing), the store's lock taken, the tables made by one
        process at a time, the form checked."""
        settings = config.postgres
        assert settings is not None
        with translated_errors():
            ensure_schema(settings)
            lock = connect(settings)
            try:
                _take_store_lock(lock, settings, migrating)
                with creating_tables(settings, lock):
                    form, has_events = _stored_form(lock, settings.schema)
                    if form != STORED_FORM and has_events and not migrating:
                        raise StoreNotMigratedError(
                            f"the store at {settings.describe()} was written by an earlier "
                            f"build: {MIGRATE_HINT}"
                        )
                    # eventsourcing's own factory, named by topic, with recorders that refuse
                    # at once while the database is down instead of waiting out the library's
                    # retries (docs/architecture.md L19).
                    factory = InfrastructureFactory.construct(factory_env(settings))
                    try:
                        backend = cls(config, factory, lock)
                        backend._finish_schema(lock, form, mark=not migrating)
                    except BaseException:
                        factory.close()
                        raise
            except BaseException:
                lock.close()
                raise
        return backend

    @classmethod
    def adopt(cls, factory: InfrastructureFactory[Any], config: StoreConfig) -> PostgresBackend:
        """The recorders of a PostgreSQL factory made elsewhere, its tables as the library
        makes them (no lock, no form check)."""
        settings = config.postgres
        assert settings is not None
        with translated_errors(), creating_tables(settings):
            return cls(config, factory, None)

    def _finish_schema(
        self, connection: psycopg.Connection[tuple[object, ...]], form: int, *, mark: bool
    ) -> None:
        """The tables the library does not make (stream numbers, the form), a new store marked
        with this build's form (under the tables' lock)."""
        assert self.settings is not None
        schema = sql.Identifier(self.settings.schema)
        connection.execute(
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {}.{} "
                "(n BIGSERIAL PRIMARY KEY, match_id TEXT NOT NULL UNIQUE)"
            ).format(schema, sql.Identifier(STREAMS_TABLE))
        )
        # The presence table, on every open: a store written before it gets it now (its rows
        # live only while processes hold feeds, so nothing is migrated).
        with self.transaction() as run:
            run(PRESENCE_SCHEMA.replace("{real}", "DOUBLE PRECISION"), ())
            run(PRESENCE_INDEX, ())
        if form == STORED_FORM:
            return
        connection.execute(
            sql.SQL("CREATE TABLE IF NOT EXISTS {}.{} (form INTEGER NOT NULL)").format(
                schema, sql.Identifier(FORM_TABLE)
            )
        )
        if mark:
            self.mark_form()

    def reopen(self) -> PostgresBackend:
        """The same schema, opened again."""
        return PostgresBackend.open(self.config)

    def close(self) -> None:
        """Close the pool, then the lock's connection (which releases the lock)."""
        try:
            self.factory.close()
        finally:
            if self._lock is not None:
                with contextlib.suppress(psycopg.Error):
                    # Released here, answered, before the connection goes: the server ends a
                    # closed session's locks only as its backend exits, a moment later, and a
                    # migration started at once would find the store still in use.
                    self._lock.execute("SELECT pg_advisory_unlock_all()")
                with contextlib.suppress(psycopg.Error):
                    self._lock.close()
                self._lock = None

    def query(self, statement: str, tables: dict[str, str]) -> Any:
        """``%s`` parameters, tables in the store's schema."""
        assert self.settings is not None
        schema = sql.Identifier(self.settings.schema)
        names = {k: sql.SQL("{}.{}").format(schema, sql.Identifier(v)) for k, v in tables.items()}
        return sql.SQL(statement.replace("{p}", "%s")).format(**names)

    def form(self) -> int:
        """The form in ``stored_form``."""
        rows = self._read(f"SELECT max(form) AS form FROM {{{FORM_TABLE}}}", (), side=None)
        return int(rows[0]["form"] or 0) if rows else 0

    def _tables(self, side: str | None = None) -> dict[str, str]:
        return {**super()._tables(side), FORM_TABLE: FORM_TABLE}

    def mark_form(self) -> None:
        """One row, this build's form."""
        with self.transaction() as run:
            run(f"DELETE FROM {{{FORM_TABLE}}}", ())
            run(f"INSERT INTO {{{FORM_TABLE}}} (form) VALUES ({{p}})", (STORED_FORM,))

    def listen(self, position: int, on_row: OnRow) -> LogListener | None:
        """The store's LISTEN on the events' channel, on a thread of its own (app.store.live)."""
        from app.store.live import LogListener

        recorder = self.events
        assert isinstance(recorder, PostgresApplicationRecorder)
        return LogListener(recorder, position, on_row)

    @property
    def snapshots(self) -> AggregateRecorder:
        """The snapshots' recorder of this handle."""
        return self._snapshots

    def drop_snapshots(self) -> int:
        """Delete the snapshot table's rows."""
        table: Any = self._snapshots
        with self.transaction(side=table.events_table_name) as run:
            return len(run("DELETE FROM {s} RETURNING 1", ()))

    def side_recorder(self, purpose: str) -> AggregateRecorder:
        """The library's recorder of ``stored_PURPOSE``, created by one process at a time."""
        assert self.settings is not None
        with translated_errors(), creating_tables(self.settings):
            return self.factory.aggregate_recorder(purpose)
