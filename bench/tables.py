"""Capacity at human pace: N live tables on one server, each seat thinking between plays.

Each table has ``--seats`` people (2 or 4), each with its own keep-alive connection and its own
SSE feed, and ``--spectators`` public feeds. A seat behaves as the web table does: it asks
``/view`` once when it loads, then folds every feed line (its own hand from ``cards_dealt``,
whose turn from ``after``) and plays a card of its folded hand a think time after its turn
begins (``--think uniform:1-3``, seconds; or ``exp:MEAN``). A table whose match ends is replaced
by a new one. ``--tables`` is stepped (``250,500,750``); each step sets its tables up (a table
refused with 503 asks again after about the server's Retry-After, as a person in the lobby
would: the server admits new tables at the rate it can take; a feed refused asks again after 0.5
s, then 1, 2, 4 and 8 s, as the web table does), warms up for ``--warmup`` seconds, then
measures for ``--seconds``.

Reported per step: plays/s planned (tables / mean think) and done (answered 200), play p50/p99
(sent → answered), push p50/p99 (sent → each other viewer's feed receiving its
``card_played``), the server's CPU per play (its process tree, from /proc), its RSS and RSS per
open feed (over the RSS it had before the tables), the client's own event loop lateness (p99
and the longest: a paused client reads late and then sends the plays that fell due all at
once; it makes no full collection of its garbage within a step, bench/tables_client.py),
errors (anything but 200 and 503; broken connections), refusals (503), feed ids out of order,
pushes never received (apart: those to a spectator's feed the server refused while it shed),
the plays a spectator's feed received as history once it opened after the server had refused it
(shed; their count and p99 apart, not pushes: the feed was not open when they were played),
``/view`` asked again after a gap, feeds the server closed after opening them that were resumed
(a spectator's feed refused with 503 and asked again is a refusal, not a resumed feed).

The server runs with every per-address limit off (one client address holds every table), so
the figures are the process's own. Client and server each need about
tables × (2 × seats + spectators) + 100 open files; the benchmark raises its soft open-files
limit to the hard one (the server inherits it) and says what it needs.

``--code-before DIR`` also runs every step against a server from another checkout of the code
(the same client), interleaved, so today and after compare in one run; ``--code-also LABEL=DIR``
(repeatable) adds more checkouts to the same run, each row labelled LABEL. ``--stores`` picks among
sqlite-1, pg-1 and pg-2 (PostgreSQL with one and with two processes; needs ``--postgres``).
After each store's table, a line per side and run reads its steps against the capacity goals
(bench/tables_goals.py: the capacity, and at twice it the plays done and the p99).
``--collector`` records the server's garbage collections (bench/collector.py's recorder on its
path) and adds, for each measured window, how many of each generation, their time in all and
the longest pause.

    python -m bench tables --tables 250,500,750 --seconds 60 [--seats 2] [--spectators 1] \
        [--think uniform:1-3] [--stores sqlite-1] [--code-before DIR] [--code-also LABEL=DIR] \
        [--collector]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import resource
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import msgspec

from bench.client import Connection
from bench.collector import pauses_between, recorder_env
from bench.harness import say
from bench.options import Shared
from bench.servers import NO_LIMITS, SERVE_CASES, process_tree, served_case, tree_cpu_seconds
from bench.stats import quantile
from bench.tables_client import (
    Feed,
    Table,
    Tally,
    collector_between_steps,
    mean_think,
    think_time,
)
from bench.tables_goals import verdicts

SHARED = Shared(seconds=60.0, repeats=1, postgres="optional")
"""The measured window of each step, the runs, an optional PostgreSQL server."""

LEGACY = None
"""No older script."""

SETUP_AT_ONCE = 16
"""Tables set up concurrently."""

SETUP_SECONDS = 300.0
"""The longest a step waits for all its tables to be admitted before it measures anyway."""

RETRY_AFTER_SECONDS = (2.5, 7.5)
"""How long a refused table waits before it asks again: about the server's Retry-After (5 s),
at random, as people in a lobby do (all at the same moment, they would come back as a herd)."""


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` and its descendants (Linux /proc)."""
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def files_needed(tables: int, seats: int, spectators: int) -> int:
    """Open files each of client and server needs for ``tables`` tables."""
    return tables * (2 * seats + spectators) + 100


def raise_open_files(needed: int) -> int:
    """Raise the soft open-files limit to the hard one; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft < needed:
        say(f"  the open-files limit {soft} is below the {needed} needed: raise it (ulimit -n)")
    return soft


async def one_step(
    port: int, pid: int, tables: int, args: argparse.Namespace, seed: int
) -> dict[str, Any]:
    """Set up ``tables`` tables on the server at ``port``, warm up, measure: the figures."""
    rng = random.Random(seed)
    think = think_time(args.think, rng)
    tally = Tally()
    rss_idle = rss_bytes(pid)
    live: list[Table] = []
    gate = asyncio.Semaphore(SETUP_AT_ONCE)
    conns = [Connection(port) for _ in range(SETUP_AT_ONCE)]
    free = list(conns)
    stopping = False

    async def start_one(_k: int) -> bool:
        """One table; False when the server refused it (503 overloaded)."""
        async with gate:
            conn = free.pop()  # one set-up request at a time on each connection
            table = Table(port, args.seats, args.spectators, think, tally)
            try:
                if await table.start(conn):
                    live.append(table)
                    table.spawn(replace_when_ended(table))
                else:
                    return False
            except (RuntimeError, OSError, asyncio.IncompleteReadError) as error:
                tally.error(f"setup {type(error).__name__}")
                say(f"  a table did not start: {error}")
            finally:
                free.append(conn)
        return True

    async def arrive(k: int) -> None:
        """Table ``k`` arrives at its time of the ramp; refused, it asks again after about the
        server's Retry-After, as a person in the lobby would, until the step ends."""
        if args.arrive_over > 0:
            await asyncio.sleep(k * args.arrive_over / tables)
        while not stopping and not await start_one(k):
            await asyncio.sleep(rng.uniform(*RETRY_AFTER_SECONDS))

    async def replace_when_ended(table: Table) -> None:
        await table.ended.wait()
        if not stopping:
            await start_one(0)

    lags: list[float] = []

    async def probe() -> None:
        # The client's own event loop lateness: a slow client would look like a slow server.
        while True:
            due = time.monotonic() + 0.1
            await asyncio.sleep(0.1)
            lags.append((time.monotonic() - due) * 1000)

    prober = asyncio.create_task(probe())
    began = time.monotonic()
    arrivals: list[asyncio.Task[None]] = []
    if args.arrive_over > 0:
        arrivals = [asyncio.create_task(arrive(k)) for k in range(tables)]
        await asyncio.sleep(args.arrive_over)
        say(f"  {len(live)} tables playing after {args.arrive_over:.0f} s of arrivals")
    else:
        # Refused (the server admits new tables at the rate it can take), a table asks again
        # after about the Retry-After; the step measures once every table plays.
        arrivals = [asyncio.create_task(arrive(k)) for k in range(tables)]
        _, pending = await asyncio.wait(arrivals, timeout=SETUP_SECONDS)
        say(
            f"  {len(live)} tables set up in {time.monotonic() - began:.0f} s"
            + (f" ({len(pending)} still refused)" if pending else "")
            + "; warming up"
        )
    await asyncio.sleep(args.warmup)
    cpu0, t0, wall0 = tree_cpu_seconds(pid), time.monotonic(), time.time()
    live_at_start = len(live)
    lags.clear()
    await asyncio.sleep(args.seconds)
    cpu1, t1, wall1 = tree_cpu_seconds(pid), time.monotonic(), time.time()
    live_at_end = len(live)
    for arrival in arrivals:
        arrival.cancel()
    client_lag = quantile(lags, 0.99)
    prober.cancel()
    rss = rss_bytes(pid)
    feeds = sum(len(t.seats) + len(t.spectators) for t in live)
    stopping = True
    await asyncio.sleep(2.0)  # the last plays' pushes arrive
    for table in live:
        table.stopped = True
        table.settle(t0)
    for table in live:
        await table.stop()
    for conn in conns:
        await conn.close()
    plays = [ms for sent, ms in tally.play_ms if t0 <= sent < t1]
    pushes = [ms for sent, ms in tally.pushes if sent < t1]
    caught_up = [ms for sent, ms in tally.caught_up_shed if sent < t1]
    window = t1 - t0
    return {
        "tables": tables,
        "playing": f"{live_at_start}-{live_at_end}",
        "feeds": feeds,
        "planned_s": round(tables / mean_think(args.think), 1),
        "done_s": round(len(plays) / window, 1),
        "play_p50": round(quantile(plays, 0.5), 1),
        "play_p99": round(quantile(plays, 0.99), 1),
        "push_p50": round(quantile(pushes, 0.5), 1),
        "push_p99": round(quantile(pushes, 0.99), 1),
        "cpu_ms_per_play": round((cpu1 - cpu0) * 1000 / max(1, len(plays)), 2),
        "rss_mb": round(rss / 2**20, 1),
        "rss_kb_per_feed": round((rss - rss_idle) / 1024 / max(1, feeds), 1),
        "client_lag_p99": round(client_lag, 1),
        "client_lag_max": round(max(lags, default=0.0), 1),
        "errors": tally.errors,
        "refused": tally.refused + tally.tables_refused,
        "out_of_order": tally.out_of_order,
        "missing": tally.missing,
        "missing_shed": tally.missing_shed,
        "caught_up_shed": len(caught_up),
        "caught_up_shed_p99": round(quantile(caught_up, 0.99), 1),
        "views_again": tally.views,
        "feeds_resumed": tally.feed_reopened,
        "error_kinds": dict(tally.error_kinds),
        "window": (wall0, wall1),
    }


def collector_env(workdir: Path, record: bool) -> tuple[dict[str, str], Path | None]:
    """With ``record``: the server's environment that puts bench/collector.py's recorder on its
    path, and the prefix of the files it writes (a new one for each server)."""
    if not record:
        return {}, None
    return recorder_env(workdir, f"gc-{time.time_ns()}")


def collections_in(log: Path, window: tuple[float, float]) -> dict[str, Any]:
    """The server's collections within the measured window: count by generation, their time in
    all, and the longest pause."""
    found = pauses_between(log, *window)
    return {
        "gc_collections": "/".join(str(sum(g == k for g, _ in found)) for k in (0, 1, 2)),
        "gc_ms": round(sum(ms for _, ms in found), 1),
        "gc_longest_ms": round(max((ms for _, ms in found), default=0.0), 1),
    }


async def idle_step(port: int, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    """``--idle-feeds`` public feeds spread over ``--idle-matches`` 2-seat matches that do not
    move; then ``--moves`` plays, one match at a time: RSS, RSS per feed, and how long each
    feed of the moved match took to receive the play."""
    tally = Tally()
    rss_idle = rss_bytes(pid)
    conn = Connection(port)
    matches: list[tuple[str, list[str]]] = []
    seqs: dict[str, int] = {}
    for _ in range(args.idle_matches):
        # The longest turn (R25): an idle match's clock must not move it while feeds open.
        table = b'{"ruleset":"classic","seats":2,"turn_seconds":600}'
        _, created = await conn.request("POST", "/matches", table)
        path = f"/matches/{msgspec.json.decode(created)['match_id']}"
        tokens = []
        for seat in range(2):
            _, taken = await conn.request("POST", f"{path}/seats/{seat}", b'{"name":"b"}')
            tokens.append(msgspec.json.decode(taken)["token"])
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        _, body = await conn.request("GET", f"{path}/view", headers=auth)
        matches.append((path, tokens))
        seqs[path] = int(msgspec.json.decode(body)["seq"])
    feeds: dict[str, list[Feed]] = {path: [] for path, _ in matches}
    for k in range(args.idle_feeds):
        path = matches[k % len(matches)][0]
        feed = Feed(port, f"{path}/events", None, _none)
        feed.start(seqs[path], tally)  # no backlog: only what comes next
        feeds[path].append(feed)
        if k % 200 == 199:
            await asyncio.sleep(0.2)
    everyone = [f for group in feeds.values() for f in group]
    say(f"  {len(everyone)} idle feeds opening")
    began = time.monotonic()
    while time.monotonic() - began < 120 and not all(f.ready.is_set() for f in everyone):
        await asyncio.sleep(0.5)
    await asyncio.sleep(3.0)
    rss = rss_bytes(pid)
    pushes: list[float] = []
    missing = 0
    for k in range(args.moves):
        path, tokens = matches[k % len(matches)]
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        _, body = await conn.request("GET", f"{path}/view", headers=auth)
        view = msgspec.json.decode(body)
        turn = view["after"]["turn"]
        if turn is None:
            continue  # not playing (cannot happen within the turn time; counted as missing)
        if turn != 0:
            auth = {"Authorization": f"Bearer {tokens[turn]}"}
            _, body = await conn.request("GET", f"{path}/view", headers=auth)
            view = msgspec.json.decode(body)
        play = msgspec.json.encode({"card": view["hand"][0], "seq": view["seq"]})
        sent = time.monotonic()
        await conn.request("POST", f"{path}/plays", play, auth)
        await asyncio.sleep(0.25)
        for feed in feeds[path]:
            arrived = feed.arrived.get(view["seq"] + 1)
            if arrived is None:
                missing += 1
            else:
                pushes.append((arrived - sent) * 1000)
    for feed in everyone:
        await feed.stop()
    await conn.close()
    return {
        "side": "",
        "feeds": len(everyone),
        "rss_mb": round(rss / 2**20, 1),
        "rss_kb_per_feed": round((rss - rss_idle) / 1024 / max(1, len(everyone)), 1),
        "push_p50": round(quantile(pushes, 0.5), 1),
        "push_p99": round(quantile(pushes, 0.99), 1),
        "pushes": len(pushes),
        "missing": missing,
        "errors": tally.errors,
        "refused": tally.refused,
        "error_kinds": tally.error_kinds,
    }


def _none(_data: bytes) -> None:
    """An idle feed folds nothing."""


COLUMNS = (
    ("side", "side"),
    ("tables", "tables"),
    ("playing", "playing (start-end)"),
    ("feeds", "feeds"),
    ("planned_s", "planned/s"),
    ("done_s", "done/s"),
    ("play_p50", "play p50"),
    ("play_p99", "play p99"),
    ("push_p50", "push p50"),
    ("push_p99", "push p99"),
    ("cpu_ms_per_play", "CPU ms/play"),
    ("rss_mb", "RSS MB"),
    ("rss_kb_per_feed", "KB/feed"),
    ("client_lag_p99", "client lag p99"),
    ("client_lag_max", "client lag max"),
    ("errors", "errors"),
    ("refused", "503s"),
    ("out_of_order", "out of order"),
    ("missing", "missing"),
    ("missing_shed", "missing (shed spectators)"),
    ("caught_up_shed", "caught up (shed spectators)"),
    ("caught_up_shed_p99", "their p99"),
)
"""The printed table's columns (key, heading); latencies in ms."""

COLLECTOR_COLUMNS = (
    ("gc_collections", "collections (gen 0/1/2)"),
    ("gc_ms", "in the collector, ms"),
    ("gc_longest_ms", "longest pause, ms"),
)
"""The columns added with ``--collector``."""


def table_text(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of the rows (with the collector's columns when they were recorded)."""
    columns = COLUMNS + (COLLECTOR_COLUMNS if any("gc_ms" in row for row in rows) else ())
    lines = ["| " + " | ".join(h for _, h in columns) + " |"]
    lines.append("|" + " --- |" * len(columns))
    for row in rows:
        lines.append("| " + " | ".join(str(row.get(k, "")) for k, _ in columns) + " |")
    return "\n".join(lines)


def run_loop(work: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """Run the client on uvloop when it is installed (the server's own loop), else asyncio's."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run(work)
    return uvloop.run(work)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--tables", default="250,500,750", help="steps of N tables, e.g. 250,500")
    parser.add_argument("--seats", type=int, default=2, choices=(2, 4))
    parser.add_argument("--spectators", type=int, default=1, help="spectator feeds per table")
    parser.add_argument("--think", default="uniform:1-3", help="uniform:LO-HI or exp:MEAN (s)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument(
        "--arrive-over",
        type=float,
        default=0.0,
        help="tables arrive spread over this many seconds, a refused one asking again after"
        " 2.5-7.5 s (0: all set up before the step)",
    )
    parser.add_argument("--stores", default="sqlite-1", help="sqlite-1,pg-1,pg-2")
    parser.add_argument("--idle-feeds", type=int, default=0, help="instead: N idle public feeds")
    parser.add_argument("--idle-matches", type=int, default=1000, help="with --idle-feeds")
    parser.add_argument("--moves", type=int, default=200, help="with --idle-feeds: plays made")
    parser.add_argument(
        "--setups",
        type=int,
        default=0,
        help="instead: set up N tables one after another (nobody plays) and report the server's"
        " CPU per table set up",
    )
    parser.add_argument("--code-before", type=Path, default=None, help="the checkout of before")
    parser.add_argument(
        "--code-also",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="one more checkout served in every step after the others, its rows labelled LABEL"
        " (repeatable)",
    )
    parser.add_argument(
        "--collector",
        action="store_true",
        help="also record the server's garbage collections (bench/collector.py's recorder):"
        " how many, their time and the longest pause in each measured window",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run every step on every store and side; print a table per store; the rows."""
    if args.idle_feeds:
        return run_idle(args)
    if args.setups:
        return run_setups(args)
    steps = [int(n) for n in args.tables.split(",")]
    cases = [c for c in SERVE_CASES if c[0] in args.stores.split(",")]
    if any(store == "pg" for _, store, _ in cases) and not args.postgres:
        raise SystemExit("--stores pg-1/pg-2 need --postgres URL (or BASRA_TEST_POSTGRES)")
    needed = files_needed(max(steps), args.seats, args.spectators)
    limit = raise_open_files(needed)
    say(
        f"per-address limits off ({', '.join(NO_LIMITS)}); open files needed {needed}, "
        f"soft limit now {limit}"
    )
    sides = sides_of(args)
    found: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-tables-") as tmp:
        for case in cases:
            for repeat in range(args.repeats):
                for tables in steps:
                    for tree, side in sides:
                        say(f"{case[0]} {side}: {tables} tables (run {repeat + 1})")
                        env, log = collector_env(Path(tmp), args.collector)
                        served = served_case(Path(tmp), case, args.postgres, env, tree)
                        with served as (port, pid), collector_between_steps():
                            row = run_loop(one_step(port, pid, tables, args, seed=repeat))
                        window = row.pop("window")
                        if log is not None:  # the server has exited: its records are flushed
                            row |= collections_in(log, window)
                        row["side"] = side
                        row["run"] = repeat + 1
                        say(f"  {row}")
                        found.setdefault(case[0], []).append(row)
    print(
        f"## Live tables at human pace ({args.seats} seats, {args.spectators} spectator(s), "
        f"think {args.think}, {args.seconds:g} s measured after {args.warmup:g} s; "
        "per-address limits off; latencies in ms)"
    )
    for label, rows in found.items():
        print(f"\n### {label}\n\n{table_text(rows)}\n")
        for line in verdicts(rows):
            print(f"- {line}")
    return found


async def setup_step(port: int, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    """``--setups`` tables set up one after another, 20 ms apart, as the lobby sets them up
    (a table, its seats, the spectator feeds, each seat's view and feed), nobody playing: the
    server's CPU per table, over the CPU of the same time idle."""
    tally = Tally()
    think = think_time("uniform:100000-100001", random.Random(0))  # nobody plays
    conn = Connection(port)
    tables: list[Table] = []
    for _ in range(3):  # the first requests' imports and caches
        tables.append(Table(port, args.seats, args.spectators, think, tally))
        await tables[-1].start(conn)
    await asyncio.sleep(1.0)
    idle0 = tree_cpu_seconds(pid)
    await asyncio.sleep(2.0)
    idle_per_s = (tree_cpu_seconds(pid) - idle0) / 2.0
    cpu0, t0 = tree_cpu_seconds(pid), time.monotonic()
    for _ in range(args.setups):
        table = Table(port, args.seats, args.spectators, think, tally)
        if not await table.start(conn):
            raise SystemExit("a table was refused: run --setups on a quiet server")
        tables.append(table)
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)  # the last feeds' first lines
    cpu = tree_cpu_seconds(pid) - cpu0 - idle_per_s * (time.monotonic() - t0)
    for table in tables:
        await table.stop()
    await conn.close()
    return {"tables": args.setups, "cpu_ms_per_setup": round(cpu * 1000 / args.setups, 2)}


def run_setups(args: argparse.Namespace) -> dict[str, Any]:
    """``--setups``: one SQLite process per side and run, sides interleaved; a row each."""
    rows = sqlite_sides(
        args, f"{args.setups} tables set up", args.repeats, lambda p, i: setup_step(p, i, args)
    )
    print(f"## Server CPU per table set up ({args.seats} seats, {args.spectators} spectator(s))")
    print("| side | tables | CPU ms per table set up |\n| --- | --- | --- |")
    for row in rows:
        print(f"| {row['side']} | {row['tables']} | {row['cpu_ms_per_setup']} |")
    return {"setups": rows}


def sides_of(args: argparse.Namespace) -> list[tuple[Path | None, str]]:
    """(code tree, label) of each side: this checkout, then ``--code-before`` when given, then
    each ``--code-also LABEL=DIR``."""
    sides: list[tuple[Path | None, str]] = [(None, "after")]
    if args.code_before:
        sides.append((args.code_before, "before"))
    for also in getattr(args, "code_also", []):
        label, sep, tree = also.partition("=")
        if not sep or not label or not tree:
            raise SystemExit(f"--code-also takes LABEL=DIR, not {also!r}")
        sides.append((Path(tree), label))
    return sides


def sqlite_sides(
    args: argparse.Namespace,
    what: str,
    repeats: int,
    step: Callable[[int, int], Coroutine[Any, Any, dict[str, Any]]],
) -> list[dict[str, Any]]:
    """``step(port, pid)`` against one fresh SQLite server per side (after, and before with
    ``--code-before``) and run, sides interleaved: its rows, each with its side."""
    sides = sides_of(args)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-tables-") as tmp:
        for repeat in range(repeats):
            for tree, side in sides:
                say(f"sqlite-1 {side}: {what} (run {repeat + 1})")
                with served_case(Path(tmp), SERVE_CASES[0], None, {}, tree) as (port, pid):
                    row = run_loop(step(port, pid))
                row["side"] = side
                say(f"  {row}")
                rows.append(row)
    return rows


def run_idle(args: argparse.Namespace) -> dict[str, Any]:
    """``--idle-feeds``: one SQLite process per side; a row per side."""
    limit = raise_open_files(args.idle_feeds + 200)
    say(f"per-address limits off; open files needed {args.idle_feeds + 200}, soft limit {limit}")
    rows = sqlite_sides(
        args, f"{args.idle_feeds} idle feeds", 1, lambda p, i: idle_step(p, i, args)
    )
    print(f"## {args.idle_feeds} idle feeds over {args.idle_matches} matches, {args.moves} moves")
    keys = ("side", "feeds", "rss_mb", "rss_kb_per_feed", "push_p50", "push_p99", "missing")
    print("| " + " | ".join(keys) + " |\n|" + " --- |" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    return {"idle": rows}
