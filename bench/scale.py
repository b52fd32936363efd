r"""Scale-out benchmark: PostgreSQL commits, the store's appends and served plays, side by side.

One run, on one PostgreSQL and one machine, in this order:

1. ``raw``: plain psycopg, one small row per autocommitted INSERT, on 1, 4 and 16 connections
   (one thread each) for ``--seconds`` each: commits per second, all connections together.
2. ``store``: ``MatchStore.append`` on PostgreSQL (a schema of its own), one play's events per
   call (the person's ``card_played`` and the bot's reply: two events, one transaction), every
   thread on its own matches, at the same concurrency: appends (commands) per second.
3. ``locks`` (only when asked for): raw single-row transactions at 1 and 16 connections,
   plain, with the table's EXCLUSIVE lock, with a NOTIFY, and with both (what eventsourcing's
   insert does), to see what serialises the commits.
4. ``serve``: ``basra serve`` on a fresh SQLite file with one process, and on PostgreSQL (a
   fresh schema each time) with one and with two processes, under the closed loop of the HTTP
   API benchmark (bench/client.py: practice matches, each loop a play whose answer carries
   the bot's reply and the next view) at 50 and 200 concurrent matches: plays per second and
   each play's latency (p50, p99). The abuse limits are off for the load (one client address
   creates hundreds of matches; ``--rate-limit NAME=off``).

Every part runs ``--repeats`` times, interleaved, and the medians are printed with the runs.
Only 127.0.0.1 is contacted for the servers. Run from the repository root:

    python -m bench scale --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--repeats 3] [--seconds 5] [--serve-seconds 10] [--only raw,store,serve] [--json] \
        [--servers uvicorn,granian] [--variants NAME:KEY=V;...] [--code-before TREE]

``--code-before TREE`` (``--before`` of the old script) serves, and appends with, the code of
another checkout too, interleaved in every repeat.

``--only locks`` runs part 3, which the default leaves out.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec
import psycopg

from app.config import PostgresSettings
from app.service import utc_now
from app.store.match_store import MatchStore
from app.store.postgres import ensure_schema
from bench.before import Legacy, groups
from bench.client import closed_loop
from bench.harness import say
from bench.options import Shared
from bench.servers import (
    SERVE_CASES,
    drop_schema,
    new_schema,
    served_case,
    settings_for,
    tree_cpu_seconds,
)
from domain.commands import CreateMatch
from domain.events import CardPlayed
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

__all__ = ["MatchStore", "drop_schema", "new_schema", "settings_for", "store_appends"]

CONCURRENCY = (1, 4, 16)
"""Connections (and threads) of the raw and store loops."""

ROW = b'{"event":{"type":"card_played","seat":0,"card":"10D","captured":["4C","6H"],' + (
    b'"basra":0},"at":"2026-11-29T21:44:08.123456Z","caused_by":"seat:0/token:abcdef"}'
)
"""A raw row about the size of a stored play."""

SHARED = Shared(
    seconds=5.0, seconds_help="seconds per raw or store loop", repeats=3, postgres="needed"
)
"""Each raw and store loop's length, the repeats of every part, the PostgreSQL server."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_scale.py)."""
    found: dict[str, float] = {}
    for c in CONCURRENCY:
        found |= groups(text, rf"raw psycopg, {c} connections +([\d,]+) commits/s", [f"raw/{c}"])
        pattern = rf"^  store\.append, {c} threads +([\d,]+) appends/s"
        found |= groups(text, pattern, [f"store/{c}"])
    for line in text.splitlines():
        served = re.match(
            r"  (\S+) +([\d,]+) plays/s  p50 +([\d.]+) ms  p99 +([\d.]+) ms"
            r"(?:  server CPU ([\d.]+) ms/play)?",
            line,
        )
        if served is not None:
            key = served.group(1)
            for k, name in enumerate(("plays_s", "p50", "p99", "server_cpu_ms_per_play"), 2):
                if served.group(k) is not None:
                    found[f"serve/{key}/{name}"] = float(served.group(k).replace(",", ""))
    return found


LEGACY = Legacy(
    "bench.bench_scale",
    read_legacy,
    names={"seconds": "--seconds", "repeats": "--repeats", "postgres": "--postgres"},
    renames={"--code-before": "--before"},
)
"""The old script, bench/bench_scale.py, printed the same report."""


# -- 1. raw commits -----------------------------------------------------------------------------


def raw_commits(
    settings: PostgresSettings, connections: int, seconds: float, kind: str = "plain"
) -> float:
    """Single-row INSERT transactions per second over ``connections`` connections. ``kind``:
    ``plain`` (autocommitted), or a transaction that first takes the table's EXCLUSIVE lock
    (``lock``), sends a NOTIFY (``notify``) or both (``lock+notify``), as eventsourcing's
    insert does."""
    ensure_schema(settings)
    table = f'"{settings.schema}".raw_rows'
    kwargs: dict[str, Any] = {
        "dbname": settings.dbname,
        "host": settings.host,
        "port": settings.port,
        "user": settings.user,
        "password": settings.password,
        "autocommit": True,
    }
    with psycopg.connect(**kwargs) as setup:
        setup.execute(
            f"CREATE TABLE IF NOT EXISTS {table} (id bigserial PRIMARY KEY, match text, "
            "state bytea)"
        )
    counts = [0] * connections
    start = threading.Barrier(connections + 1)
    deadline = [0.0]

    def loop(i: int) -> None:
        with psycopg.connect(**kwargs) as conn:
            statement = f"INSERT INTO {table} (match, state) VALUES (%s, %s)"
            start.wait()
            n = 0
            while time.monotonic() < deadline[0]:
                if kind == "plain":
                    conn.execute(statement, (f"m-{i}-{n % 200}", ROW), prepare=True)
                else:
                    with conn.transaction():
                        if "lock" in kind:
                            conn.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
                        if "notify" in kind:
                            conn.execute(f'NOTIFY "{settings.schema}_raw"')
                        conn.execute(statement, (f"m-{i}-{n % 200}", ROW), prepare=True)
                n += 1
            counts[i] = n

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    deadline[0] = time.monotonic() + 0.3 + seconds
    start.wait()
    begin = time.monotonic()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - begin)


# -- 2. the store's appends -----------------------------------------------------------------------


def play_events() -> list[RecordedEvent]:
    """The events of one play command: a card played and the bot's reply (two events)."""
    events, _ = play_match(
        CreateMatch(
            match_id="template",
            ruleset="classic",
            seats=2,
            secret=secret_from_text_seed("bench/scale"),
            bots=(0, 1),
        )
    )
    plays = [e for e in events if isinstance(e, CardPlayed)][:2]
    at = utc_now()
    return [RecordedEvent(seq=0, at=at, event=e, caused_by="bot:0") for e in plays]


def store_appends(store: MatchStore, threads: int, seconds: float) -> float:
    """Appends (one play's two events each) per second, every thread on matches of its own."""
    template = play_events()
    counts = [0] * threads
    start = threading.Barrier(threads + 1)
    deadline = [0.0]
    run = uuid.uuid4().hex[:6]

    def loop(i: int) -> None:
        n = 0
        match = 0
        seq = 0
        start.wait()
        while time.monotonic() < deadline[0]:
            if seq >= 200:  # a match of 200 events: start the next one
                match += 1
                seq = 0
            match_id = f"m-{run}-{i}-{match}"
            batch = [msgspec.structs.replace(r, seq=seq + k + 1) for k, r in enumerate(template)]
            store.append(match_id, batch)
            seq += len(batch)
            n += 1
        counts[i] = n

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    deadline[0] = time.monotonic() + 0.3 + seconds
    start.wait()
    begin = time.monotonic()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.monotonic() - begin)


STORE_IN_TREE = """
try:
    from bench.scale import MatchStore, drop_schema, new_schema, settings_for, store_appends
except ImportError:  # a checkout from before the harness
    from bench.bench_scale import MatchStore, drop_schema, new_schema, settings_for, store_appends
settings = settings_for({url!r}, new_schema())
store = MatchStore.postgres(settings)
try:
    print(store_appends(store, {threads}, {seconds}))
finally:
    store.close()
    drop_schema(settings)
"""


def store_in_tree(tree: Path, url: str, threads: int, seconds: float) -> float:
    """``store_appends`` run by the code of another checkout, in a process of its own."""
    code = STORE_IN_TREE.format(url=url, threads=threads, seconds=seconds)
    env = dict(os.environ) | {"PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return float(done.stdout.split()[-1])


# -- 4. served plays ------------------------------------------------------------------------------


def serve_case(
    args: argparse.Namespace,
    workdir: Path,
    case: tuple[str, str | None, int],
    load: int,
    r: int,
    tree: Path | None = None,
    variant: dict[str, str] | None = None,
    server: str = "uvicorn",
) -> dict[str, float]:
    """One served run of ``case`` under ``load`` concurrent matches (``variant``: more
    environment for the server, and options of ``basra serve`` under keys starting with ``--``;
    ``server``: the ASGI server ``basra serve`` runs)."""
    label, _, _ = case
    env_extra: dict[str, str] = {}
    if label.startswith("sqlite") and args.sqlite_synchronous:
        env_extra["BASRA_SQLITE_SYNCHRONOUS"] = args.sqlite_synchronous
    # A variant's keys starting with -- are options of basra serve, the others its environment.
    variant = variant or {}
    env_extra |= {name: value for name, value in variant.items() if not name.startswith("--")}
    serve_args = [
        arg for name, value in variant.items() if name.startswith("--") for arg in (name, value)
    ]
    with served_case(workdir, case, args.postgres, env_extra, tree, server, serve_args) as running:
        port, pid = running
        say(f"serve {label} ({server}) at {load} matches, repeat {r + 1}")
        cpu_before = tree_cpu_seconds(pid)
        run = asyncio.run(closed_loop(port, load, args.serve_seconds, seed=r))
        cpu = tree_cpu_seconds(pid) - cpu_before
        plays = run["plays_s"] * args.serve_seconds
        run["server_cpu_ms_per_play"] = round(cpu * 1000 / plays, 3) if plays else 0.0
        return run


# -- the run --------------------------------------------------------------------------------------


def parse_variants(text: str) -> list[tuple[str, dict[str, str]]]:
    """``NAME:KEY=V,KEY=V;NAME:...`` as (``NAME:``, environment); one plain run when empty."""
    if not text:
        return [("", {})]
    variants = []
    for part in text.split(";"):
        name, _, pairs = part.partition(":")
        env = dict(pair.split("=", 1) for pair in pairs.split(",") if pair)
        variants.append((f"{name}:", env))
    return variants


def median_line(label: str, runs: list[float], unit: str, base: float | None = None) -> str:
    """``label  median unit  (ratio)  [runs]``."""
    median = statistics.median(runs)
    ratio = f"  {median / base:6.1%} of raw" if base else ""
    listed = ", ".join(f"{x:,.0f}" for x in runs)
    return f"  {label:<34} {median:>9,.0f} {unit}{ratio}  [{listed}]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--serve-seconds", type=float, default=10.0, help="per served run")
    parser.add_argument("--loads", default="50,200", help="concurrent matches of served runs")
    parser.add_argument("--only", default="raw,store,serve")
    parser.add_argument("--cases", default="sqlite-1,pg-1,pg-2")
    parser.add_argument("--sqlite-synchronous", default=None, help="FULL or NORMAL")
    parser.add_argument(
        "--variants",
        default="",
        help="server environments to compare, NAME:KEY=V,KEY=V;NAME:... (e.g. "
        "inline:BASRA_API_STORE_CALLS=inline;threads:BASRA_API_STORE_CALLS=threads); a KEY "
        "starting with -- is an option of basra serve instead (e.g. h11:--http=h11,--loop=asyncio)",
    )
    parser.add_argument(
        "--servers",
        default="uvicorn",
        help="ASGI servers to compare, interleaved in each run (uvicorn,granian)",
    )
    parser.add_argument(
        "--code-before",
        type=Path,
        default=None,
        help="also serve from this checkout (e.g. git archive of an earlier commit), interleaved",
    )


def medians(runs: dict[Any, list[float]]) -> dict[str, float]:
    """Each key's median (keys with no runs left out)."""
    return {str(key): statistics.median(values) for key, values in runs.items() if values}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the parts asked for and print the medians; the medians, and every run."""
    parts = set(args.only.split(","))
    results: dict[str, Any] = {}

    if parts & {"raw", "store"}:
        raw: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
        appends: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
        before: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
        for r in range(args.repeats):
            for c in CONCURRENCY:
                if "raw" in parts:
                    settings = settings_for(args.postgres, new_schema())
                    say(f"raw commits on {c} connections, repeat {r + 1}")
                    try:
                        raw[c].append(raw_commits(settings, c, args.seconds))
                    finally:
                        drop_schema(settings)
                if "store" in parts:
                    settings = settings_for(args.postgres, new_schema())
                    say(f"store appends on {c} threads, repeat {r + 1}")
                    store = MatchStore.postgres(settings)
                    try:
                        appends[c].append(store_appends(store, c, args.seconds))
                    finally:
                        store.close()
                        drop_schema(settings)
                    if args.code_before is not None:
                        say(f"store appends of {args.code_before} on {c} threads, repeat {r + 1}")
                        before[c].append(
                            store_in_tree(args.code_before, args.postgres, c, args.seconds)
                        )
        print(f"## PostgreSQL commits, medians of {args.repeats} runs of {args.seconds:g} s")
        for c in CONCURRENCY:
            base = statistics.median(raw[c]) if raw[c] else None
            if raw[c]:
                print(median_line(f"raw psycopg, {c} connections", raw[c], "commits/s"))
            if appends[c]:
                print(median_line(f"store.append, {c} threads", appends[c], "appends/s", base))
            if before[c]:
                label = f"before: store.append, {c} threads"
                print(median_line(label, before[c], "appends/s", base))
        results["raw"] = medians(raw)
        results["store"] = medians(appends)
        results["store_before"] = medians(before)
        results["runs"] = {"raw": raw, "store": appends, "store_before": before}

    if "locks" in parts:
        kinds = ("plain", "notify", "lock", "lock+notify")
        rates_by: dict[str, list[float]] = {}
        for r in range(args.repeats):
            for c in (1, 16):
                for kind in kinds:
                    settings = settings_for(args.postgres, new_schema())
                    say(f"raw {kind} on {c} connections, repeat {r + 1}")
                    try:
                        rate = raw_commits(settings, c, args.seconds, kind)
                        rates_by.setdefault(f"{kind}, {c} connections", []).append(rate)
                    finally:
                        drop_schema(settings)
        print(f"## What serialises commits, medians of {args.repeats} runs of {args.seconds:g} s")
        for label, rates in rates_by.items():
            print(median_line(label, rates, "commits/s"))
        results["locks"] = medians(rates_by)
        results.setdefault("runs", {})["locks"] = rates_by

    if "serve" in parts:
        cases = [c for c in SERVE_CASES if c[0] in args.cases.split(",")]
        loads = [int(x) for x in args.loads.split(",")]
        variants = parse_variants(args.variants)
        servers = args.servers.split(",")
        runs: dict[str, list[dict[str, float]]] = {}
        with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
            for r in range(args.repeats):
                for load in loads:
                    for case in cases:
                        trees = [(None, "")] + (
                            [(args.code_before, "before:")] if args.code_before else []
                        )
                        for (tree, prefix), (name, variant), server in itertools.product(
                            trees, variants, servers
                        ):
                            run = serve_case(args, Path(tmp), case, load, r, tree, variant, server)
                            shown = "" if server == "uvicorn" else f"{server}:"
                            key = f"{prefix}{name}{shown}{case[0]}@{load}"
                            runs.setdefault(key, []).append(run)
        print(
            f"## basra serve, closed loop, medians of {args.repeats} runs of "
            f"{args.serve_seconds:g} s"
        )
        for key, found in runs.items():
            plays = statistics.median(x["plays_s"] for x in found)
            p50 = statistics.median(x["p50"] for x in found)
            p99 = statistics.median(x["p99"] for x in found)
            listed = ", ".join(f"{x['plays_s']:,.0f}/{x['p99']:.0f}" for x in found)
            cpu = statistics.median(x.get("server_cpu_ms_per_play", 0.0) for x in found)
            errors = sum(int(x.get("errors", 0)) for x in found)
            print(
                f"  {key:<30} {plays:>7,.0f} plays/s  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms"
                f"  server CPU {cpu:.2f} ms/play  [plays/s / p99: {listed}]  failed: {errors}"
            )
            results.setdefault("serve", {})[key] = {
                "plays_s": plays,
                "p50": p50,
                "p99": p99,
                "server_cpu_ms_per_play": cpu,
                "errors": errors,
            }
        results.setdefault("runs", {})["serve"] = runs
    return results
