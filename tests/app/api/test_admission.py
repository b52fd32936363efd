"""Admitting new tables at the rate a process can take: cut while it is full."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.edges.admission import (
    DECREASE,
    MAX_RATE,
    MIN_RATE,
    STEP,
    TICK_SECONDS,
    ProcessLoad,
    TableAdmission,
)
from app.api.edges.shedding import Shedding
from app.api.settings import ApiSettings
from app.config import StoreKind


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Full:
    """Whether the process was full at a look, set by the test."""

    def __init__(self, full: bool = False) -> None:
        self.full = full

    def __call__(self) -> bool:
        return self.full


def _asked(admission: TableAdmission, clock: Clock, per_second: float, seconds: float) -> int:
    """Tables asking at ``per_second`` for ``seconds``: how many were admitted."""
    admitted = 0
    for _ in range(round(per_second * seconds)):
        clock.now += 1 / per_second
        admitted += admission.admit()
    return admitted


def test_a_process_that_keeps_up_admits_every_table_however_many() -> None:
    # given a process whose store calls are picked up at once
    clock = Clock()
    admission = TableAdmission(Full(False), clock)
    # when 5,000 tables ask within one second
    admitted = _asked(admission, clock, 5000, 1.0)
    # then every one is admitted
    assert admitted == 5000
    assert admission.rate == MAX_RATE


def test_while_the_process_is_full_the_rate_is_cut_each_tick_down_to_the_floor() -> None:
    # given a process whose calls queue past the bound
    clock = Clock()
    full = Full(True)
    admission = TableAdmission(full, clock)
    rates = []
    # when tables keep asking, tick after tick
    for _ in range(30):
        clock.now += TICK_SECONDS
        admission.admit()
        rates.append(admission.rate)
    # then the rate was cut at each tick and stopped at the floor
    assert rates[:3] == [MAX_RATE * DECREASE, MAX_RATE * DECREASE**2, MAX_RATE * DECREASE**3]
    assert rates[-1] == MIN_RATE
    # and over ten seconds at the floor it admits about the floor's rate
    admitted = _asked(admission, clock, 100, 10.0)
    assert 0 < admitted <= MIN_RATE * 10 + 1
    assert admission.saturated()


def test_once_the_queue_clears_the_rate_grows_back_slowly_then_admits_all() -> None:
    # given a process at the floor
    clock = Clock()
    full = Full(True)
    admission = TableAdmission(full, clock)
    _asked(admission, clock, 100, 20.0)
    assert admission.rate == MIN_RATE
    # when its calls no longer queue
    full.full = False
    for _ in range(2):
        clock.now += TICK_SECONDS
        admission.admit()
    # then the rate grows by a step a tick, not at once
    assert admission.rate == MIN_RATE + 2 * STEP
    assert not admission.saturated()
    # and after long enough it admits everything again
    _asked(admission, clock, 100, MAX_RATE / STEP * TICK_SECONDS)
    assert admission.rate == MAX_RATE
    assert _asked(admission, clock, 1000, 1.0) == 1000


def test_spectators_and_lobby_reads_are_refused_only_once_the_queue_lasts() -> None:
    # given a process whose calls queue for one tick only
    clock = Clock()
    full = Full(True)
    admission = TableAdmission(full, clock)
    clock.now += TICK_SECONDS
    # then one tick is not saturation (a burst of set-ups); a second one in a row is
    assert not admission.saturated()
    clock.now += TICK_SECONDS
    assert admission.saturated()
    # and one tick without queueing ends it
    full.full = False
    clock.now += TICK_SECONDS
    assert not admission.saturated()


def test_admission_off_admits_everything() -> None:
    # given admission off (no signal of a full process)
    clock = Clock()
    admission = TableAdmission(None, clock)
    # then every table is admitted and nothing is saturated
    assert _asked(admission, clock, 100, 5.0) == 500
    assert not admission.saturated()


@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0.001, max_value=2.0),  # time until the next ask
            st.booleans(),  # whether the calls queue then
        ),
        min_size=1,
        max_size=300,
    )
)
def test_the_rate_stays_in_its_bounds_and_a_throttled_process_admits_within_it(
    steps: list[tuple[float, bool]],
) -> None:
    # given any sequence of asks, with the calls queueing or not
    clock = Clock()
    full = Full()
    admission = TableAdmission(full, clock)
    allowed = 0.0
    admitted_throttled = 0
    for gap, queued in steps:
        rate_before = admission.rate
        full.full = queued
        clock.now += gap
        was_max = rate_before >= MAX_RATE
        ok = admission.admit()
        # then the rate is always within its bounds
        assert MIN_RATE <= admission.rate <= MAX_RATE
        if not was_max and admission.rate < MAX_RATE:
            allowed += gap * max(rate_before, admission.rate)
            admitted_throttled += ok
    # and while throttled, no more tables were admitted than the rate allowed, plus one burst
    assert admitted_throttled <= allowed + MAX_RATE * TICK_SECONDS + 1


async def _nothing(*_: object) -> None:
    return None


def test_the_edge_refuses_new_tables_once_the_rate_runs_out() -> None:
    # given the shedding edge of a process whose calls have queued for a while
    full = Full(True)
    shedding = Shedding(_nothing, ApiSettings(shed_wait_ms=2.0), lambda: 0, full)
    clock = Clock()
    shedding.admission = TableAdmission(full, clock)
    for _ in range(30):
        clock.now += TICK_SECONDS
        shedding.admission.admit()

    async def ask() -> list[bool]:
        return [shedding.refuses("table") for _ in range(10)] + [
            shedding.refuses("spectator_feed"),
            shedding.refuses("lobby"),
        ]

    # when ten tables, a spectator and a lobby read ask at once
    refused = asyncio.run(ask())
    # then at most one table gets in, and the spectator and the lobby read are refused
    assert sum(not r for r in refused[:10]) <= 1
    assert refused[10:] == [True, True]


class Cpu:
    """A process CPU clock the test moves by hand."""

    def __init__(self) -> None:
        self.seconds = 5.0

    def __call__(self) -> float:
        return self.seconds


def test_the_load_is_requests_at_a_time_and_the_share_of_a_core() -> None:
    # given a process that served three requests at once for half a second, then none
    clock, cpu = Clock(), Cpu()
    load = ProcessLoad(clock, cpu)
    for _ in range(3):
        load.started()
    clock.now += 0.5
    cpu.seconds += 0.45
    for _ in range(3):
        load.ended()
    clock.now += 0.5
    cpu.seconds += 0.05
    # when it is looked at after that second
    concurrency, share = load.sample()
    # then it served 1.5 requests at a time on average and used half a core
    assert concurrency == pytest.approx(1.5)
    assert share == pytest.approx(0.5)
    # and the next look counts from this one
    clock.now += 1.0
    assert load.sample() == (0.0, 0.0)


def _two_at_a_time(
    shedding: Shedding, clock: Clock, cpu: Cpu, *, steps: int, cpu_each: float
) -> None:
    """``steps`` hundredths of a second of two requests at a time, each using ``cpu_each`` s."""
    for _ in range(steps):
        shedding.load.started()
        shedding.load.started()
        clock.now += 0.01
        cpu.seconds += cpu_each
        shedding.load.ended()
        shedding.load.ended()


def test_one_request_at_a_time_never_fills_a_process_however_busy() -> None:
    # given a client asking one request after another, the process at a full core
    shedding = Shedding(_nothing, ApiSettings(shed_cpu=0.5), lambda: 0, lambda: 100.0)
    clock, cpu = Clock(), Cpu()
    shedding.load = ProcessLoad(clock, cpu)
    for _ in range(100):
        shedding.load.started()
        clock.now += 0.01
        cpu.seconds += 0.01
        shedding.load.ended()
    # then it is not full (its requests never waited for each other)
    assert not shedding._full()
    # but two clients at once on that core fill it
    _two_at_a_time(shedding, clock, cpu, steps=100, cpu_each=0.01)
    assert shedding._full()
    # and with both signals off, admission is off
    off = Shedding(_nothing, ApiSettings(shed_cpu=0.0, shed_wait_ms=0.0), lambda: 0)
    assert not off.admission.enabled


def _two_clients_at_a_time(shedding: Shedding) -> None:
    """Half a second of two requests at a time on a tenth of a core: busy, not CPU-bound."""
    clock, cpu = Clock(), Cpu()
    shedding.load = ProcessLoad(clock, cpu)
    _two_at_a_time(shedding, clock, cpu, steps=50, cpu_each=0.001)


@pytest.mark.parametrize(
    ("store", "median_wait_ms", "full"),
    [
        ("sqlite", 0.4, False),
        ("sqlite", 1.0, True),
        ("postgres", 1.0, False),
        ("postgres", 2.5, True),
    ],
)
def test_the_store_wait_that_fills_a_process_is_its_stores_own(
    store: StoreKind, median_wait_ms: float, full: bool
) -> None:
    # given a process on `store`, two requests at a time, whose store calls waited that median
    shedding = Shedding(
        _nothing, ApiSettings(shed_cpu=0.0), lambda: 0, lambda: median_wait_ms, store
    )
    _two_clients_at_a_time(shedding)
    # when it is looked at
    # then it is full only past its store's threshold (0.5 ms on SQLite, 2 ms on PostgreSQL)
    assert shedding._full() is full


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_a_store_wait_set_in_the_environment_holds_on_every_store(store: StoreKind) -> None:
    # given BASRA_SHED_WAIT_MS=3 (or 0), whatever the store
    three = ApiSettings.from_env({"BASRA_SHED_WAIT_MS": "3"})
    off = ApiSettings.from_env({"BASRA_SHED_WAIT_MS": "0"})
    # when the threshold on that store is read
    # then it is the one set, and 0 turns the signal off
    assert three.shed_wait_ms_on(store) == 3.0
    assert off.shed_wait_ms_on(store) == 0.0
    waited = Shedding(
        _nothing, ApiSettings(shed_cpu=0.0, shed_wait_ms=3.0), lambda: 0, lambda: 2.5, store
    )
    _two_clients_at_a_time(waited)
    assert not waited._full()
    unset = ApiSettings.from_env({})
    assert unset.shed_wait_ms_on(store) == {"sqlite": 0.5, "postgres": 2.0}[store]
