"""Benchmark: the support desk's reads over 100,000 players and 100,000 stored matches, on a
SQLite store on this machine.

Run from the repository root:

    python -m bench support [--matches 100000] [--plays 4] [--calls 400] [--dir DIR]

1. The store of ``bench results`` (bench/results.py ``generate``): ``--matches`` finished 2-seat
   matches between ``--matches`` registered players, ``--plays`` plays each; then the read
   models and the results caught up once (not measured: a server keeps them current).
2. ``--calls`` calls each, in this process and on the API's own code: ``GET /support/players?q=``
   (a random player's name prefix of 9 characters, 50 hits at most), ``GET
   /support/players/{id}`` (a random player) and ``GET /support/matches/{id}`` without its
   analysis (a random match: the replay with every hand, the timeline, presence, the refused
   commands, each bot play marked and the verification). Latency p50/p99/max per read. Goal:
   p99 <= 50 ms each.
3. Then what a server adds to those reads: ``search_refresh_due``, a search made when the
   players directory's 30-second refresh for support is due (it falls on one read in each 30 s
   of a process's support traffic: ``min(--calls, 40)`` calls, each with the refresh made due
   first), ``player_page_refresh_due`` the same for the player page, and ``trail``, the
   access-trail record every support page writes before it answers.
   Each read's figures also say how many full (generation 2) garbage collections ran while it
   was measured and their longest pause, and the load average is given at the start and end.

It measures the handlers' work (store, read models, re-adjudication), not HTTP; an HTTP round
trip on this machine adds about a millisecond (docs/performance.md). Results go to stdout;
progress to stderr.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.api.settings import ApiSettings
from app.api.support.investigate import investigate
from app.api.support.player_page import player_page
from app.readmodels.support_search import search_players
from app.runtime.runtime import ApiRuntime
from app.service import MatchService
from bench.harness import say
from bench.options import Shared
from bench.results import generate

SHARED = Shared(workdir=True)
"""The folder of the store."""

LEGACY = None
"""No earlier script."""

GOAL_MS = 50.0
"""p99 of each read."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=100_000, help="matches (and players)")
    parser.add_argument("--plays", type=int, default=4, help="plays in each generated match")
    parser.add_argument("--calls", type=int, default=400, help="calls of each read")
    parser.add_argument(
        "--reuse", action="store_true", help="keep the store already in --dir (and its read models)"
    )


def _latencies(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p99_ms": round(p99 * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
    }


def _pause_timer(pauses: list[float]) -> Callable[[str, dict[str, int]], None]:
    """A ``gc.callbacks`` entry adding each full collection's pause (s) to ``pauses``."""
    began = [0.0]

    def timer(phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses.append(time.perf_counter() - began[0])

    return timer


def _refresh_made_due(models: Any) -> Callable[[], None]:
    """Makes support's next read find the players directory's refresh due (as it does once
    every 30 s of a process's support traffic)."""
    from app.readmodels import support_search

    def due() -> None:
        support_search._caught[models] = time.monotonic() - support_search.FRESH_SECONDS - 1

    return due


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Generate, catch up, measure; the figures."""
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="bench-support-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "basra.db"
    if args.reuse and db.exists():
        ids = [f"p-{k:032x}" for k in range(args.matches)]
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        say(f"generating {args.matches} matches and players in {db}")
        ids = generate(db, args.matches, args.plays)
    service = MatchService.open(db)
    try:
        runtime = ApiRuntime(service, ApiSettings(support_token="bench"))
        started = time.perf_counter()
        runtime.projections.matches.catch_up()
        runtime.projections.results.catch_up()
        say(f"  read models caught up in {time.perf_counter() - started:.1f} s")
        rng = random.Random(7)
        models, results = runtime.projections.matches, runtime.projections.results
        reads: dict[str, Callable[[], object]] = {
            "search": lambda: search_players(models, results, f"Player {rng.choice(ids)[-6:]}"[:9]),
            "player_page": lambda: player_page(runtime, rng.choice(ids)),
            "match_page": lambda: investigate(runtime, f"m-{rng.randrange(args.matches)}"),
        }
        figures: dict[str, Any] = {"matches": args.matches, "players": len(ids)}
        figures["load_start"] = round(os.getloadavg()[0], 2)
        pauses: list[float] = []
        gc.callbacks.append(_pause_timer(pauses))
        due = _refresh_made_due(models)
        reads["search_refresh_due"] = reads["search"]
        reads["player_page_refresh_due"] = reads["player_page"]
        reads["trail"] = lambda: runtime.access.record_access("bench", "-", "search", "req-b")
        for name, read in reads.items():
            read()  # warm
            times = []
            pauses.clear()
            made_due = name.endswith("_refresh_due")
            calls = min(args.calls, 40) if made_due else args.calls
            for _ in range(calls):
                if made_due:
                    due()
                began = time.perf_counter()
                read()
                times.append(time.perf_counter() - began)
            figures[name] = _latencies(times) | {
                "gc_full": len(pauses),
                "gc_full_max_ms": round(max(pauses, default=0.0) * 1000, 3),
            }
            if name in ("search", "player_page", "match_page"):
                figures[name]["goal_p99_ms"] = GOAL_MS
            shown = figures[name]
            print(
                f"{name}: p50 {shown['p50_ms']} ms, p99 {shown['p99_ms']} ms,"
                f" max {shown['max_ms']} ms ({shown['calls']} calls;"
                f" {shown['gc_full']} full GC, longest {shown['gc_full_max_ms']} ms)"
            )
        figures["load_end"] = round(os.getloadavg()[0], 2)
        print(
            f"load average {figures['load_start']} at the start, {figures['load_end']} at the end"
        )
        time.sleep(0.5)  # a refresh still running beside the reads ends before the store closes
        runtime.projections.close()
        return figures
    finally:
        service.close()
