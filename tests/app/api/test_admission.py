"""Admitting new tables at the rate a process can take: cut while it is full."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.api.edges.admission import (
    DECREASE,
    FLOOR_SECONDS,
    MAX_RATE,
    MIN_RATE,
    STEP,
    TICK_SECONDS,
    LatencyFloor,
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
    began = [load.started() for _ in range(3)]
    clock.now += 0.5
    cpu.seconds += 0.45
    for at in began:
        load.ended(at)
    clock.now += 0.5
    cpu.seconds += 0.05
    # when it is looked at after that second
    concurrency, share, _median = load.sample()
    # then it served 1.5 requests at a time on average and used half a core
    assert concurrency == pytest.approx(1.5)
    assert share == pytest.approx(0.5)
    # and the next look counts from this one
    clock.now += 1.0
    assert load.sample() == (0.0, 0.0, 0.0)


def _two_at_a_time(
    shedding: Shedding, clock: Clock, cpu: Cpu, *, steps: int, cpu_each: float
) -> None:
    """``steps`` hundredths of a second of two requests at a time, each using ``cpu_each`` s."""
    for _ in range(steps):
        first, second = shedding.load.started(), shedding.load.started()
        clock.now += 0.01
        cpu.seconds += cpu_each
        shedding.load.ended(first)
        shedding.load.ended(second)


def test_one_request_at_a_time_never_fills_a_process_however_busy() -> None:
    # given a client asking one request after another, the process at a full core
    shedding = Shedding(_nothing, ApiSettings(shed_cpu=0.5), lambda: 0, lambda: 100.0)
    clock, cpu = Clock(), Cpu()
    shedding.load = ProcessLoad(clock, cpu)
    for _ in range(100):
        began = shedding.load.started()
        clock.now += 0.01
        cpu.seconds += 0.01
        shedding.load.ended(began)
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
        _nothing,
        ApiSettings(shed_cpu=0.0, shed_latency_ms=0.0),
        lambda: 0,
        lambda: median_wait_ms,
        store,
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
        _nothing,
        ApiSettings(shed_cpu=0.0, shed_wait_ms=3.0, shed_latency_ms=0.0),
        lambda: 0,
        lambda: 2.5,
        store,
    )
    _two_clients_at_a_time(waited)
    assert not waited._full()
    unset = ApiSettings.from_env({})
    assert unset.shed_wait_ms_on(store) == {"sqlite": 0.5, "postgres": 2.0}[store]


def _requests_taking(shedding: Shedding, took_ms: list[float], at_a_time: int = 2) -> None:
    """Half a second of ``at_a_time`` requests at a time, on a tenth of a core, the n-th
    answered after ``took_ms[n % len(took_ms)]`` ms."""
    clock, cpu = Clock(), Cpu()
    shedding.load = ProcessLoad(clock, cpu)
    for n in range(100):
        began = [shedding.load.started() for _ in range(at_a_time)]
        clock.now += took_ms[n % len(took_ms)] / 1000
        cpu.seconds += 0.0001
        for at in began:
            shedding.load.ended(at)


@pytest.mark.parametrize(
    ("store", "took_ms", "full"),
    [
        ("sqlite", [2.0, 3.0, 4.0], False),
        ("sqlite", [2.0, 6.0, 7.0], True),  # two requests in three past 5 ms: a standing queue
        ("sqlite", [2.0, 2.0, 90.0], False),  # one slow request in three: not the median
        ("postgres", [6.0, 8.0, 9.0], False),
        ("postgres", [6.0, 11.0, 12.0], True),
        ("memory", [50.0], False),  # off on the store the tests use
    ],
)
def test_a_median_request_past_its_stores_target_fills_a_process(
    store: StoreKind, took_ms: list[float], full: bool
) -> None:
    # given a process on `store`, two requests at a time, its core nearly idle and its store
    # calls never queued, whose requests took these times
    shedding = Shedding(_nothing, ApiSettings(), lambda: 0, lambda: 0.0, store)
    _requests_taking(shedding, took_ms)
    # when it is looked at
    # then it is full only when the median request took longer than its store's target
    # (5 ms on SQLite, 10 ms on PostgreSQL)
    assert shedding._full() is full


def test_slow_requests_one_at_a_time_never_fill_a_process() -> None:
    # given one client asking one slow request after another (a replay file, say)
    shedding = Shedding(_nothing, ApiSettings(), lambda: 0, lambda: 0.0, "sqlite")
    _requests_taking(shedding, [40.0], at_a_time=1)
    # when it is looked at
    # then it is not full: its requests never waited for each other
    assert not shedding._full()
    # but the same requests two at a time fill it
    _requests_taking(shedding, [40.0], at_a_time=2)
    assert shedding._full()


def test_a_latency_target_set_in_the_environment_holds_on_every_store() -> None:
    # given BASRA_SHED_LATENCY_MS=20 (or 0), and unset
    twenty = ApiSettings.from_env({"BASRA_SHED_LATENCY_MS": "20"})
    off = ApiSettings.from_env({"BASRA_SHED_LATENCY_MS": "0"})
    unset = ApiSettings.from_env({})
    # when the target on each store is read
    # then it is the one set, 0 turns the signal off, and unset each store has its own
    for store in ("sqlite", "postgres", "memory"):
        assert twenty.shed_latency_ms_on(store) == 20.0
        assert off.shed_latency_ms_on(store) == 0.0
    assert [unset.shed_latency_ms_on(s) for s in ("sqlite", "postgres", "memory")] == [
        5.0,
        10.0,
        0.0,
    ]
    # and a process at a 12 ms median is full on SQLite unless the target is 20 ms or off
    for settings, full in ((unset, True), (twenty, False), (off, False)):
        shedding = Shedding(_nothing, settings, lambda: 0, lambda: 0.0, "sqlite")
        _requests_taking(shedding, [12.0])
        assert shedding._full() is full


def test_a_process_with_every_signal_off_admits_every_table() -> None:
    # given every signal off on SQLite (the CPU, the store wait, the latency)
    settings = ApiSettings(shed_cpu=0.0, shed_wait_ms=0.0, shed_latency_ms=0.0)
    # when its admission is made
    shedding = Shedding(_nothing, settings, lambda: 0, lambda: 100.0, "sqlite")
    # then it is off; with the latency target alone it is on
    assert not shedding.admission.enabled
    latency_only = Shedding(
        _nothing, ApiSettings(shed_cpu=0.0, shed_wait_ms=0.0), lambda: 0, lambda: 0.0, "sqlite"
    )
    assert latency_only.admission.enabled


@pytest.mark.parametrize(
    ("took_ms", "full"),
    [
        ([3.0, 3.2, 3.4], False),  # under twice the floor of 1.8 ms
        ([3.0, 4.0, 4.2], True),  # past twice the floor, under SQLite's 5 ms
    ],
)
def test_a_median_past_twice_the_floor_fills_a_process(took_ms: list[float], full: bool) -> None:
    # given a process on SQLite whose requests took 1.8 ms at the median in a light moment
    shedding = Shedding(_nothing, ApiSettings(), lambda: 0, lambda: 0.0, "sqlite")
    clock = Clock()
    shedding.floor = LatencyFloor(clock)
    _requests_taking(shedding, [1.8])
    assert not shedding._full()
    assert shedding.floor.floor_ms() == pytest.approx(1.8)
    # when, a minute later, its requests take these times
    clock.now += 60
    _requests_taking(shedding, took_ms)
    # then it is full only past twice that floor
    assert shedding._full() is full


def test_the_floors_target_is_never_below_three_ms_nor_past_the_stores_limit() -> None:
    # given a floor of 0.5 ms, and one of 4 ms
    clock = Clock()
    low, high = LatencyFloor(clock), LatencyFloor(clock)
    low.note(0.5)
    high.note(4.0)
    # when the target under SQLite's limit of 5 ms is read
    # then a fast process is not full at 2 ms, and a slow one is at 5 ms, not 8
    assert low.target_ms(5.0) == 3.0
    assert high.target_ms(5.0) == 5.0
    # and with no floor yet the limit is the target
    assert LatencyFloor(clock).target_ms(5.0) == 5.0


@given(
    st.lists(
        st.tuples(st.floats(0, 400), st.floats(0.0, 50.0, allow_nan=False)),
        min_size=1,
        max_size=60,
    )
)
@example([(0.0, 1.0), (700.0, 0.0)])  # a floor outlives its window with no look to replace it
def test_the_floor_is_the_lowest_median_of_the_window(looks: list[tuple[float, float]]) -> None:
    # given medians noted at increasing times (0: a look with too few requests)
    clock = Clock()
    floor = LatencyFloor(clock)
    noted: list[tuple[float, float]] = []
    for gap, median in looks:
        clock.now += gap
        floor.note(median)
        if median > 0:
            noted.append((clock.now, median))
        # then the floor is the lowest median noted within the window, or None
        window = [m for at, m in noted if at >= clock.now - FLOOR_SECONDS]
        assert floor.floor_ms() == (min(window) if window else None)
