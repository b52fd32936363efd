"""Benchmark: store calls while PostgreSQL is down, and how soon they succeed once it is back.

Run: python -m bench outage [--threads 8] [--seconds 10] [--modes library,breaker]

A private PostgreSQL cluster (initdb in a temporary directory, as tests/e2e/private_postgres.py
makes for the restart test) is started; ``--threads`` threads each read the store's log position
(``MatchStore.max_position``, one store call) in a loop, 20 ms apart. The cluster is stopped
(``pg_ctl -m fast``, as a restart does), left down for ``--seconds`` (``--down`` as the old
script named it) and started again.
Printed for each mode: how many calls were refused while it was down and how long each took
(median, p99, max), how long after ``pg_ctl start`` returned the first call succeeded, and the
longest call that succeeded (one that waited through the outage).

Modes: ``library`` is the store as eventsourcing's own PostgreSQL factory makes it (a pool wait
of 5 s, the library's 10 attempts per call): the store before the breaker. ``breaker`` is
``MatchStore.postgres`` (app/store/postgres.py: ``GuardedPostgresFactory``, its recorders'
``Breaker``, a pool wait of 2 s and the pool's reconnecting bounded). ``breaker-pool-default``
is the same with the pool left as the library makes it (psycopg_pool reconnecting for 5 minutes
with doubling delays, no libpq connect timeout), to show what bounding the reconnection gives.
"""

from __future__ import annotations

import argparse
import re
import statistics
import threading
import time
from typing import Any

from eventsourcing.persistence import InfrastructureFactory

from app.config import StoreConfig, parse_database_url
from app.errors import StoreUnavailableError
from app.store.match_store import MatchStore
from bench.before import Legacy, groups
from bench.options import Shared
from bench.stats import quantile
from tests.e2e.private_postgres import private_cluster

GIVE_UP_SECONDS = 600.0
"""How long after the restart a mode may take to answer before the run reports that it did not."""

SHARED = Shared(
    seconds=10.0, seconds_help="seconds PostgreSQL is down", names={"seconds": ("--down",)}
)
"""How long PostgreSQL is down."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_outage.py)."""
    found: dict[str, float] = {}
    for block in re.split(r"\n(?=\S+: \d+ threads)", text):
        head = re.match(r"(\S+): \d+ threads", block)
        if head is None:
            continue
        mode = head.group(1)
        keys = [f"{mode}/refused", f"{mode}/refused_median_s", f"{mode}/refused_p99_s"]
        keys.append(f"{mode}/refused_max_s")
        pattern = r"refused while down: (\d+) calls; .*median ([\d.]+), p99 ([\d.]+), max ([\d.]+)"
        found |= groups(block, pattern, keys)
        found |= groups(block, r"first call answered ([\d.]+) s", [f"{mode}/first_answer_s"])
        found |= groups(block, r"longest call that was answered: ([\d.]+) s", [f"{mode}/longest_s"])
    return found


LEGACY = Legacy("bench.bench_outage", read_legacy, names={"seconds": "--down"})
"""The old script, bench/bench_outage.py, printed the same report."""


def library_store(url: str) -> MatchStore:
    """The store as eventsourcing's own factory builds it (the code before the breaker)."""
    settings = parse_database_url(url)
    factory = InfrastructureFactory.construct(
        {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "ORIGINATOR_ID_TYPE": "text",
            "POSTGRES_CONNECT_TIMEOUT": "5",
            **settings.env(),
        }
    )
    return MatchStore(factory, config=StoreConfig(kind="postgres", postgres=settings))


def breaker_store(url: str, *, bounded_pool: bool) -> MatchStore:
    """``MatchStore.postgres``; with ``bounded_pool`` False, its pool as the library made it."""
    store = MatchStore.postgres(parse_database_url(url))
    if not bounded_pool:
        factory: Any = store.factory
        pool = factory.datastore.pool
        pool.reconnect_timeout = 5 * 60.0  # psycopg_pool's default
        pool.kwargs.pop("connect_timeout", None)
    return store


def open_store(mode: str, url: str) -> MatchStore:
    """The store of ``mode``."""
    if mode == "library":
        return library_store(url)
    if mode == "breaker":
        return breaker_store(url, bounded_pool=True)
    if mode == "breaker-pool-default":
        return breaker_store(url, bounded_pool=False)
    raise SystemExit(f"unknown mode {mode!r}")


def outage(mode: str, threads: int, down_seconds: float) -> dict[str, float]:
    """One outage against one store; the figures, also on stdout."""
    with private_cluster() as cluster:
        url = cluster.url()
        store = open_store(mode, url)
        refused: list[float] = []
        answered: list[tuple[float, float]] = []  # (start, end)
        stop = threading.Event()
        lock = threading.Lock()

        def worker() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    store.max_position()
                    ok = True
                except StoreUnavailableError:
                    ok = False
                ended = time.perf_counter()
                with lock:
                    if ok:
                        answered.append((started, ended))
                    else:
                        refused.append(ended - started)
                time.sleep(0.02)

        workers = [threading.Thread(target=worker) for _ in range(threads)]
        for thread in workers:
            thread.start()
        time.sleep(1)
        cluster.stop()
        time.sleep(down_seconds)
        cluster.start()
        up = time.perf_counter()
        back: list[float] = []
        while time.perf_counter() - up < GIVE_UP_SECONDS:
            with lock:
                back = [end for start, end in answered if start > up]
            if back:
                break
            time.sleep(0.01)
        stop.set()
        for thread in workers:
            thread.join()
        store.close()
    waits = sorted(refused)
    print(f"\n{mode}: {threads} threads, PostgreSQL down {down_seconds:.0f} s")
    figures: dict[str, float] = {"refused": len(waits)}
    if waits:
        p99 = quantile(waits, 0.99)
        figures |= {
            "refused_median_s": statistics.median(waits),
            "refused_p99_s": p99,
            "refused_max_s": waits[-1],
        }
        print(
            f"  refused while down: {len(waits)} calls; seconds each: median "
            f"{statistics.median(waits):.3f}, p99 {p99:.3f}, max {waits[-1]:.3f}"
        )
    longest = max(end - start for start, end in answered)
    figures["longest_s"] = longest
    if back:
        figures["first_answer_s"] = min(back) - up
        print(f"  first call answered {min(back) - up:.2f} s after the restart")
    else:
        print(f"  no call answered within {GIVE_UP_SECONDS:.0f} s of the restart")
    print(f"  longest call that was answered: {longest:.2f} s")
    return figures


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--modes", default="library,breaker")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run each mode."""
    return {mode: outage(mode, args.threads, args.seconds) for mode in args.modes.split(",")}
