"""The PostgreSQL store's guard over eventsourcing (app/store/postgres.py, docs/architecture.md
L19): what it relies on in the library, checked so that these fail when the library changes
under the store, and how the guard answers while the database is down and once it is back.

No database is needed here: the datastores below are the library's own class with
``get_connection`` standing in for a database that refuses or answers.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore, PostgresFactory

from app.config import PostgresSettings
from app.errors import StoreUnavailableError
from app.store.postgres import (
    CONNECT_TIMEOUT_SECONDS,
    POOL_WAIT_SECONDS,
    RECONNECT_GIVE_UP_SECONDS,
    Breaker,
    GuardedApplicationRecorder,
    GuardedConnections,
    GuardedPostgresFactory,
    breaker_of,
    factory_env,
)

UNREACHABLE = PostgresSettings(host="127.0.0.1", port="1", dbname="basra", user="basra")
"""Settings no connection is ever made with (nothing listens on port 1)."""


class FakeConnection:
    """What a recorder or the guard asks of a connection here: a query, and whether it broke."""

    closed = False

    def execute(self, query: str) -> None:
        """Answer any query."""


class StandInDatastore(PostgresDatastore):
    """The library's datastore whose ``get_connection`` answers for a database that is down
    (``down``: raises ``error``) or up (hands out a FakeConnection), counting the calls."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__("basra", "127.0.0.1", 1, "basra", "")
        self.error = error if error is not None else OperationalError("connection refused")
        self.down = True
        self._lock = threading.Lock()
        self.calls = 0

    def register_type_adapters(self) -> None:
        """Nothing to fetch: the library's recorders (9.5.6 on) ask the database for their
        composite types when they are made, and there is no database here."""

    @contextlib.contextmanager
    def get_connection(self) -> Iterator[Any]:
        """A FakeConnection, or ``error`` while down."""
        with self._lock:
            self.calls += 1
        if self.down:
            raise self.error
        yield FakeConnection()


def recorder_calls(recorder: PostgresApplicationRecorder) -> dict[str, Callable[[], object]]:
    """One call of each of the recorder's retried methods the store uses."""
    event = StoredEvent(originator_id="m-1", originator_version=1, topic="basra:t", state=b"{}")
    return {
        "insert_events": lambda: recorder.insert_events([event]),
        "select_events": lambda: recorder.select_events("m-1"),
        "select_notifications": lambda: recorder.select_notifications(start=0, limit=10),
        "max_notification_id": recorder.max_notification_id,
    }


METHODS = ("insert_events", "select_events", "select_notifications", "max_notification_id")
"""The recorder's methods the store calls, each retried by the library."""


def in_threads(calls: dict[str, Callable[[], object]]) -> dict[str, BaseException | None]:
    """Run each call on a thread of its own; what each raised."""
    raised: dict[str, BaseException | None] = {}

    def run(name: str, call: Callable[[], object]) -> None:
        try:
            call()
            raised[name] = None
        except BaseException as error:  # handed back to the test
            raised[name] = error

    threads = [threading.Thread(target=run, args=item) for item in calls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return raised


@pytest.mark.parametrize("error", [OperationalError("refused"), InterfaceError("closed")])
def test_the_library_retries_each_call_ten_times_each_time_through_get_connection(
    error: Exception,
) -> None:
    # given the library's own recorders, each on a datastore whose database is down
    datastores = {name: StandInDatastore(error) for name in METHODS}
    calls = {
        name: recorder_calls(PostgresApplicationRecorder(datastore))[name]
        for name, datastore in datastores.items()
    }
    # when each of the store's calls is made once
    started = time.monotonic()
    raised = in_threads(calls)
    # then each failed with the library's error after 10 tries, each taking a connection
    # through the datastore, about 0.2 s apart: the ~50 s a call took with a 5 s pool wait
    assert all(isinstance(e, type(error)) for e in raised.values()), raised
    assert {name: d.calls for name, d in datastores.items()} == dict.fromkeys(METHODS, 10)
    assert time.monotonic() - started >= 9 * 0.2 * 0.9


def test_an_error_the_library_does_not_retry_ends_its_retries_at_once() -> None:
    # given the library's own recorder on a datastore that refuses with the store's error
    datastore = StandInDatastore(StoreUnavailableError("refused at once"))
    recorder = PostgresApplicationRecorder(datastore)
    calls = recorder_calls(recorder)
    # when each call is made
    raised = in_threads(calls)
    # then each one took a single try
    assert all(isinstance(e, StoreUnavailableError) for e in raised.values()), raised
    assert datastore.calls == len(calls)


def test_the_librarys_log_subscription_takes_its_connections_through_the_recorder() -> None:
    # given a guarded recorder whose breaker is open
    datastore = StandInDatastore()
    recorder = GuardedApplicationRecorder(datastore)
    breaker_of(recorder).failed(OSError("down"))
    # when the log is followed through the library's subscription
    subscription = recorder.subscribe(gt=0)
    started = time.monotonic()
    # then its reads and its LISTEN are refused by the guard at once, not after retries
    with pytest.raises(StoreUnavailableError), subscription:
        next(iter(subscription))
    assert time.monotonic() - started < 2.0
    assert datastore.calls == 0


def test_the_library_builds_its_pool_without_the_two_settings_the_factory_adds() -> None:
    # given the library's factory and the store's, on the same settings
    env = factory_env(UNREACHABLE) | {"CREATE_TABLE": "no"}
    plain = PostgresFactory(env)
    guarded = GuardedPostgresFactory(env)
    try:
        # then the library leaves psycopg_pool's 5 minutes of reconnecting and no libpq
        # connect_timeout (when it passes its own, the factory should use it instead: L19)
        assert plain.datastore.pool.reconnect_timeout == 300.0
        assert isinstance(plain.datastore.pool.kwargs, dict)
        assert "connect_timeout" not in plain.datastore.pool.kwargs
        # and the store's factory bounds both on the library's own pool, whose wait for a
        # connection is the library's POSTGRES_CONNECT_TIMEOUT
        pool = guarded.datastore.pool
        assert type(pool) is type(plain.datastore.pool)
        assert pool.reconnect_timeout == RECONNECT_GIVE_UP_SECONDS
        assert isinstance(pool.kwargs, dict)
        assert pool.kwargs["connect_timeout"] == CONNECT_TIMEOUT_SECONDS
        assert pool.timeout == POOL_WAIT_SECONDS
    finally:
        plain.close()
        guarded.close()


def test_the_factorys_recorders_are_guarded_and_share_one_breaker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given the store's factory (tables not created, composite types not fetched: no database
    # here)
    monkeypatch.setattr(PostgresDatastore, "register_type_adapters", lambda self: None)
    factory = GuardedPostgresFactory(factory_env(UNREACHABLE) | {"CREATE_TABLE": "no"})
    try:
        # when it makes the events', the snapshots' and a side table's recorders
        events = factory.application_recorder()
        snapshots = factory.aggregate_recorder("snapshots")
        players = factory.aggregate_recorder("players")
        # then each takes its connections from the factory's own datastore through one breaker
        guards = [r.datastore for r in (events, snapshots, players)]  # type: ignore[attr-defined]
        assert all(isinstance(g, GuardedConnections) for g in guards)
        assert len({id(breaker_of(r)) for r in (events, snapshots, players)}) == 1
        assert guards[0].schema == factory.datastore.schema
    finally:
        factory.close()


def test_while_open_a_retried_call_is_refused_after_one_try() -> None:
    # given a guarded recorder on a database that is down
    datastore = StandInDatastore()
    recorder = GuardedApplicationRecorder(datastore)
    calls = recorder_calls(recorder)
    # when each call is made
    started = time.monotonic()
    raised = in_threads(calls)
    # then each failed with the store's error within one retry's wait, not ten tries; the
    # first failure opened the breaker, and every later try was refused without a connection
    assert all(isinstance(e, StoreUnavailableError) for e in raised.values()), raised
    assert time.monotonic() - started < 1.0
    assert datastore.calls <= len(calls)
    assert breaker_of(recorder).trips == 1


def test_a_probe_that_keeps_its_connection_lets_the_other_calls_through() -> None:
    # given a breaker opened by a failure, its wait over, and the database back
    datastore = StandInDatastore()
    guard = GuardedConnections(datastore, Breaker(open_seconds=0.01))
    with pytest.raises(OperationalError), guard.get_connection():
        pass
    assert guard.breaker.is_open
    datastore.down = False
    time.sleep(0.02)
    # when the probe is a caller that keeps its connection open (the log listener's LISTEN)
    with guard.get_connection():
        # then the breaker closed as soon as the connection answered, and another thread's
        # call goes through while the probe still holds its connection
        assert not guard.breaker.is_open
        outcome: list[str] = []

        def other() -> None:
            with guard.get_connection():
                outcome.append("through")

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(5)
        assert outcome == ["through"]


def test_an_error_on_a_connection_that_stays_open_is_the_database_answering() -> None:
    # given a guard on a database that is up
    datastore = StandInDatastore()
    datastore.down = False
    guard = GuardedConnections(datastore, Breaker())
    # when a statement fails on a live connection (a cancelled query, a lock timeout)
    with pytest.raises(OperationalError), guard.get_connection():
        raise OperationalError("canceling statement due to lock timeout")
    # then the breaker stays closed
    assert not guard.breaker.is_open and guard.breaker.trips == 0


class CountingPool:
    """A pool whose ``check`` (psycopg_pool's sweep of its idle connections) is counted."""

    def __init__(self) -> None:
        self.checks = 0

    def check(self) -> None:
        """Count a sweep."""
        self.checks += 1


def test_a_probe_first_sweeps_the_pool_of_connections_broken_by_a_restart() -> None:
    # given a breaker opened by a failure, its wait over, and the database back
    datastore = StandInDatastore()
    pool = CountingPool()
    datastore.pool = pool  # type: ignore[assignment]
    guard = GuardedConnections(datastore, Breaker(open_seconds=0.01))
    with pytest.raises(OperationalError), guard.get_connection():
        pass
    assert pool.checks == 0  # a closed breaker's calls never sweep
    datastore.down = False
    time.sleep(0.02)
    # when the next call is admitted as the probe
    with guard.get_connection():
        pass
    # then the pool was swept once, before the probe took its connection, and the breaker closed
    assert pool.checks == 1
    assert not guard.breaker.is_open
    # and calls of a closed breaker do not sweep again
    with guard.get_connection():
        pass
    assert pool.checks == 1
