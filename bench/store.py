"""Benchmark: the event store on SQLite, beside a raw sqlite3 commit loop in the same folder.

Run: python -m bench store [--plays N] [--repeats R] [--matches M] [--sync FULL,NORMAL]
                           [--dir DIR] [--postgres URL]

1. Durable appends, one transaction each, for every ``synchronous`` mode asked for (journal
   mode WAL, as the store runs): a raw ``sqlite3`` loop committing one small row per
   transaction; the store appending one recorded event per transaction; and MatchService
   plays (load → decide → append) on one match, and round-robin over 200 matches. The four
   run interleaved in every repeat, in fresh files in one folder; medians and ratios to raw.
2. Loading a match of 300+ events: cached (the common case: one indexed read of anything
   newer), cold from its snapshot, and cold from its whole stream.
3. Read-model rebuild over M recorded bot matches: events per second.

Results go to stdout as text; progress to stderr. ``--postgres URL`` (default
``$BASRA_BENCH_POSTGRES``) adds the append and load figures on PostgreSQL (in a schema of its
own, dropped at the end).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.config import StoreConfig
from app.readmodels.models import ReadModels
from app.service import SNAPSHOT_EVERY, MatchService, utc_now
from app.store.match_store import MatchStore
from bench.before import Legacy, groups
from bench.harness import say
from bench.options import Shared
from bench.servers import fresh_schema
from domain.commands import CreateMatch
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

ROW = b'{"event":{"type":"card_played","seat":0,"card":"10D","captured":["4C","6H"],' + (
    b'"basra":0},"at":"2026-11-29T21:44:08.123456Z","caused_by":"seat:0/token:abcdef"}'
)
"""A raw row about the size of a stored play."""

SHARED = Shared(
    repeats=3,
    postgres="optional",
    postgres_from_env=False,
    postgres_default=os.environ.get("BASRA_BENCH_POSTGRES"),
    workdir=True,
)
"""Repeats of every loop, the PostgreSQL server (none by default), the folder of the files."""

APPEND_LABELS = {
    "raw": "raw sqlite3 commit loop, one small row",
    "store": "store.append, one event",
    "one": "MatchService.play_card, 1 match",
    "rr200": "MatchService.play_card, 200 matches round-robin",
}
"""The loops of section 1."""

LOAD_LABELS = {
    "cached_ms": "cached state + read of newer events (common case)",
    "cold_snapshot_ms": "cold: snapshot",
    "cold_stream_ms": "cold: whole stream read and folded",
}
"""The loads of section 2 (the start of each printed label)."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_store.py)."""
    found: dict[str, float] = {}
    for block in re.split(r"\n(?=synchronous=|## )", text):
        sync = re.match(r"synchronous=(\w+):", block)
        if sync is not None:
            for key, label in APPEND_LABELS.items():
                pattern = re.escape(label) + r" +([\d,]+)/s"
                found |= groups(block, pattern, [f"{sync.group(1)}/{key}_per_s"])
        loading = re.match(r"## Loading a \d+-event match \((\w+);", block)
        if loading is not None:
            for key, label in LOAD_LABELS.items():
                pattern = "^  " + re.escape(label) + r".*? ([\d.]+) ms  \["
                found |= groups(block, pattern, [f"{loading.group(1).lower()}/{key}"])
    found |= groups(text, r"one event per transaction: ([\d,]+)/s", ["postgresql/append_per_s"])
    found |= groups(text, r"events per second, median of \d+: ([\d,]+)", ["rebuild_events_per_s"])
    return found


LEGACY = Legacy(
    "bench.bench_store",
    read_legacy,
    names={"repeats": "--repeats", "dir": "--dir", "postgres": "--postgres"},
)
"""The old script, bench/bench_store.py, printed the same report."""


def fresh(path: Path) -> Path:
    """``path`` with no file (nor WAL files) left from an earlier run."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


# -- 1. durable appends ---------------------------------------------------------------------


def raw_loop(path: Path, synchronous: str, n: int) -> float:
    """Commits per second of a plain sqlite3 loop: BEGIN, INSERT one small row, COMMIT."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(f"PRAGMA synchronous={synchronous}")
    connection.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, match TEXT, state BLOB)")
    start = time.perf_counter()
    for i in range(n):
        connection.execute("BEGIN")
        connection.execute("INSERT INTO rows (match, state) VALUES (?, ?)", (f"m-{i % 200}", ROW))
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - start
    connection.close()
    return n / elapsed


def recorded_events(n: int) -> list[tuple[str, RecordedEvent]]:
    """n events of real bot matches, as (match id, recorded event) in stream order."""
    out: list[tuple[str, RecordedEvent]] = []
    k = 0
    while len(out) < n:
        events, _ = play_match(
            CreateMatch(
                match_id=f"b-{k}",
                ruleset="classic",
                seats=2,
                secret=secret_from_text_seed(f"bench/{k}"),
                bots=(0, 1),
            )
        )
        at = utc_now()
        out.extend(
            (f"b-{k}", RecordedEvent(seq=i, at=at, event=e, caused_by="bot:0"))
            for i, e in enumerate(events, 1)
        )
        k += 1
    return out[:n]


def store_appends(store: MatchStore, events: list[tuple[str, RecordedEvent]]) -> float:
    """Events per second appended by the store, one event per transaction."""
    start = time.perf_counter()
    for match_id, recorded in events:
        store.append(match_id, [recorded])
    return len(events) / (time.perf_counter() - start)


def service_plays(service: MatchService, matches: int, n: int) -> float:
    """MatchService plays per second, round-robin over ``matches`` two-person matches."""
    ids = [new_people_match(service, k) for k in range(matches)]
    played = 0
    start = time.perf_counter()
    while played < n:
        for i, match_id in enumerate(ids):
            # The position the last command left in this process (as a client would know it
            # from the command's result); reading it is not part of the timed play.
            state = service.cache.get(match_id) or service.load(match_id)
            if state.status != "playing":
                ids[i] = match_id = new_people_match(service, played + i + matches)
                state = service.load(match_id)
            seat = state.turn
            assert seat is not None
            service.play_card(
                match_id, seat, state.hands[seat][0], caused_by=f"seat:{seat}/token:t{seat}"
            )
            played += 1
            if played >= n:
                break
    return played / (time.perf_counter() - start)


def new_people_match(service: MatchService, k: int) -> str:
    """A classic match with two people seated (no bots), round 1 dealt."""
    match_id = service.create_match(
        ruleset="classic", seats=2, secret=secret_from_text_seed(f"people/{k}")
    ).match_id
    service.take_seat(match_id, 0, "ann", token_id="t0")
    service.take_seat(match_id, 1, "bob", token_id="t1")
    return match_id


def appends(folder: Path, modes: list[str], plays: int, repeats: int) -> dict[str, Any]:
    """Section 1, for each synchronous mode, the four loops interleaved in every repeat."""
    events = recorded_events(plays)
    print("## Durable appends, one transaction each (journal_mode=WAL)")
    figures: dict[str, Any] = {}
    for mode in modes:
        results: dict[str, list[float]] = {"raw": [], "store": [], "one": [], "rr200": []}
        for r in range(repeats):
            say(f"appends: synchronous={mode}, repeat {r + 1}/{repeats}")
            results["raw"].append(raw_loop(fresh(folder / f"raw-{mode}-{r}.db"), mode, plays))
            store = MatchStore.sqlite(fresh(folder / f"store-{mode}-{r}.db"), mode)
            results["store"].append(store_appends(store, events))
            store.close()
            service = MatchService(MatchStore.sqlite(fresh(folder / f"one-{mode}-{r}.db"), mode))
            results["one"].append(service_plays(service, 1, plays))
            service.close()
            service = MatchService(MatchStore.sqlite(fresh(folder / f"rr-{mode}-{r}.db"), mode))
            results["rr200"].append(service_plays(service, 200, plays))
            service.close()
        raw = statistics.median(results["raw"])
        print(f"synchronous={mode}: {plays} per loop, median of {repeats} (runs in brackets)")
        figures[mode] = {}
        for key, label in APPEND_LABELS.items():
            median = statistics.median(results[key])
            figures[mode][f"{key}_per_s"] = median
            runs = ", ".join(f"{x:,.0f}" for x in results[key])
            print(f"  {label:<50} {median:>9,.0f}/s  {median / raw:6.1%} of raw  [{runs}]")
    print()
    return figures


# -- 2. loading a long match ----------------------------------------------------------------


def long_match(service: MatchService) -> str:
    """A bot match of 300+ events, recorded through the service."""
    for k in range(50):
        created = service.create_match(
            ruleset="classic",
            seats=2,
            target=300,
            bots=(0, 1),
            secret=secret_from_text_seed(f"long/{k}"),
        )
        match_id, recorded = created.match_id, created.events
        if len(recorded) >= 300:
            return match_id
    raise RuntimeError("no match of 300 events in 50 tries")


def per_call(call: Callable[[], object], calls: int, repeats: int) -> list[float]:
    """Seconds per call, one figure per repeat."""
    figures = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        figures.append((time.perf_counter() - start) / calls)
    return figures


def loads(store: MatchStore, label: str, repeats: int) -> dict[str, float]:
    """Section 2 on one store."""
    service = MatchService(store)
    match_id = long_match(service)
    events = store.last_seq(match_id)
    # The worst case for a cold load: the latest snapshot SNAPSHOT_EVERY - 1 events back.
    behind = SNAPSHOT_EVERY - 1
    store.drop_snapshots()
    early = store.read(match_id, upto_seq=events - behind)
    store.save_snapshot(match_id, fold(r.event for r in early))
    snapshot = store.latest_snapshot(match_id)
    service.load(match_id)
    cached = per_call(lambda: service.load(match_id), 500, repeats)
    cold = per_call(lambda: MatchService(store).load(match_id), 100, repeats)
    full = per_call(lambda: service.load_from_stream(match_id), 50, repeats)
    where = snapshot.events if snapshot else "none"
    print(f"## Loading a {events}-event match ({label}; snapshot at seq {where})")
    found: dict[str, float] = {"events": events}
    for key, name, figures in (
        ("cached_ms", LOAD_LABELS["cached_ms"], cached),
        ("cold_snapshot_ms", f"cold: snapshot {behind} events back + the {behind} after it", cold),
        ("cold_stream_ms", LOAD_LABELS["cold_stream_ms"], full),
    ):
        runs = ", ".join(f"{x * 1e3:.3f}" for x in figures)
        median = statistics.median(figures)
        found[key] = median * 1e3
        print(f"  {name:<52} {median * 1e3:8.3f} ms  [{runs}]")
    print()
    return found


# -- 3. read-model rebuild ------------------------------------------------------------------


def filled_store(path: Path, matches: int) -> MatchStore:
    """A SQLite store holding ``matches`` bot matches (kept between runs when present)."""
    store = MatchStore.sqlite(path, "NORMAL")
    have = len(store.match_ids())
    if have < matches:
        service = MatchService(store, snapshot_every=0)
        rulesets = ("classic", "egyptian", "lebanese", "yemeni", "jordanian")
        started = time.perf_counter()
        for k in range(have, matches):
            service.create_match(
                ruleset=rulesets[k % 5],
                seats=(2, 4)[k % 2],
                bots=tuple(range((2, 4)[k % 2])),
                secret=secret_from_text_seed(f"fill/{k}"),
                match_id=f"fill-{k:05d}",
            )
            if k % 1000 == 999:
                rate = (k + 1 - have) / (time.perf_counter() - started)
                say(f"recorded {k + 1}/{matches} matches ({rate:.0f}/s)")
    return store


def rebuilds(folder: Path, matches: int, repeats: int) -> float:
    """Section 3."""
    store = filled_store(folder / f"filled-{matches}.db", matches)
    total = store.max_position()
    figures = []
    read = ReadModels(fresh(folder / "rebuild.sqlite3"), store)
    for r in range(repeats):
        say(f"rebuild {r + 1}/{repeats} over {total:,} events")
        start = time.perf_counter()
        applied = read.rebuild()
        figures.append(applied / (time.perf_counter() - start))
        assert applied == total
    rows = len(read.matches())
    read.close()
    store.close()
    runs = ", ".join(f"{x:,.0f}" for x in figures)
    print(f"## Read-model rebuild: {rows:,} matches, {total:,} events")
    print(f"  events per second, median of {repeats}: {statistics.median(figures):,.0f}  [{runs}]")
    print()
    return statistics.median(figures)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--plays", type=int, default=2000, help="appends per loop")
    parser.add_argument("--matches", type=int, default=10_000, help="matches for the rebuild")
    parser.add_argument("--sync", default="FULL,NORMAL", help="synchronous modes to compare")
    parser.add_argument("--keep", action="store_true", help="keep the folder (reuse the fill)")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run every section and print the figures."""
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench-store-", dir=Path.cwd()))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"# bench store: files in {folder} ({os.uname().sysname}, {os.cpu_count()} cores)")
    print(f"# command: {' '.join(sys.argv)}\n")
    figures: dict[str, Any] = {}
    try:
        figures |= appends(folder, args.sync.split(","), args.plays, args.repeats)
        store = MatchStore.sqlite(fresh(folder / "load.db"))
        figures["sqlite"] = loads(store, "SQLite", args.repeats)
        store.close()
        if args.postgres:
            with fresh_schema(args.postgres) as (_, settings):
                pg = MatchStore.open(StoreConfig(kind="postgres", postgres=settings))
                try:
                    say("PostgreSQL: appends and loads")
                    events = recorded_events(args.plays)
                    rate = store_appends(pg, events)
                    print("## PostgreSQL (same machine, 127.0.0.1)")
                    print(f"  store.append, one event per transaction: {rate:,.0f}/s\n")
                    figures["postgresql"] = {"append_per_s": rate}
                    figures["postgresql"] |= loads(pg, "PostgreSQL", args.repeats)
                finally:
                    pg.close()
        figures["rebuild_events_per_s"] = rebuilds(folder, args.matches, args.repeats)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    return figures
