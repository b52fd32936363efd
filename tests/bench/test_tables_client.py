"""bench/tables_client.py: the benchmark's feed asks again as the web table does, and the client
makes no full collection within a step."""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from typing import Any

from bench.tables_client import FIRST_RETRY_SECONDS, Feed, Tally, collector_between_steps

_REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"retry-after: 5\r\ncontent-length: 2\r\n\r\n{}"
)


def _ignore(_line: bytes) -> None:
    """No line ever arrives from a server that refuses every feed."""


async def _attempts_against_a_refusing_server(seconds: float) -> tuple[list[float], Tally]:
    """The times a feed asked to open within ``seconds``, against a server that answers each
    attempt 503; and the tally."""
    asked: list[float] = []

    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        asked.append(time.monotonic())
        writer.write(_REFUSAL)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(refuse, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    tally = Tally()
    feed = Feed(port, "/matches/m/events", None, _ignore)
    feed.start(0, tally)
    await asyncio.sleep(seconds)
    feed.stopped = True
    assert feed.task is not None
    feed.task.cancel()
    server.close()
    await server.wait_closed()
    return asked, tally


def test_a_refused_feed_asks_again_after_half_a_second_then_twice_as_long_each_time() -> None:
    # Given a server that refuses every feed with 503
    # When a spectator's feed tries for 3.8 s
    asked, tally = asyncio.run(_attempts_against_a_refusing_server(3.8))
    # Then it asked at 0, 0.5, 1.5 and 3.5 s: each wait twice the one before (a flat one-second
    # retry would have asked four times with equal gaps)
    assert len(asked) == 4, asked
    gaps = [later - earlier for earlier, later in itertools.pairwise(asked)]
    assert abs(gaps[0] - FIRST_RETRY_SECONDS) < 0.25
    assert 1.6 < gaps[1] / gaps[0] < 2.5 and 1.6 < gaps[2] / gaps[1] < 2.5
    # And every attempt is counted a refusal, none an error or a resumed feed
    assert tally.refused == 4 and tally.errors == 0 and tally.feed_reopened == 0


PYTHON_DEFAULT_THRESHOLDS = (700, 10, 10)
"""``gc.get_threshold()`` of a fresh interpreter."""


def _full_collections_while_holding(count: int) -> int:
    """How many full collections Python started by itself while ``count`` lists were made and
    kept (as a step's latencies and arrival times are)."""
    full = 0

    def note(phase: str, info: dict[str, Any]) -> None:
        nonlocal full
        if phase == "start" and info["generation"] == 2:
            full += 1

    gc.callbacks.append(note)
    try:
        held = [[n] for n in range(count)]
    finally:
        gc.callbacks.remove(note)
    del held
    return full


def test_a_step_holding_a_million_objects_makes_no_full_collection() -> None:
    # given Python's default collector, which collects everything while a step's objects grow
    kept = gc.get_threshold()
    gc.set_threshold(*PYTHON_DEFAULT_THRESHOLDS)
    try:
        before = gc.get_threshold()
        assert _full_collections_while_holding(1_000_000) > 0

        # when a step runs within the guard
        with collector_between_steps():
            during = _full_collections_while_holding(1_000_000)
            frozen = gc.get_freeze_count()
        after = gc.get_threshold()
    finally:
        gc.set_threshold(*kept)

    # then no full collection came within it, what it held before was frozen, and the collector
    # is as it was once the step is over
    assert during == 0
    assert frozen > 0
    assert after == before
    assert gc.get_freeze_count() == 0
