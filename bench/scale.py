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
   API benchmark (bench/bench_api.py: practice matches, each loop a play whose answer carries
   the bot's reply and the next view) at 50 and 200 concurrent matches: plays per second and
   each play's latency (p50, p99). The abuse limits are off for the load (one client address
   creates hundreds of matches; ``--rate-limit NAME=off``).

Every part runs ``--repeats`` times, interleaved, and the medians are printed with the runs.
Only 127.0.0.1 is contacted for the servers. Run from the repository root:

    .venv/bin/python -m bench.bench_scale --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--repeats 3] [--seconds 5] [--serve-seconds 10] [--only raw,store,serve] [--json F] \
        [--servers uvicorn,granian] [--variants NAME:KEY=V;...] [--before TREE]

``--only locks`` runs part 3, which the default leaves out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import psycopg

from app.config import PostgresSettings, parse_database_url
from app.service import utc_now
from app.store.match_store import MatchStore
from app.store.postgres import drop_schema, ensure_schema
from bench.bench_api import HOST, NO_LIMITS, Connection, Practice, free_port, rank_quantile
from domain.commands import CreateMatch
from domain.events import CardPlayed
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

CONCURRENCY = (1, 4, 16)
"""Connections (and threads) of the raw and store loops."""

ROW = b'{"event":{"type":"card_played","seat":0,"card":"10D","captured":["4C","6H"],' + (
    b'"basra":0},"at":"2026-11-29T21:44:08.123456Z","caused_by":"seat:0/token:abcdef"}'
)
"""A raw row about the size of a stored play."""


def say(message: str) -> None:
    """Progress on stderr."""
    print(message, file=sys.stderr, flush=True)


def settings_for(url: str, schema: str) -> PostgresSettings:
    """The benchmark's PostgreSQL settings in a schema of its own."""
    return msgspec.structs.replace(parse_database_url(url), schema=schema)


def new_schema() -> str:
    """A fresh schema name."""
    return f"bench_scale_{uuid.uuid4().hex[:10]}"


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


# -- 3. served plays ------------------------------------------------------------------------------


async def closed_loop(
    port: int,
    concurrency: int,
    seconds: float,
    seed: int,
    *,
    at_start: Callable[[dict[int, Connection]], Awaitable[None]] | None = None,
    by_client: dict[int, list[float]] | None = None,
) -> dict[str, float]:
    """``concurrency`` practice matches playing as fast as they can: plays/s, p50 and p99 (ms),
    and how many requests failed (a refused or broken request starts a new match).

    ``at_start``: awaited with each client's first connection once every match has started,
    just before the clock starts. ``by_client``: filled with each client's latencies too."""
    latencies: list[float] = []
    errors = 0
    ready = asyncio.Event()
    go = asyncio.Event()
    first: dict[int, Connection] = {}
    started = 0
    deadline = 0.0

    async def player(i: int) -> None:
        nonlocal started, errors
        conn = Connection(port)
        rng = random.Random(seed * 1000 + i)
        match: Practice | None = None
        first[i] = conn
        mine = by_client.setdefault(i, []) if by_client is not None else None
        try:
            match = Practice(conn, rng)
            await match.start()
        finally:
            started += 1
            if started == concurrency:
                ready.set()
        await go.wait()
        while time.monotonic() < deadline:
            try:
                if match is None or match.ended:
                    match = Practice(conn, rng)
                    await match.start()
                sent = time.perf_counter()
                await match.play()
                if time.monotonic() < deadline:
                    latencies.append((time.perf_counter() - sent) * 1000)
                    if mine is not None:
                        mine.append(latencies[-1])
            except (AssertionError, OSError, asyncio.IncompleteReadError):
                errors += 1
                match = None
                with contextlib.suppress(Exception):
                    await conn.close()
                conn = Connection(port)
        with contextlib.suppress(Exception):
            await conn.close()

    tasks = [asyncio.create_task(player(i)) for i in range(concurrency)]
    await ready.wait()
    if at_start is not None:
        await at_start(first)
    deadline = time.monotonic() + seconds
    go.set()
    await asyncio.gather(*tasks)
    data = sorted(latencies)
    return {
        "plays_s": round(len(data) / seconds, 1),
        "p50": round(rank_quantile(data, 0.5), 1),
        "p99": round(rank_quantile(data, 0.99), 1),
        "errors": errors,
    }


def _process_stats() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds of user + system, every thread) of every process, from
    ``/proc`` (Linux; a process that cannot be read is left out)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return stats


def _tree(pid: int, stats: dict[int, tuple[int, float]]) -> set[int]:
    """``pid`` and every process below it in ``stats``."""
    tree = {pid}
    grew = True
    while grew:
        grown = tree | {child for child, (parent, _) in stats.items() if parent in tree}
        grew = grown != tree
        tree = grown
    return tree


def process_tree(pid: int) -> set[int]:
    """Process ``pid`` and its descendants (Linux, from ``/proc``)."""
    return _tree(pid, _process_stats())


def tree_cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) of process ``pid`` and its descendants, from
    ``/proc`` (Linux; 0.0 where it cannot be read)."""
    stats = _process_stats()
    return sum(stats[p][1] for p in _tree(pid, stats) if p in stats)


async def wait_healthy(port: int, process: subprocess.Popen[bytes], seconds: float) -> None:
    """Wait for ``/health`` to answer 200 (a loaded machine starts two workers slowly)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        conn = Connection(port)
        try:
            status, _ = await conn.request("GET", "/health")
            if status == 200:
                return
        except OSError:
            await asyncio.sleep(0.2)
        finally:
            await conn.close()
    raise RuntimeError("the server did not start")


@contextlib.contextmanager
def served(
    workdir: Path,
    workers: int,
    database_url: str | None,
    env_extra: dict[str, str],
    tree: Path | None = None,
    server: str = "uvicorn",
    serve_args: Sequence[str] = (),
) -> Iterator[tuple[int, int]]:
    """``basra serve`` on a fresh SQLite file, or on ``database_url``; its port and pid.

    ``tree``: run the server from another checkout of the code (an earlier commit), for
    before/after. ``serve_args``: more options of ``basra serve``."""
    port = free_port()
    env = dict(os.environ) | env_extra
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    for name in list(env):
        if name.startswith("POSTGRES_") or name == "BASRA_DATABASE_URL":
            del env[name]
    env["BASRA_READMODELS"] = str(workdir / f"readmodels-{port}.sqlite3")
    command = [sys.executable, "-m", "cli.main", "serve", "--host", HOST, "--port", str(port)]
    command += ["--workers", str(workers), "--server", server]
    command += serve_args
    if database_url is None:
        command += ["--db", str(workdir / f"api-{port}.db")]
    else:
        command += ["--database-url", database_url]
    command += [arg for name in NO_LIMITS for arg in ("--rate-limit", f"{name}=off")]
    log_path = workdir / f"serve-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tree or Path.cwd()
        )
        try:
            try:
                asyncio.run(wait_healthy(port, process, 180))
            except RuntimeError:
                tail = log_path.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"basra serve did not start:\n{tail}") from None
            yield port, process.pid
        finally:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


SERVE_CASES = (("sqlite-1", None, 1), ("pg-1", "pg", 1), ("pg-2", "pg", 2))
"""(label, store, processes) of the served runs."""


@contextlib.contextmanager
def served_case(
    workdir: Path,
    case: tuple[str, str | None, int],
    postgres: str | None,
    env_extra: dict[str, str],
    tree: Path | None = None,
    server: str = "uvicorn",
    serve_args: Sequence[str] = (),
) -> Iterator[tuple[int, int]]:
    """``served`` for one of ``SERVE_CASES``: on PostgreSQL in a fresh schema of ``postgres``,
    dropped afterwards."""
    _, store, workers = case
    settings = None
    url = None
    if store == "pg":
        assert postgres is not None
        settings = settings_for(postgres, new_schema())
        url = f"{postgres}?schema={settings.schema}"
    try:
        with served(workdir, workers, url, env_extra, tree, server, serve_args) as running:
            yield running
    finally:
        if settings is not None:
            drop_schema(settings)


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


def main(argv: list[str] | None = None) -> None:
    """Run the parts asked for and print the medians."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--postgres", default=os.environ.get("BASRA_TEST_POSTGRES"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0, help="per raw/store loop")
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
        "--before",
        type=Path,
        default=None,
        help="also serve from this checkout (e.g. git archive of an earlier commit), interleaved",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)
    if not args.postgres:
        parser.error("--postgres URL (or BASRA_TEST_POSTGRES) is needed")
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
                    if args.before is not None:
                        say(f"store appends of {args.before} on {c} threads, repeat {r + 1}")
                        before[c].append(store_in_tree(args.before, args.postgres, c, args.seconds))
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
        results["raw"] = {str(c): v for c, v in raw.items()}
        results["store"] = {str(c): v for c, v in appends.items()}
        results["store_before"] = {str(c): v for c, v in before.items()}

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
        results["locks"] = rates_by

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
                        trees = [(None, "")] + ([(args.before, "before:")] if args.before else [])
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
        results["serve"] = runs
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
