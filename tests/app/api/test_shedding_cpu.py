"""Shedding on a saturated loop: its thread past ``shed_cpu`` of a core and late all along."""

from __future__ import annotations

import asyncio
import time

from app.api.edges.shedding import Shedding
from app.api.settings import ApiSettings


async def _nothing(*_: object) -> None:
    return None


def _burn(ms: float) -> None:
    """Keep this thread busy for ``ms`` milliseconds."""
    until = time.thread_time() + ms / 1000
    while time.thread_time() < until:
        pass


async def _load(block_ms: float, seconds: float) -> tuple[bool, float, float]:
    """Run the loop busy in blocks of ``block_ms`` for ``seconds``; then whether it sheds,
    the loop thread's CPU share and the sustained lateness."""
    shedding = Shedding(_nothing, ApiSettings(shed_cpu=0.85, shed_lag_ms=250.0), lambda: 0)
    shedding.lag.ensure()
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if block_ms:
            _burn(block_ms)
        await asyncio.sleep(0 if block_ms else 0.01)
    return shedding.overloaded(), shedding.lag.cpu_share(), shedding.lag.sustained_ms()


def test_a_loop_saturated_and_late_sheds_new_work() -> None:
    # given a loop whose thread works in blocks of 60 ms, so every probe comes late
    overloaded, share, late = asyncio.run(_load(60.0, 2.5))
    # then its thread used most of a core, it was late all along, and it sheds
    assert share > 0.85 and late >= 10.0, (share, late)
    assert overloaded


def test_a_busy_loop_that_keeps_up_and_an_idle_one_shed_nothing() -> None:
    # given a loop as busy but in blocks of 1 ms (every probe nearly on time), and an idle loop
    busy, busy_share, busy_late = asyncio.run(_load(1.0, 2.5))
    idle, idle_share, _ = asyncio.run(_load(0.0, 2.5))
    # then neither sheds: the busy one is not late, the idle one not busy
    assert busy_share > 0.85 and busy_late < 10.0, (busy_share, busy_late)
    assert not busy
    assert idle_share < 0.5 and not idle
