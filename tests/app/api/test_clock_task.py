"""The clock task of one server process (app.api.clock.TurnClock) with a driven clock: many
deadlines due at once all fire, once each, side by side; a fire that fails is tried again."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from app.api.clock import TurnClock
from app.service import MatchService
from app.service.deadlines import fire_many
from domain.events import MatchEnded
from domain.times import utc_text

T0 = 1_800_000_000_000
"""The moment every seat is taken (Unix epoch ms)."""


def _tables(service: MatchService, count: int) -> list[str]:
    """``count`` 2-seat tables of people, every seat taken at T0, 5-second turns."""
    service.clock = lambda: utc_text(T0)
    ids = []
    for _ in range(count):
        match_id, _ = service.create_match(ruleset="classic", seats=2, turn_seconds=5)
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
