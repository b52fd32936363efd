"""Benchmark: bytes on disk per recorded match, and append and load latency, on both stores.

Run: python -m bench bytes [--matches 1000,10000] [--stores sqlite,postgres] [--postgres URL]
                           [--dir DIR] [--loads 300]

For each store and each count, a fresh store records that many seeded Classic 2-seat bot
matches (seeds ``bytes-0``, ``bytes-1``, ...), each in one transaction as ``basra simulate``
does. Then:

- bytes per match: the whole SQLite file (after a WAL checkpoint) divided by the matches, and
  per table and index (SQLite's ``dbstat``); on PostgreSQL ``pg_total_relation_size`` of each
  table of the schema (rows, TOAST and indexes);
- events per match and bytes per event;
- append latency: the store's ``append`` of one whole match (median and p99);
- load latency: reading and folding the whole stream (no cache, no snapshot) of ``--loads``
  matches picked evenly (median and p99), and loading the same matches cold as the server does
  (the latest snapshot and the events after it).

Results go to stdout as text; progress to stderr. The PostgreSQL figures use a schema of their
own, dropped at the end.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.config import parse_database_url
from app.service import MatchService
from bench.before import Legacy, groups
from bench.harness import say
from bench.options import Shared
from bench.servers import fresh_schema
from bench.stats import quantile
from domain.fairness import secret_from_text_seed

SHARED = Shared(
    postgres="optional", postgres_default="postgresql://postgres@127.0.0.1:5432/test", workdir=True
)
"""The PostgreSQL server of the ``postgres`` store, and the folder of the SQLite files."""

PATTERNS = {
    "bytes_per_match": r"on disk: [\d,]+ bytes = ([\d.]+) KB per match",
    "events_per_match": r"events per match: ([\d.]+)",
    "bytes_per_event": r"bytes per event: ([\d.]+)",
    "append_median_ms": r"append of one match: median ([\d.]+) ms",
    "append_p99_ms": r"append of one match: .*p99 ([\d.]+) ms",
    "load_median_ms": r"whole-stream load .*median ([\d.]+) ms",
    "load_p99_ms": r"whole-stream load .*p99 ([\d.]+) ms",
    "snapshot_median_ms": r"cold load from the snapshot: median ([\d.]+) ms",
    "snapshot_p99_ms": r"cold load from the snapshot: .*p99 ([\d.]+) ms",
}
"""The printed figures of one store (``bytes_per_match`` in KB)."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_bytes.py)."""
    found: dict[str, float] = {}
    for block in re.split(r"\n(?=SQLite|PostgreSQL)", text):
        head = re.match(r"(SQLite|PostgreSQL)\S*[^:]*: (\d+) Classic", block)
        if head is None:
            continue
        store = "sqlite" if head.group(1) == "SQLite" else "postgres"
        for key, pattern in PATTERNS.items():
            found |= groups(block, pattern, [f"{store}-{head.group(2)}/{key}"])
    return found


LEGACY = Legacy("bench.bench_bytes", read_legacy, names={"postgres": "--postgres", "dir": "--dir"})
"""The old script, bench/bench_bytes.py, printed the same report."""


def record(service: MatchService, count: int) -> tuple[list[str], list[float], int]:
    """Record ``count`` seeded bot matches; (ids, append seconds per match, events)."""
    store = service.store
    original = store.append
    appends: list[float] = []
    events = [0]

    def timed(match_id: str, recorded: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(match_id, recorded)
        finally:
            appends.append(time.perf_counter() - started)
            events[0] += len(recorded)

    store.append = timed  # type: ignore[method-assign]
    ids = []
    try:
        for number in range(count):
            match_id = service.create_match(
                ruleset="classic",
                seats=2,
                bots=(0, 1),
                secret=secret_from_text_seed(f"bytes-{number}"),
                caused_by="server",
            ).match_id
            ids.append(match_id)
            if number and number % 1000 == 0:
                say(f"  {number} matches recorded")
    finally:
        store.append = original  # type: ignore[method-assign]
    return ids, appends, events[0]


def cold_loads(open_service: Callable[[], MatchService], ids: list[str], loads: int) -> list[float]:
    """Seconds to read and fold the whole stream of ``loads`` matches spread over ``ids``."""
    service = open_service()
    try:
        step = max(1, len(ids) // loads)
        seconds = []
        for match_id in ids[::step][:loads]:
            started = time.perf_counter()
            service.load_from_stream(match_id)  # no cache, no snapshot: every row decoded
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        service.close()


def snapshot_loads(
    open_service: Callable[[], MatchService], ids: list[str], loads: int
) -> list[float]:
    """Seconds to load ``loads`` matches cold as the server does: from the latest snapshot and
    the events after it, with nothing cached (the same matches as ``cold_loads``)."""
    from app.service.states import MatchStates

    service = open_service()
    try:
        step = max(1, len(ids) // loads)
        seconds = []
        for match_id in ids[::step][:loads]:
            states = MatchStates(service.store)  # an empty cache
            started = time.perf_counter()
            states.load(match_id)
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        service.close()


def sqlite_sizes(path: Path) -> tuple[int, dict[str, int]]:
    """The file's size after a checkpoint, and bytes per table or index (dbstat)."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            rows = conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
        except sqlite3.OperationalError:  # built without dbstat
            rows = []
    return path.stat().st_size, {str(name): int(size) for name, size in rows}


def postgres_sizes(url: str) -> tuple[int, dict[str, int]]:
    """The schema's tables in bytes: each table's total (rows, TOAST, indexes)."""
    import psycopg

    settings = parse_database_url(url)
    with psycopg.connect(
        host=settings.host,
        port=settings.port,
        user=settings.user,
        password=settings.password,
        dbname=settings.dbname,
    ) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid), pg_indexes_size(c.oid) "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind = 'r'",
            [settings.schema],
        ).fetchall()
    sizes = {}
    for name, total, indexes in rows:
        sizes[f"{name} (total)"] = int(total)
        sizes[f"{name} (indexes)"] = int(indexes)
    return sum(int(total) for _, total, _ in rows), sizes


def report(
    label: str,
    count: int,
    total: int,
    parts: dict[str, int],
    events: int,
    appends: list[float],
    loads: list[float],
    snapshots: list[float] | None = None,
) -> dict[str, float]:
    """One store's figures on stdout; the figures (``bytes_per_match`` in KB)."""
    print(f"\n{label}: {count} Classic 2-seat bot matches, {events} events")
    print(f"  on disk: {total:,} bytes = {total / count / 1000:.1f} KB per match")
    print(f"  events per match: {events / count:.1f}; bytes per event: {total / events:.0f}")
    for name, size in sorted(parts.items(), key=lambda item: -item[1]):
        if size:
            print(f"    {name}: {size:,} bytes ({size / count / 1000:.1f} KB per match)")
    print(
        f"  append of one match: median {statistics.median(appends) * 1000:.2f} ms, "
        f"p99 {quantile(appends, 0.99) * 1000:.2f} ms"
    )
    median, p99 = statistics.median(loads) * 1000, quantile(loads, 0.99) * 1000
    print(f"  whole-stream load ({len(loads)} matches): median {median:.2f} ms, p99 {p99:.2f} ms")
    if snapshots:
        median, p99 = statistics.median(snapshots) * 1000, quantile(snapshots, 0.99) * 1000
        print(f"  cold load from the snapshot: median {median:.2f} ms, p99 {p99:.2f} ms")
    figures = {
        "bytes_per_match": total / count / 1000,
        "events_per_match": events / count,
        "bytes_per_event": total / events,
        "append_median_ms": statistics.median(appends) * 1000,
        "append_p99_ms": quantile(appends, 0.99) * 1000,
        "load_median_ms": statistics.median(loads) * 1000,
        "load_p99_ms": quantile(loads, 0.99) * 1000,
    }
    if snapshots:
        figures["snapshot_median_ms"] = statistics.median(snapshots) * 1000
        figures["snapshot_p99_ms"] = quantile(snapshots, 0.99) * 1000
    return figures


def run_sqlite(folder: Path, count: int, loads: int) -> dict[str, float]:
    """One fresh SQLite file."""
    path = folder / f"bytes-{count}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    say(f"SQLite, {count} matches in {path}")
    service = MatchService.open(path)
    try:
        ids, appends, events = record(service, count)
    finally:
        service.close()
    load_seconds = cold_loads(lambda: MatchService.open(path), ids, loads)
    from_snapshot = snapshot_loads(lambda: MatchService.open(path), ids, loads)
    total, parts = sqlite_sizes(path)
    return report(
        "SQLite (synchronous=FULL)",
        count,
        total,
        parts,
        events,
        appends,
        load_seconds,
        from_snapshot,
    )


def run_postgres(base_url: str, count: int, loads: int) -> dict[str, float]:
    """One fresh schema of its own."""
    with fresh_schema(base_url) as (url, settings):
        say(f"PostgreSQL, {count} matches in schema {settings.schema}")
        service = MatchService.open(database_url=url)
        try:
            ids, appends, events = record(service, count)
        finally:
            service.close()
        load_seconds = cold_loads(lambda: MatchService.open(database_url=url), ids, loads)
        from_snapshot = snapshot_loads(lambda: MatchService.open(database_url=url), ids, loads)
        total, parts = postgres_sizes(url)
        return report(
            "PostgreSQL", count, total, parts, events, appends, load_seconds, from_snapshot
        )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", default="1000,10000", help="comma-separated counts")
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--loads", type=int, default=300, help="cold loads measured per store")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run each store and count asked for."""
    counts = [int(text) for text in args.matches.split(",")]
    stores = args.stores.split(",")
    folder = args.dir or Path(tempfile.mkdtemp(prefix="basra-bytes-"))
    folder.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {}
    try:
        for count in counts:
            if "sqlite" in stores:
                figures[f"sqlite-{count}"] = run_sqlite(folder, count, args.loads)
            if "postgres" in stores and args.postgres:
                figures[f"postgres-{count}"] = run_postgres(args.postgres, count, args.loads)
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    return figures
