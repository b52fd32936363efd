"""bench/tables_client.py: the benchmark's feed asks again as the web table does, and the client
makes no full collection within a step."""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from typing import Any

from bench.tables_client import (
    FIRST_RETRY_SECONDS,
    Feed,
    Table,
    Tally,
    collector_between_steps,
)

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


_OPEN = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"


async def _kept_out_then_open(refusals: int, late_seconds: float) -> tuple[Feed, float]:
    """A spectator's feed against a server that refuses its first ``refusals`` attempts (503),
    then opens it and sends events 1 and 2 at once and event 3 ``late_seconds`` later; the feed
    once every event arrived, and when event 3 was sent."""
    attempts = 0
    third_sent = 0.0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal attempts, third_sent
        await reader.readuntil(b"\r\n\r\n")
        attempts += 1
        if attempts <= refusals:
            writer.write(_REFUSAL)
            await writer.drain()
            writer.close()
            return
        writer.write(_OPEN + b"id: 1\ndata: {}\n\nid: 2\ndata: {}\n\n")
        await writer.drain()
        await asyncio.sleep(late_seconds)
        third_sent = time.monotonic()
        writer.write(b"id: 3\ndata: {}\n\n")
        await writer.drain()
        await asyncio.sleep(5)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    feed = Feed(port, "/matches/m/events", None, _ignore)
    feed.start(0, Tally())
    for _ in range(100):
        await asyncio.sleep(0.05)
        if 3 in feed.arrived:
            break
    feed.stopped = True
    assert feed.task is not None
    feed.task.cancel()
    server.close()
    return feed, third_sent


def test_plays_made_while_a_spectator_was_shed_count_as_its_catch_up_not_as_pushes() -> None:
    # Given a spectator's feed refused twice by a shedding server, then opened: events 1 and 2
    # (played while it was kept out) come at once as history, event 3 is pushed to the open feed
    feed, third_sent = asyncio.run(_kept_out_then_open(refusals=2, late_seconds=0.2))
    assert sorted(feed.arrived) == [1, 2, 3]
    assert len(feed.kept_out) == 1
    kept_from, opened = feed.kept_out[0]
    assert opened - kept_from >= FIRST_RETRY_SECONDS  # it waited out at least one refusal
    tally = Tally()
    table = Table(0, 0, 1, lambda: 1.0, tally)
    table.spectators = [feed]
    player = object()
    table.played = [
        (player, 1, kept_from + 0.01),  # type: ignore[list-item]
        (player, 2, opened - 0.01),  # type: ignore[list-item]
        (player, 3, third_sent),  # type: ignore[list-item]
    ]

    # When the step settles its pushes
    table.settle(0.0)

    # Then the two plays made while the feed was kept out are its catch-up, the third a push of
    # a fraction of a second, and nothing is missing
    assert [seq_sent for seq_sent, _ in tally.caught_up_shed] == [kept_from + 0.01, opened - 0.01]
    assert tally.caught_up_shed[0][1] >= (opened - kept_from - 0.01) * 1000
    assert len(tally.pushes) == 1
    assert tally.pushes[0][1] < 150
    assert tally.missing == 0 and tally.missing_shed == 0


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
