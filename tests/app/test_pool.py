"""The rated pool's service: the widening window, the heartbeat, and pairing exactly once
when two processes serve players joining and leaving in any order (PostgreSQL)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.runtime.pool_sweep import PoolSweep
from app.service import MatchService
from app.service.pool import SWEEP_SECONDS, PoolService, pool_stream
from domain.events import MatchCreated
from domain.pool import PoolJoined, PoolLeft, PoolPaired, PoolWindow
from tests.app.conftest import postgres_url


class _Clock:
    """Microseconds the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000_000_000

    def __call__(self) -> int:
        return self.now

    def wait(self, seconds: float) -> None:
        self.now += int(seconds * 1_000_000)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MatchService]:
    opened = MatchService.open(tmp_path / "basra.db")
    yield opened
    opened.close()


def test_the_window_starts_at_100_and_widens_by_50_every_5_seconds_up_to_500() -> None:
    window = PoolWindow()
    assert [window.at(s * 1_000_000) for s in (0, 4.9, 5, 10, 39, 40, 600)] == [
        100,
        100,
        150,
        200,
        450,
        500,
        500,
    ]


def test_players_300_apart_are_paired_once_both_windows_reach_300(
    service: MatchService,
) -> None:
    clock = _Clock()
    pool = PoolService(service, clock=clock)
    assert pool.join("p-aa", "classic", 1500).status == "waiting"
    clock.wait(0.5)
    assert pool.join("p-bb", "classic", 1800).status == "waiting"
    # after 19 s more the windows are 250 and 250: still apart
    for _ in range(19):
        clock.wait(1)
        assert pool.heartbeat("p-aa").status == "waiting"
        assert pool.heartbeat("p-bb").status == "waiting"
    clock.wait(1)
    standing = pool.heartbeat("p-bb")
    assert standing.status == "paired" and standing.seat == 1  # the longer waiter sits first
    assert pool.standing("p-aa").match_id == standing.match_id
    (paired,) = pool.pairings("classic")
    assert paired.window == 300 and paired.players == ("p-aa", "p-bb")
    created = service.events(paired.match_id)[0].event
    assert isinstance(created, MatchCreated)
    assert created.reserved == ("p-aa", "p-bb") and created.paired == paired.pairing_id


def test_a_player_whose_page_stopped_asking_leaves_and_is_never_paired(
    service: MatchService,
) -> None:
    clock = _Clock()
    pool = PoolService(service, clock=clock)
    pool.join("p-aa", "classic", 1500)
    clock.wait(31)
    # Amal joins: Noor's page has not asked for 31 s, so Noor is gone, not paired
    assert pool.join("p-bb", "classic", 1500).status == "waiting"
    assert pool.heartbeat("p-aa").status == "none"
    assert pool.pairings("classic") == []
    events = [e for _, e in pool.streams.read_after(pool_stream("classic"), 0)]
    assert PoolLeft("p-aa", "timeout", clock.now) in events


ACTIONS = st.lists(
    st.tuples(st.sampled_from(["join", "beat", "leave"]), st.integers(0, 5)),
    min_size=1,
    max_size=12,
)


def _check_stream(events: list[object]) -> set[str]:
    """Replays the pool stream: each pairing pairs two players waiting at that moment (so
    nobody is paired twice from one wait); the match ids paired."""
    waiting: set[str] = set()
    matches: set[str] = set()
    for event in events:
        if isinstance(event, PoolJoined):
            assert event.player_id not in waiting
            waiting.add(event.player_id)
        elif isinstance(event, PoolLeft):
            assert event.player_id in waiting
            waiting.discard(event.player_id)
        elif isinstance(event, PoolPaired):
            a, b = event.players
            assert a != b and a in waiting and b in waiting, event
            waiting -= {a, b}
            assert event.match_id not in matches
            matches.add(event.match_id)
    return matches


@pytest.mark.usefixtures("postgres_settings")
def test_two_processes_pair_each_wait_exactly_once_whatever_the_order(
    postgres_settings: object,
) -> None:
    url = postgres_url(postgres_settings)  # type: ignore[arg-type]
    one, two = MatchService.open(database_url=url), MatchService.open(database_url=url)
    pools = (PoolService(one), PoolService(two))
    rounds = iter(range(1000))
    paired: set[str] = set()
    try:

        @settings(
            max_examples=6,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
        @given(first=ACTIONS, second=ACTIONS)
        def run(first: list[tuple[str, int]], second: list[tuple[str, int]]) -> None:
            tag = next(rounds)

            def act(pool: PoolService, actions: list[tuple[str, int]]) -> None:
                for action, k in actions:
                    player = f"p-{tag:03x}{k:02x}"
                    if action == "join":
                        pool.join(player, "classic", 1500.0)
                    elif action == "beat":
                        pool.heartbeat(player)
                    else:
                        pool.leave(player)

            threads = [
                threading.Thread(target=act, args=(pool, actions))
                for pool, actions in zip(pools, (first, second), strict=True)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            events = [e for _, e in pools[0].streams.read_after(pool_stream("classic"), 0)]
            matches = _check_stream(events)
            paired.update(matches)
            # every pairing's table exists once, created through either process
            for match_id in matches:
                created = one.events(match_id)
                assert created and isinstance(created[0].event, MatchCreated)

        run()
        join_twice = [("join", 0), ("join", 1)]
        run.hypothesis.inner_test(first=join_twice, second=[("join", 2), ("join", 3)])  # type: ignore[attr-defined]
        assert paired  # the checks above saw pairings, not only waits
    finally:
        one.close()
        two.close()


def test_a_sweep_pairs_players_whose_windows_came_to_overlap_though_nobody_asks(
    service: MatchService,
) -> None:
    # given two players 300 apart who joined and whose pages asked nothing since
    clock = _Clock()
    pool = PoolService(service, clock=clock)
    assert pool.join("p-aa", "classic", 1500).status == "waiting"
    assert pool.join("p-bb", "classic", 1800).status == "waiting"
    # when the server sweeps before both windows reach 300, then nobody is paired
    clock.wait(19.9)
    assert pool.sweep("classic") == 0
    assert pool.pairings("classic") == []
    # when it sweeps once they do (20 s: 300 each), then they are paired, once
    clock.wait(0.1)
    assert pool.sweep("classic") == 1
    assert pool.sweep("classic") == 0
    (paired,) = pool.pairings("classic")
    assert paired.players == ("p-aa", "p-bb") and paired.window == 300
    assert pool.standing("p-bb").match_id == paired.match_id
    assert isinstance(service.events(paired.match_id)[0].event, MatchCreated)


def test_a_sweep_never_pairs_a_player_whose_page_stopped_asking(service: MatchService) -> None:
    # given a waiting player whose page stopped asking 31 s ago, and a fresh one beside them
    clock = _Clock()
    pool = PoolService(service, clock=clock)
    pool.join("p-aa", "classic", 1500)
    clock.wait(31)
    pool.streams.append(pool_stream("classic"), 2, PoolJoined("p-bb", 1500, clock.now))
    pool.beat("p-bb")
    # when the server sweeps, then the gone player leaves and nobody is paired
    assert pool.sweep("classic") == 0
    assert pool.pairings("classic") == []
    assert pool.standing("p-aa").status == "none"
    assert pool.standing("p-bb").status == "waiting"


def test_the_runtime_sweep_pairs_within_a_second_with_no_request(service: MatchService) -> None:
    # given two players whose windows overlap now but who were not paired when they joined
    clock = _Clock()
    pool = PoolService(service, clock=clock)
    pool.join("p-aa", "classic", 1500)
    pool.join("p-bb", "classic", 1800)
    clock.wait(20)

    async def offload(func: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, func, *args)

    # when the process's sweep runs (every SWEEP_SECONDS) and nobody asks anything
    async def run() -> float:
        sweep = PoolSweep(pool, offload)
        started = time.monotonic()
        await sweep.start()
        try:
            while pool.standing("p-aa").status != "paired":
                assert time.monotonic() - started < 5, "the sweep never paired them"
                await asyncio.sleep(0.02)
        finally:
            await sweep.stop()
        return time.monotonic() - started

    # (on a thread of its own: a browser test's event loop may be running on this one)
    took: list[float] = []
    runner = threading.Thread(target=lambda: took.append(asyncio.run(run())))
    runner.start()
    runner.join(10)
    # then they are paired within a second, once
    assert took and took[0] <= SWEEP_SECONDS + 0.5, took
    assert len(pool.pairings("classic")) == 1
