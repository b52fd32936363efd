"""Benchmark: the results projection (R27) over 100,000 finished matches, and the results routes
under load with 100,000 rated players, on a SQLite store on this machine.

Run from the repository root:

    python -m bench results [--matches 100000] [--plays 48] [--repeats 3]
        [--seconds 10] [--concurrency 1,8,32] [--rates 100,200,400] [--code-before DIR] [--every]
        [--apply-only] [--dir DIR] [--reuse]

(``--seconds`` and ``--code-before`` were ``--duration`` and ``--before`` in the old script.)

1. Generated streams, written straight into a fresh store in bulk: ``--matches`` finished
   2-seat matches between registered players (``match_created``, two ``seat_taken``, a round
   start, a deal, the floor, ``--plays`` plays, a round score and ``match_ended``), one player per
   match at least (players ``2i`` and ``2i+1`` meet in the first half, random pairs after), so
   every player is rated. End times one second apart.
2. Applying their results: ``Results.catch_up`` from an empty file, each run in a fresh process,
   reading only ``match_created``, ``seat_taken`` and ``match_ended`` from the log (as it runs);
   with ``--code-before DIR`` (a tree of earlier code, e.g. ``git archive COMMIT app domain | tar -x
   -C DIR``) the same with that code, on a copy of the store without the topic index (which
   earlier code never made), the runs interleaved; with ``--every``, the projection made to read
   every entry of the log. Matches per second, median of ``--repeats`` runs each. Goal: 5,000
   matches/s.
3. ``basra serve`` over that store (one process, every abuse limit off) with the results
   caught up, then ``--concurrency`` keep-alive clients for ``--seconds`` each,
   half of them asking ``GET /players/{id}`` of random rated players, half walking ``GET
   /ladder`` page by page (20 a page, following ``next``); latency p50/p99 per route. Goal: p99
   <= 10 ms. With ``--rates``, also an open loop at each rate (requests arriving on their own
   schedule, as from many independent players), latency counted from each planned arrival.

Only 127.0.0.1 is contacted. Results go to stdout; progress to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
from eventsourcing.persistence import StoredEvent

from app.config import readmodel_path
from app.readmodels.results import Results, results_path
from app.store.match_store import TOPIC_INDEX, MatchStore
from app.store.player_store import PlayerStore
from bench.before import Legacy, groups
from bench.client import Connection
from bench.harness import say
from bench.options import Shared
from bench.servers import served
from bench.stats import quantile
from domain.events import (
    CardPlayed,
    CardsDealt,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RoundScored,
    RoundStarted,
    SeatTaken,
    SideScore,
)
from domain.players import register
from domain.recorded import RecordedEvent
from domain.times import utc_text

START_MS = 1_790_000_000_000
"""The first generated match's end time (ms since the epoch); each next one a second later."""

ENCODE = msgspec.json.Encoder().encode
"""Encodes a player event as its stream stores it."""

CHUNK = 2000
"""Matches written per transaction while generating."""


SHARED = Shared(
    seconds=10.0,
    seconds_help="seconds of each load",
    repeats=3,
    repeats_help="runs of each application of the log",
    workdir=True,
    names={"seconds": ("--duration",)},
)
"""The load's length, the applications' runs, the folder of the store."""

LATENCY = r"p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms"
"""A route's printed latencies."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_results.py)."""
    found: dict[str, float] = {}
    for name, start in (
        ("needed", "reading 3 kinds"),
        ("before", "the code of"),
        ("every", "this code made"),
    ):
        pattern = (
            rf"^  {start}.*: (\d+) entries read, median ([\d.]+) s of .*, ([\d,]+) matches/s;"
            r" CPU median ([\d.]+) s"
        )
        keys = ["entries", "median_s", "matches_per_s", "cpu_s"]
        found |= groups(text, pattern, [f"apply/{name}/{key}" for key in keys])
    for line in re.finditer(
        r"^ +(\d+) client\(s\) (\w+) +(\d+) requests, ([\d,]+)/s, " + LATENCY, text, re.M
    ):
        names = ("requests", "per_s", "p50_ms", "p99_ms", "max_ms")
        for k, key in enumerate(names, start=3):
            found[f"load/{line.group(1)}/{line.group(2)}/{key}"] = float(
                line.group(k).replace(",", "")
            )
    for line in re.finditer(r"^ +(\d+)/s offered  (\w+) +(\d+) requests, " + LATENCY, text, re.M):
        open_names = ("requests", "p50_ms", "p99_ms", "max_ms")
        for k, key in enumerate(open_names, start=3):
            found[f"load/open/{line.group(1)}/{line.group(2)}/{key}"] = float(line.group(k))
    return found


LEGACY = Legacy(
    "bench.bench_results",
    read_legacy,
    names={"seconds": "--duration", "repeats": "--repeats", "dir": "--dir"},
    renames={"--code-before": "--before"},
)
"""The old script, bench/bench_results.py, printed the same report."""


def _match(n: int, a: str, b: str, plays: int, rng: random.Random) -> list[RecordedEvent]:
    at = utc_text(START_MS + n * 1000)
    winner = rng.randrange(2) if rng.random() > 0.05 else None
    totals = (121, 80) if winner == 0 else (80, 121) if winner == 1 else (121, 121)
    events = [
        MatchCreated(
            match_id=f"m-{n}",
            ruleset="classic",
            seats=2,
            target=121,
            secret=None,
            client_seeds=(),
            commitment=None,
        ),
        SeatTaken(seat=0, name="A", player_id=a),
        SeatTaken(seat=1, name="B", player_id=b),
        RoundStarted(round=1, dealer=0),
        CardsDealt(round=1, deal=1, hands=(None, None)),
        FloorDealt(round=1, cards=("2H", "3H", "4H", "5H"), reburied=()),
        *(CardPlayed(seat=k % 2, card="9S", captured=(), basra=0) for k in range(plays)),
        RoundScored(
            round=1,
            last_pickup=None,
            sides=(SideScore(27, 30, 5, 0, 35), SideScore(25, 0, 6, 0, 6)),
            carry=0,
            totals=totals,
        ),
        MatchEnded(
            winner=winner, reason="target" if winner is not None else "round_limit", totals=totals
        ),
    ]
    return [RecordedEvent(seq=i, at=at, event=e) for i, e in enumerate(events, start=1)]


def generate(db: Path, matches: int, plays: int, seed: int = 13) -> list[str]:
    """Write the players and the finished matches; the player ids."""
    rng = random.Random(seed)
    store = MatchStore.sqlite(db, synchronous="OFF")
    players = PlayerStore(store)
    ids = [f"p-{k:032x}" for k in range(matches)]
    rows = [
        StoredEvent(
            pid, 1, "basra:player_registered", ENCODE(register(pid, f"Player {pid[-6:]}", "0" * 64))
        )
        for pid in ids
    ]
    players.recorder.insert_events(rows)
    pairs = [(ids[2 * i], ids[2 * i + 1]) for i in range(matches // 2)]
    while len(pairs) < matches:
        a, b = rng.sample(ids, 2)
        pairs.append((a, b))
    to_stored = store.mapper.to_stored_event
    for start in range(0, matches, CHUNK):
        batch: list[StoredEvent] = []
        for n in range(start, min(matches, start + CHUNK)):
            a, b = pairs[n]
            stream = store.streams.create(f"m-{n}")  # its key, as an append of seq 1 gives it
            batch.extend(to_stored(stream, r) for r in _match(n, a, b, plays, rng))
        store.recorder.insert_events(batch)
        if start % 20_000 == 0:
            say(f"  generated {start + CHUNK} matches")
    store.close()
    return ids


APPLY = """
import json, sys, time
from pathlib import Path
import app.readmodels.results as results_module
from app.readmodels.results import Results
from app.store.match_store import MatchStore
db, path, every = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "every"
if every:
    results_module.ResultsProjection.topics = ()
store = MatchStore.sqlite(db)
results = Results(path, store)
read = [0]
def count(_entry):
    read[0] += 1
started, cpu = time.perf_counter(), time.process_time()
results.catch_up(after_entry=count)
elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
results.close()
store.close()
print(json.dumps([elapsed, cpu, read[0]]))
"""
"""One application of the whole log into an empty results file, with the code of the current
directory (argv: store file, results file, ``every`` or ``needed``)."""


def apply_once(tree: Path, db: Path, path: Path, *, every_entry: bool) -> tuple[float, float, int]:
    """Seconds (wall, and the applying process's CPU) to apply the whole log of ``db`` into an
    empty results file at ``path`` with the code in ``tree``, in a fresh process; entries read."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    kind = "every" if every_entry else "needed"
    command = [sys.executable, "-c", APPLY, str(db), str(path), kind]
    env = os.environ | {"PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"applying with {tree} failed:\n{done.stderr}")
    elapsed, cpu, read = json.loads(done.stdout.strip().splitlines()[-1])
    return float(elapsed), float(cpu), int(read)


def without_topic_index(db: Path, copy: Path) -> None:
    """``copy``: the store ``db`` as code before the topic index wrote it (the index dropped)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as target:
        target.execute(f"DROP INDEX IF EXISTS {TOPIC_INDEX}")


async def load(port: int, ids: list[str], clients: int, duration: float) -> dict[str, list[float]]:
    """``clients`` connections for ``duration`` s: half profiles, half ladder pages."""
    latencies: dict[str, list[float]] = {"profile": [], "ladder": []}
    stop = time.monotonic() + duration
    rng = random.Random(clients)

    async def profiles(conn: Connection) -> None:
        while time.monotonic() < stop:
            path = f"/players/{rng.choice(ids)}"
            started = time.perf_counter()
            status, _ = await conn.request("GET", path)
            latencies["profile"].append(time.perf_counter() - started)
            assert status == 200, status

    async def ladder(conn: Connection) -> None:
        cursor = None
        while time.monotonic() < stop:
            path = "/ladder" if cursor is None else f"/ladder?cursor={cursor}"
            started = time.perf_counter()
            status, body = await conn.request("GET", path)
            latencies["ladder"].append(time.perf_counter() - started)
            assert status == 200, status
            cursor = json.loads(body)["next"]

    conns = [Connection(port) for _ in range(clients)]
    if clients == 1:  # one client: profiles for the whole time, then the ladder as long
        await profiles(conns[0])
        stop = time.monotonic() + duration
        await ladder(conns[0])
    else:  # half the clients ask for profiles, half walk the ladder
        await asyncio.gather(
            *((profiles if k % 2 == 0 else ladder)(conn) for k, conn in enumerate(conns))
        )
    for conn in conns:
        await conn.close()
    return latencies


async def paced(port: int, ids: list[str], rate: float, duration: float) -> dict[str, list[float]]:
    """An open loop: requests arrive at ``rate`` a second on average (Poisson arrivals, half
    profiles of random rated players, half ladder pages following the latest ``next``) for
    ``duration`` s, each on a free keep-alive connection (a new one when none is free), whether
    or not the earlier ones were answered. A latency runs from the request's planned arrival,
    so time spent waiting behind others counts."""
    latencies: dict[str, list[float]] = {"profile": [], "ladder": []}
    rng = random.Random(int(rate))
    free: list[Connection] = []
    every: list[Connection] = []
    cursor: list[str | None] = [None]

    async def one(kind: str, planned: float) -> None:
        conn = free.pop() if free else Connection(port)
        if conn not in every:
            every.append(conn)
        if kind == "profile":
            status, _ = await conn.request("GET", f"/players/{rng.choice(ids)}")
        else:
            path = "/ladder" if cursor[0] is None else f"/ladder?cursor={cursor[0]}"
            status, body = await conn.request("GET", path)
            cursor[0] = json.loads(body)["next"]
        latencies[kind].append(time.perf_counter() - planned)
        free.append(conn)
        assert status == 200, status

    tasks: list[asyncio.Task[None]] = []
    started = time.perf_counter()
    planned = started
    k = 0
    while planned - started < duration:
        planned += rng.expovariate(rate)
        wait = planned - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        kind = "profile" if k % 2 == 0 else "ladder"
        tasks.append(asyncio.create_task(one(kind, planned)))
        k += 1
    await asyncio.gather(*tasks)
    for conn in every:
        await conn.close()
    return latencies


def latencies_ms(values: list[float]) -> dict[str, float]:
    """p50, p99 and max of latencies in seconds, in ms."""
    return {
        "p50_ms": quantile(values, 0.5) * 1000,
        "p99_ms": quantile(values, 0.99) * 1000,
        "max_ms": max(values, default=0.0) * 1000,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--plays", type=int, default=48)
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument(
        "--rates", default="", help="also an open loop at these requests/s, e.g. 100,200,400"
    )
    parser.add_argument("--code-before", type=Path, default=None, help="a tree of earlier code")
    parser.add_argument("--every", action="store_true", help="also read every entry")
    parser.add_argument("--apply-only", action="store_true", help="skip the load part")
    parser.add_argument(
        "--reuse", action="store_true", help="load only, on the store already in --dir"
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the benchmark and print the figures; them by part."""
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="bench-results-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "basra.db"
    if args.reuse:
        ids = [f"p-{k:032x}" for k in range(args.matches)]
        return {"load": run_load(db, workdir, ids, args)}
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)

    say(f"generating {args.matches} matches with {args.plays} plays each in {db}")
    started = time.perf_counter()
    ids = generate(db, args.matches, args.plays)
    say(f"  done in {time.perf_counter() - started:.1f} s")
    store = MatchStore.sqlite(db)
    log_entries = store.max_position()
    store.close()

    here = Path(__file__).resolve().parent.parent
    variants: list[tuple[str, Path, Path, bool]] = [("needed", here, db, False)]
    if args.code_before is not None:
        old_db = workdir / "basra-before.db"
        say("copying the store without the topic index for the code before")
        without_topic_index(db, old_db)
        variants.append(("before", args.code_before.resolve(), old_db, False))
    if args.every:
        variants.append(("every", here, db, True))
    labels = {
        "needed": "reading 3 kinds of entry (this code)",
        "before": f"the code of {args.code_before} (3 kinds, no topic index)",
        "every": "this code made to read every entry",
    }
    runs: dict[str, list[float]] = {name: [] for name, *_ in variants}
    cpus: dict[str, list[float]] = {name: [] for name, *_ in variants}
    read: dict[str, int] = {}
    for repeat in range(args.repeats):
        for name, tree, store_db, every in variants:
            say(f"applying ({name}), run {repeat + 1}")
            path = workdir / f"results-{name}.sqlite3"
            elapsed, cpu, count = apply_once(tree, store_db, path, every_entry=every)
            runs[name].append(elapsed)
            cpus[name].append(cpu)
            read[name] = count
    print(f"results projection: {args.matches} finished matches, {log_entries} log entries")
    figures: dict[str, Any] = {"log_entries": log_entries, "apply": {}}
    print(f"  load average before the load part: {os.getloadavg()}")
    for name, *_ in variants:
        med, cpu = statistics.median(runs[name]), statistics.median(cpus[name])
        figures["apply"][name] = {
            "entries": read[name],
            "median_s": med,
            "matches_per_s": args.matches / med,
            "cpu_s": cpu,
        }
        print(
            f"  {labels[name]}: {read[name]} entries read, median {med:.2f} s of"
            f" {len(runs[name])} runs ({', '.join(f'{r:.2f}' for r in runs[name])}),"
            f" {args.matches / med:,.0f} matches/s; CPU median {cpu:.2f} s,"
            f" {args.matches / cpu:,.0f} matches per CPU second"
        )
    for name, *_ in variants[1:]:
        ratio = statistics.median(runs[name]) / statistics.median(runs["needed"])
        print(f"  {name} / this code: {ratio:.2f}x the wall time")

    if not args.apply_only:
        figures["load"] = run_load(db, workdir, ids, args)
    return figures


def run_load(db: Path, workdir: Path, ids: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Part 3: the routes under load on a real server over ``db``; the figures by clients (and
    by offered rate) and route."""
    store = MatchStore.sqlite(db)
    live_path = results_path(readmodel_path(store.config, {}))
    store.close()
    # the served process follows the store's own results file: bring it up to date first
    say("catching up the served results file")
    store = MatchStore.sqlite(db)
    warm = Results(live_path, store)
    warm.catch_up()
    rated = sum(1 for _ in warm.ladder(limit=args.matches * 2))
    warm.close()
    store.close()
    print(f"load: {rated} rated players on the ladder")
    figures: dict[str, Any] = {"rated": rated}
    # A server reads the whole log at start (the turn clock's recovery): wait long enough.
    serving = served(
        workdir, db=db, readmodels=False, serve_args=["--no-access-log"], start_seconds=900
    )
    with serving as (port, _):
        asyncio.run(load(port, ids, 2, 2.0))  # warm-up
        for clients in (int(c) for c in args.concurrency.split(",")):
            say(f"load with {clients} client(s) for {args.seconds} s")
            seen = asyncio.run(load(port, ids, clients, args.seconds))
            for route, values in seen.items():
                if not values:
                    continue
                spread = latencies_ms(values)
                figures[str(clients)] = figures.get(str(clients), {}) | {
                    route: {"requests": len(values), "per_s": len(values) / args.seconds} | spread
                }
                print(
                    f"  {clients:>3} client(s) {route:<8} {len(values):>6} requests,"
                    f" {len(values) / args.seconds:,.0f}/s, p50 {spread['p50_ms']:.2f} ms,"
                    f" p99 {spread['p99_ms']:.2f} ms, max {spread['max_ms']:.1f} ms"
                )
        for rate in (float(r) for r in args.rates.split(",") if r):
            say(f"open loop at {rate:.0f} requests/s for {args.seconds} s")
            seen = asyncio.run(paced(port, ids, rate, args.seconds))
            for route, values in seen.items():
                spread = latencies_ms(values)
                offered = figures.setdefault("open", {}).setdefault(f"{rate:.0f}", {})
                offered[route] = {"requests": len(values)} | spread
                print(
                    f"  {rate:>5.0f}/s offered  {route:<8} {len(values):>6} requests,"
                    f" p50 {spread['p50_ms']:.2f} ms, p99 {spread['p99_ms']:.2f} ms,"
                    f" max {spread['max_ms']:.1f} ms"
                )
    return figures
