"""Benchmark: time to pair in the rated pool beyond the window's own wait, with 100 and 1,000
players waiting (the pool service on a SQLite file, and on PostgreSQL when given).

Run: python -m bench pool [--waiting N,N] [--pairs P] [--repeats R] [--json]

Each size fills one pool with N waiting players whose ratings lie 1,001 points apart (no two of
them ever within a window, so they stay, as a crowd of players out of each other's reach would;
written in one batch, untimed),
then P times: a player joins at a rating no one waits near, and a second player joins at the
same rating. The figure is the second ``join`` (POST /pool's service call): it reads the pool,
finds the partner in its window, records the pairing and creates the match with both seats
kept. The window is then 0 s old, so all of it is time beyond the window's wait. The goal: p99
at most 1 s at 1,000 waiting. Medians over the repeats.

The sweep (``... sweep`` rows): P times, two players join 300 points apart (not paired then),
the pool's clock moves 20 s on (both windows reach 300) and one ``PoolService.sweep`` of the
pool is timed, as each server process runs it every ``SWEEP_SECONDS`` whether or not a page
asks: a pair nobody asks for is paired at most ``SWEEP_SECONDS`` plus this time after their
windows meet.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
from eventsourcing.persistence import StoredEvent

from app.service import MatchService
from app.service.pool import PoolService, now_micros, pool_stream
from app.store.decoding import TOPIC_PREFIX
from bench.before import Legacy
from bench.options import Shared
from bench.stats import quantile
from domain.pool import PoolJoined

ENCODE = msgspec.json.Encoder().encode

SHARED = Shared(repeats=3, postgres="optional")
"""Repeats of every size (medians reported); PostgreSQL figures when a server is given."""

LEGACY: Legacy | None = None
"""No earlier script."""

GAP = 1001
"""Rating points between two players of the waiting crowd: never within a window (±500)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--waiting", default="100,1000", help="players waiting, per size")
    parser.add_argument("--pairs", type=int, default=100, help="pairings timed per repeat")


def _fill(pool: PoolService, tag: str, waiting: int) -> None:
    """The crowd, written in one batch (as if each had joined: a ``pool_joined`` each)."""
    now = pool.clock()
    rows = [
        StoredEvent(
            pool_stream("classic"),
            k + 1,
            TOPIC_PREFIX + "pool_joined",
            ENCODE(PoolJoined(f"p-{tag}{k:06x}", float(k * GAP), now)),
        )
        for k in range(waiting)
    ]
    pool.streams.recorder.insert_events(rows)


def _pairings(pool: PoolService, tag: str, waiting: int, pairs: int) -> list[float]:
    """Seconds of each pairing join."""
    times = []
    for k in range(pairs):
        rating = float(waiting * GAP + 10 * GAP * (k + 1))  # far from the crowd and each other
        pool.join(f"p-{tag}a{k:05x}", "classic", rating)
        started = time.perf_counter()
        standing = pool.join(f"p-{tag}b{k:05x}", "classic", rating)
        times.append(time.perf_counter() - started)
        assert standing.status == "paired", standing
    return times


class _Clock:
    """The pool's clock, moved on by hand (the sweep's pairs wait 20 s in no time)."""

    def __init__(self) -> None:
        self.now = now_micros()

    def __call__(self) -> int:
        return self.now


def _sweeps(pool: PoolService, clock: _Clock, tag: str, waiting: int, pairs: int) -> list[float]:
    """Seconds of each sweep that pairs two players whose windows came to meet."""
    times = []
    for k in range(pairs):
        rating = float(waiting * GAP + 10 * GAP * (k + 1))
        pool.join(f"p-{tag}c{k:05x}", "classic", rating)
        assert pool.join(f"p-{tag}d{k:05x}", "classic", rating + 300).status == "waiting"
        clock.now += 20_000_000  # both windows reach 300
        started = time.perf_counter()
        made = pool.sweep("classic")
        times.append(time.perf_counter() - started)
        assert made == 1, made
    return times


def _measure(open_service: Any, sizes: list[int], pairs: int, repeats: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for waiting in sizes:
        for how in ("join", "sweep"):
            p50s, p99s, maxes = [], [], []
            for repeat in range(repeats):
                service = open_service()
                try:
                    clock = _Clock()
                    pool = PoolService(service, clock=clock)
                    tag = f"{waiting:x}{repeat:x}"
                    _fill(pool, tag, waiting)
                    if how == "join":
                        times = _pairings(pool, tag, waiting, pairs)
                    else:
                        times = _sweeps(pool, clock, tag, waiting, pairs)
                finally:
                    service.close()
                p50s.append(quantile(times, 0.5) * 1000)
                p99s.append(quantile(times, 0.99) * 1000)
                maxes.append(max(times) * 1000)
            name = f"{waiting} waiting" + ("" if how == "join" else ", sweep")
            figures[name] = {
                "p50_ms": statistics.median(p50s),
                "p99_ms": statistics.median(p99s),
                "max_ms": statistics.median(maxes),
                "pairs": pairs,
            }
    return figures


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure and print time to pair at each size, on SQLite (and PostgreSQL when given)."""
    sizes = [int(part) for part in args.waiting.split(",") if part]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        counter = iter(range(10**6))

        def sqlite() -> MatchService:
            return MatchService.open(Path(folder) / f"pool{next(counter)}.db")

        results["sqlite"] = _measure(sqlite, sizes, args.pairs, args.repeats)
    postgres = getattr(args, "postgres", None)
    if postgres:
        results["postgres"] = _measure(
            lambda: MatchService.open(database_url=_fresh_schema(postgres)),
            sizes,
            args.pairs,
            args.repeats,
        )
    print("store     waiting   p50 ms   p99 ms   max ms  (time to pair beyond the window's wait)")
    for store, table in results.items():
        for size, row in table.items():
            print(
                f"{store:<9} {size.split()[0]:>7}{' sweep' if 'sweep' in size else '      '}"
                f" {row['p50_ms']:8.1f} {row['p99_ms']:8.1f}"
                f" {row['max_ms']:8.1f}"
            )
    return results


def _fresh_schema(url: str) -> str:
    """``url`` with a schema of its own, so every repeat starts from an empty pool."""
    schema = f"bench_pool_{time.time_ns():x}"
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}schema={schema}"
