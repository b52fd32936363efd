"""Live events across processes: how long a play made on one server process takes to reach an
SSE feed held open on another.

Two separate ``basra serve`` processes on one PostgreSQL schema (a fresh one, dropped after).
``--matches`` practice matches are created through process A; each has a feed open on process
B. Then, for ``--seconds``, the matches take turns to play one card through A (a steady
``--rate`` of plays per second over all matches). For every play the benchmark notes when the
request was sent, when A answered (the play is committed by then), and when B's feed delivered
the person's ``card_played`` (its SSE id is the seq the play was made at + 1).

Printed: p50, p90, p99 and max of (feed arrival − answer from A), and of (feed arrival − request
sent), over all plays of all ``--repeats``. A negative first figure means the feed was faster
than the answer. ``--code-before DIR`` (``--before`` of the old script) runs the same from
another checkout of the code (an earlier commit) in the same run, interleaved. Only 127.0.0.1
is contacted. Run from the repository root:

    python -m bench live --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--matches 20] [--rate 20] [--seconds 15] [--repeats 3] [--code-before DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.before import Legacy, groups
from bench.client import HOST, Connection, Practice
from bench.harness import say
from bench.options import Shared
from bench.servers import fresh_schema, served
from bench.stats import quantile

SHARED = Shared(seconds=15.0, repeats=3, postgres="needed")
"""Each run's length, the runs, the PostgreSQL server."""

SPREAD = ("p50", "p90", "p99", "max")
"""The figures of a latency's spread."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_live.py)."""
    found: dict[str, float] = {}
    numbers = r"p50 +([\d.-]+)  p90 +([\d.-]+)  p99 +([\d.-]+)  max +([\d.-]+) ms"
    for block in re.split(r"\n(?=  \S)", text):
        head = re.match(r"  (\w+) +(\d+) plays", block)
        if head is None:
            continue
        label = head.group(1)
        found[f"{label}/plays"] = float(head.group(2))
        for part, title in (
            ("after_answer", "after A's answer:"),
            ("after_request", "after the request:"),
        ):
            keys = [f"{label}/{part}/{key}" for key in SPREAD]
            found |= groups(block, re.escape(title) + " +" + numbers, keys)
        found |= groups(block, r"median play answer: ([\d.-]+) ms", [f"{label}/median_answer_ms"])
    return found


LEGACY = Legacy(
    "bench.bench_live",
    read_legacy,
    names={"seconds": "--seconds", "repeats": "--repeats", "postgres": "--postgres"},
    renames={"--code-before": "--before"},
)
"""The old script, bench/bench_live.py, printed the same report."""


class Feed:
    """One SSE feed read with a bare socket: the arrival time of each event id."""

    def __init__(self, port: int, path: str, token_header: str) -> None:
        self.port = port
        self.path = path
        self.auth = token_header
        self.arrived: dict[int, float] = {}
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Read the feed until cancelled."""
        reader, writer = await asyncio.open_connection(HOST, self.port)
        try:
            request = (
                f"GET {self.path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                f"Authorization: {self.auth}\r\nAccept: text/event-stream\r\n\r\n"
            )
            writer.write(request.encode())
            await reader.readuntil(b"\r\n\r\n")
            self.ready.set()
            while True:
                line = await reader.readline()
                if not line:
                    return
                now = time.perf_counter()
                text = line.decode(errors="replace").strip()
                if text.startswith("id:"):
                    with contextlib.suppress(ValueError):
                        self.arrived.setdefault(int(text[3:].strip()), now)
        finally:
            writer.close()


async def one_run(
    port_a: int, port_b: int, matches: int, rate: float, seconds: float, seed: int
) -> list[tuple[float, float]]:
    """(arrival − answer, arrival − sent) in ms of every play of one run."""
    rng = random.Random(seed)
    conns = [Connection(port_a) for _ in range(matches)]
    players = [Practice(conn, random.Random(rng.random())) for conn in conns]
    feeds: list[Feed] = []
    for practice in players:
        await practice.start()
        feed = Feed(port_b, f"{practice.path}/events", practice.headers["Authorization"])
        feed.task = asyncio.create_task(feed.run())
        feeds.append(feed)
    await asyncio.wait_for(asyncio.gather(*(f.ready.wait() for f in feeds)), 60)
    await asyncio.sleep(0.5)  # every feed has sent its backlog
    plays: list[tuple[Feed, int, float, float]] = []
    interval = 1.0 / rate
    end = time.monotonic() + seconds
    tick = time.monotonic()
    k = 0
    while time.monotonic() < end:
        i = k % matches
        k += 1
        practice = players[i]
        if practice.ended:
            continue
        assert practice.view is not None
        seq = practice.view.seq + 1  # the person's card_played
        sent = time.perf_counter()
        await practice.play()
        plays.append((feeds[i], seq, sent, time.perf_counter()))
        tick += interval
        delay = tick - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(s not in f.arrived for f, s, _, _ in plays):
        await asyncio.sleep(0.05)
    for feed in feeds:
        assert feed.task is not None
        feed.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await feed.task
    for conn in conns:
        await conn.close()
    missing = sum(1 for f, s, _, _ in plays if s not in f.arrived)
    if missing:
        say(f"  {missing} of {len(plays)} plays never reached the feed")
    return [
        ((f.arrived[s] - answered) * 1000, (f.arrived[s] - sent) * 1000)
        for f, s, sent, answered in plays
        if s in f.arrived
    ]


def spread(values: list[float]) -> dict[str, float]:
    """p50, p90, p99 and max."""
    return {
        "p50": quantile(values, 0.5),
        "p90": quantile(values, 0.9),
        "p99": quantile(values, 0.99),
        "max": max(values, default=0.0),
    }


def shown(figures: dict[str, float]) -> str:
    """A spread as printed."""
    return "  ".join(f"{key} {figures[key]:7.1f}" for key in SPREAD) + " ms"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rate", type=float, default=20.0, help="plays per second, all matches")
    parser.add_argument("--code-before", type=Path, default=None)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run and print; the figures by side (``now``, ``before``)."""
    results: dict[str, list[tuple[float, float]]] = {}
    trees = [(None, "now")] + ([(args.code_before, "before")] if args.code_before else [])
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        for r in range(args.repeats):
            for tree, label in trees:
                say(f"{label}: repeat {r + 1}")
                with (
                    fresh_schema(args.postgres) as (url, _),
                    served(Path(tmp), 1, url, {}, tree) as (a, _),
                    served(Path(tmp), 1, url, {}, tree) as (b, _),
                ):
                    run = asyncio.run(one_run(a, b, args.matches, args.rate, args.seconds, seed=r))
                results.setdefault(label, []).extend(run)
    print(
        f"## A play on process A reaching a feed on process B ({args.matches} matches, "
        f"{args.rate:g} plays/s, {args.repeats} x {args.seconds:g} s)"
    )
    figures: dict[str, Any] = {}
    for label, found in results.items():
        figures[label] = {
            "plays": len(found),
            "after_answer": spread([a for a, _ in found]),
            "after_request": spread([s for _, s in found]),
            "median_answer_ms": statistics.median(s - a for a, s in found) if found else 0.0,
        }
        print(f"  {label:<7} {len(found)} plays")
        print(f"    after A's answer:  {shown(figures[label]['after_answer'])}")
        print(f"    after the request: {shown(figures[label]['after_request'])}")
        print(f"    median play answer: {figures[label]['median_answer_ms']:.1f} ms")
    return figures
