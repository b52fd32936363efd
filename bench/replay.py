"""Benchmark: opening a 300-event match and jumping to any step; ``verify --all`` speed.

Run: python -m bench replay [--jumps N] [--matches M] [--repeats R] [--postgres URL] [--json]

Everything runs against a fresh SQLite store in a temporary folder (or a fresh schema of
PostgreSQL with ``--postgres URL``; ``--database-url`` as the old script named it), filled by
the service with bot matches from fixed text seeds.

Opening and jumping, per sample (a random seq and a random viewer each time):
  cold   open the store, read the match's events, build the cursor, fold to the seq, render
  warm   the store already open: read the events, build the cursor, fold, render
  jump   the cursor already built and folded once: position at the seq, render
  cli    ``basra replay ID --step N`` as a new process (Python start-up and imports included)

``verify --all``, in one run, interleaved over the repeats:
  audit  re-adjudicate streams already in memory
  no_bots  the same without checking that bot seats played their bot's pick
  store  read each stream from the store and re-adjudicate it (in process)
  cli    ``basra verify --all`` as a new process, start-up included
Figures are medians (and the 95th percentile for the jumps); speeds are matches per second.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.service import MatchService
from bench.before import Legacy, json_figures
from bench.options import Shared
from bench.servers import fresh_schema
from bench.stats import quantile
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.redaction import SUPPORT
from replays.audit import audit
from replays.cursor import MatchCursor
from replays.render import render_frame

RULESETS = ("classic", "egyptian", "lebanese", "yemeni", "jordanian")
TARGET_EVENTS = 300

SHARED = Shared(
    repeats=5,
    repeats_help="verify --all repeats",
    postgres="optional",
    postgres_from_env=False,
    names={"postgres": ("--database-url",)},
)
"""Repeats of verify --all; PostgreSQL instead of SQLite when given."""

LEGACY = Legacy(
    "bench.bench_replay",
    json_figures,
    names={"repeats": "--repeats", "postgres": "--database-url"},
    extra=("--json",),
)
"""The old script, bench/bench_replay.py, printed the same JSON with ``--json``."""


def _open(db: Path, url: str | None) -> MatchService:
    return MatchService.open(db, database_url=url)


def fill(db: Path, url: str | None, matches: int) -> tuple[str, int, list[str]]:
    """Record ``matches`` bot matches; return the id and length of the shortest of 300+ events."""
    service = _open(db, url)
    try:
        ids: list[str] = []
        best: tuple[int, str, int] | None = None
        for k in range(matches):
            ruleset = RULESETS[k % len(RULESETS)]
            seats = 2 if k % 2 == 0 else 4
            created = service.create_match(
                ruleset=ruleset,
                seats=seats,
                bots=tuple(range(seats)),
                bot_kind="easy" if k % 3 else "random",
                secret=secret_from_text_seed(f"bench-replay/{k}"),
                match_id=f"bench-{k:04d}",
            )
            match_id, recorded = created.match_id, created.events
            ids.append(match_id)
            length = len(recorded)
            if length >= TARGET_EVENTS and (best is None or length - TARGET_EVENTS < best[0]):
                best = (length - TARGET_EVENTS, match_id, length)
        if best is None:
            raise SystemExit(f"no match of {TARGET_EVENTS}+ events among {matches}; use more")
        return best[1], best[2], ids
    finally:
        service.close()


def _frame(cursor: MatchCursor, seq: int, viewer: int) -> str:
    return render_frame(cursor.position(seq, viewer))


def sample_jumps(
    db: Path, url: str | None, match_id: str, jumps: int, rng: random.Random
) -> dict[str, list[float]]:
    """Times in ms of the cold, warm and jump samples."""
    out: dict[str, list[float]] = {"cold": [], "warm": [], "jump": []}
    service = _open(db, url)
    try:
        events = service.events(match_id)
        last = len(events)
        seats = MatchCursor(events).seats
        built = MatchCursor(events)
        built.state(last)
        for _ in range(jumps):
            seq, viewer = rng.randint(1, last), rng.choice([SUPPORT, *range(seats)])
            t0 = time.perf_counter()
            cold = _open(db, url)
            try:
                _frame(MatchCursor(cold.events(match_id)), seq, viewer)
            finally:
                cold.close()
            t1 = time.perf_counter()
            _frame(MatchCursor(service.events(match_id)), seq, viewer)
            t2 = time.perf_counter()
            _frame(built, seq, viewer)
            t3 = time.perf_counter()
            out["cold"].append((t1 - t0) * 1000)
            out["warm"].append((t2 - t1) * 1000)
            out["jump"].append((t3 - t2) * 1000)
    finally:
        service.close()
    return out


def _basra(args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        env=env,
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"basra {' '.join(args)} failed: {done.stderr.decode()[-500:]}")
    return elapsed


def sample_cli_jumps(
    db: Path, url: str | None, match_id: str, last: int, count: int, rng: random.Random
) -> list[float]:
    """Times in ms of ``basra replay ID --step N`` processes."""
    env = _env(url)
    return [
        1000
        * _basra(["replay", match_id, "--step", str(rng.randint(1, last)), "--db", str(db)], env)
        for _ in range(count)
    ]


def _env(url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("POSTGRES_")}
    env.pop("BASRA_DATABASE_URL", None)
    if url:
        env["BASRA_DATABASE_URL"] = url
    return env


def sample_verify(
    db: Path, url: str | None, ids: list[str], repeats: int
) -> tuple[dict[str, list[float]], int]:
    """Matches per second (audit alone, store + audit in process, the CLI); events in all."""
    service = _open(db, url)
    try:
        streams: list[list[RecordedEvent]] = [service.events(i) for i in ids]
    finally:
        service.close()
    rates: dict[str, list[float]] = {"audit": [], "no_bots": [], "store": [], "cli": []}

    def timed(work: Callable[[], None]) -> float:
        t0 = time.perf_counter()
        work()
        return len(ids) / (time.perf_counter() - t0)

    def audit_all() -> None:
        assert all(audit(s).ok for s in streams)

    def audit_rules_only() -> None:
        assert all(audit(s, bots=False).ok for s in streams)

    def store_all() -> None:
        opened = _open(db, url)
        try:
            assert all(audit(opened.events(i)).ok for i in opened.match_ids())
        finally:
            opened.close()

    for _ in range(repeats):
        rates["audit"].append(timed(audit_all))
        rates["no_bots"].append(timed(audit_rules_only))
        rates["store"].append(timed(store_all))
        rates["cli"].append(len(ids) / _basra(["verify", "--all", "--db", str(db)], _env(url)))
    return rates, sum(len(s) for s in streams)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--jumps", type=int, default=200, help="random jumps to sample")
    parser.add_argument("--cli-jumps", type=int, default=15, help="basra replay processes")
    parser.add_argument("--matches", type=int, default=200, help="matches for verify --all")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Fill a store, measure, print a table."""
    rng = random.Random(20261129)  # the benchmark's sample order only; never game randomness
    with contextlib.ExitStack() as stack:
        url = None
        if args.postgres:
            url, _ = stack.enter_context(fresh_schema(args.postgres))
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        db = Path(folder) / "bench.db"
        match_id, length, ids = fill(db, url, args.matches)
        jumps = sample_jumps(db, url, match_id, args.jumps, rng)
        jumps["cli"] = sample_cli_jumps(db, url, match_id, length, args.cli_jumps, rng)
        rates, events = sample_verify(db, url, ids, args.repeats)
    jump_figures = {
        k: {"median_ms": statistics.median(v), "p95_ms": quantile(v, 0.95), "n": len(v)}
        for k, v in jumps.items()
    }
    verify_figures = {k: {"median": statistics.median(v), "n": len(v)} for k, v in rates.items()}
    result = {
        "store": "postgresql" if url else "sqlite",
        "match_events": length,
        "jumps": jump_figures,
        "verify_matches": len(ids),
        "verify_events": events,
        "verify_per_s": verify_figures,
    }
    print(
        f"store: {result['store']}; match of {length} events; {len(ids)} matches"
        f" ({events} events) verified"
    )
    for kind, figures in jump_figures.items():
        print(
            f"  open+jump {kind:<5} median {figures['median_ms']:8.2f} ms"
            f"   p95 {figures['p95_ms']:8.2f} ms   (n={figures['n']})"
        )
    for kind, figures in verify_figures.items():
        print(f"  verify    {kind:<7} median {figures['median']:8.1f} matches/s (n={figures['n']})")
    return result
