"""The clock task of one server process (app.runtime.clock.TurnClock) with a driven clock: many
deadlines due at once all fire, once each, side by side; a fire that fails is tried again."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from app.runtime.clock import TurnClock
from app.service import MatchService
from app.service.deadlines import fire_many, look_up
from domain.events import MatchEnded
from domain.times import utc_text

T0 = 1_800_000_000_000
"""The moment every seat is taken (Unix epoch ms)."""


def _tables(service: MatchService, count: int) -> list[str]:
    """``count`` 2-seat tables of people, every seat taken at T0, 5-second turns."""
    service.clock = lambda: utc_text(T0)
    ids = []
    for _ in range(count):
        match_id = service.create_match(ruleset="classic", seats=2, turn_seconds=5).match_id
        for seat in (0, 1):
            service.take_seat(match_id, seat, f"P{seat}")
        ids.append(match_id)
    return ids


async def _run_clock(service: MatchService, failing: set[str], count: int) -> TurnClock:
    locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
    failed: set[str] = set()

    async def call(func: Any, *args: Any) -> Any:
        if func is fire_many:  # the store fails a batch the first time it holds a failing table
            first = {d.match_id for d in args[1]} & failing - failed
            if first:
                failed.update(first)
                raise OSError("the store went away for a moment")
        return await asyncio.to_thread(func, *args)

    clock = TurnClock(
        service,
        call=call,
        offload=call,
        lock_for=lambda match_id: locks[match_id],
        waiting_seconds=None,
        follow_every=0.05,
    )
    await clock.start()
    try:
        limit = time.monotonic() + 60
        while clock.fired < count:
            assert time.monotonic() < limit, f"{clock.fired} of {count} fired"
            await asyncio.sleep(0.02)
    finally:
        await clock.stop()
    assert failed == failing
    return clock


def test_many_deadlines_due_at_once_all_fire_once_and_a_failed_fire_is_retried(
    tmp_path: Path,
) -> None:
    # given 40 tables whose deadlines all fell at T0 + 5 s, and a clock now past them
    service = MatchService.open(tmp_path / "clock.db")
    ids = _tables(service, 40)
    service.clock = lambda: utc_text(T0 + 6000)
    # when the clock task runs, the store failing the first fire of two of the tables
    clock = asyncio.run(_run_clock(service, set(ids[:2]), len(ids)))
    # then every table ended by timeout, once, caused by the clock
    for match_id in ids:
        ends = [
            (r.event.reason, r.caused_by)
            for r in service.events(match_id)
            if isinstance(r.event, MatchEnded)
        ]
        assert ends == [("timeout", "clock")]
    assert clock.fired == len(ids)
    service.close()


def test_a_match_stored_here_is_looked_at_from_its_cached_state_and_another_processes_not(
    tmp_path: Path,
) -> None:
    # given a 5-second table on turn, its clock running, and another process on the same file
    service = MatchService.open(tmp_path / "clock.db")
    [match_id] = _tables(service, 1)
    other = MatchService.open(tmp_path / "clock.db")
    looked: list[set[str]] = []

    async def call(func: Any, *args: Any) -> Any:
        if func is look_up:
            looked.append(set(args[1]))
        return await asyncio.to_thread(func, *args)

    async def until(done: Any) -> None:
        limit = time.monotonic() + 30
        while not done():
            assert time.monotonic() < limit
            await asyncio.sleep(0.02)

    async def scenario() -> None:
        locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        clock = TurnClock(
            service,
            call=call,
            offload=call,
            lock_for=lambda m: locks[m],
            waiting_seconds=None,
            follow_every=0.05,
        )
        await clock.start()
        try:
            await until(lambda: clock.pending == 1)
            # when this process records a play, then the new deadline is known without a
            # store call, also once the log's follower has seen the same append
            looked.clear()
            state = service.load(match_id)
            assert state.turn is not None
            service.clock = lambda: utc_text(T0 + 1000)
            await asyncio.to_thread(
                service.play_card, match_id, state.turn, state.hands[state.turn][0]
            )
            moved = service.load(match_id).deadline
            await until(lambda: clock._current[match_id].deadline == moved)
            await asyncio.sleep(0.3)  # several rounds of the follower
            assert looked == []
            # when another process records the next play, then it is read from the store
            theirs = other.load(match_id)
            assert theirs.turn is not None
            other.clock = lambda: utc_text(T0 + 2000)
            other.play_card(match_id, theirs.turn, theirs.hands[theirs.turn][0])
            latest = other.load(match_id).deadline
            assert latest != moved
            await until(lambda: clock._current[match_id].deadline == latest)
            assert any(match_id in ids for ids in looked)
        finally:
            await clock.stop()

    try:
        asyncio.run(scenario())
    finally:
        other.close()
        service.close()
