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
than the answer. ``--before DIR`` runs the same from another checkout of the code (an earlier
commit) in the same run, interleaved. Only 127.0.0.1 is contacted. Run from the repository root:

    .venv/bin/python -m bench.bench_live --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--matches 20] [--rate 20] [--seconds 15] [--repeats 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from app.store.postgres import drop_schema
from bench.bench_api import HOST, Connection, Practice
from bench.bench_scale import new_schema, served, settings_for


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
        print(f"  {missing} of {len(plays)} plays never reached the feed", file=sys.stderr)
    return [
        ((f.arrived[s] - answered) * 1000, (f.arrived[s] - sent) * 1000)
        for f, s, sent, answered in plays
        if s in f.arrived
    ]


def pcts(values: list[float]) -> str:
    """p50, p90, p99 and max."""
    data = sorted(values)

    def at(p: float) -> float:
        return data[min(len(data) - 1, int(p * len(data)))]

    return f"p50 {at(0.5):7.1f}  p90 {at(0.9):7.1f}  p99 {at(0.99):7.1f}  max {data[-1]:7.1f} ms"


def main(argv: list[str] | None = None) -> None:
    """Run and print."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--postgres", default=os.environ.get("BASRA_TEST_POSTGRES"))
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rate", type=float, default=20.0, help="plays per second, all matches")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", type=Path, default=None)
    args = parser.parse_args(argv)
    if not args.postgres:
        parser.error("--postgres URL (or BASRA_TEST_POSTGRES) is needed")
    results: dict[str, list[tuple[float, float]]] = {}
    trees = [(None, "now")] + ([(args.before, "before")] if args.before else [])
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        for r in range(args.repeats):
            for tree, label in trees:
                schema = new_schema()
                settings = settings_for(args.postgres, schema)
                url = f"{args.postgres}?schema={schema}"
                print(f"{label}: repeat {r + 1}", file=sys.stderr, flush=True)
                try:
                    with (
                        served(Path(tmp), 1, url, {}, tree) as (a, _),
                        served(Path(tmp), 1, url, {}, tree) as (b, _),
                    ):
                        run = asyncio.run(
                            one_run(a, b, args.matches, args.rate, args.seconds, seed=r)
                        )
                    results.setdefault(label, []).extend(run)
                finally:
                    drop_schema(settings)
    print(
        f"## A play on process A reaching a feed on process B ({args.matches} matches, "
        f"{args.rate:g} plays/s, {args.repeats} x {args.seconds:g} s)"
    )
    for label, found in results.items():
        print(f"  {label:<7} {len(found)} plays")
        print(f"    after A's answer:  {pcts([a for a, _ in found])}")
        print(f"    after the request: {pcts([s for _, s in found])}")
        print(f"    median play answer: {statistics.median(s - a for a, s in found):.1f} ms")


if __name__ == "__main__":
    main()
