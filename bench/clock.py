"""Benchmark of the turn clock (R25): how late deadlines fire on a real ``basra serve``.

500 concurrent 2-seat matches between people with 2-second turns (the server's
``--turn-seconds 2``, on the wall clock), nobody playing: each match ends by timeout when its
first deadline passes. So that all 500 turns run at once, the tables are recorded into the
store first, every seat taken at one moment S a little ahead (the recording service's clock
held at S), so all 500 deadlines are S + 2 s; then ``basra serve`` starts on that store, finds
the 500 running turns there (as after a restart) and must fire all 500 at once. The lateness
of an expiry is the ``at`` of its ``match_ended`` minus the deadline it fired, read from the
store after the run; reported as p50/p99/max in ms.

Second workload, "plays at the deadline": the same, and for each table a client that plays
the seat on turn's first card over HTTP at a random moment of the last 100 ms before its
deadline (all 500 aimed into the same 100 ms). Counted: plays that landed (200) and plays
refused (409 ``turn_expired``, or ``conflict`` when the clock's append came first), and the
lateness of the expiries that fired (after a play that landed, the other seat's 2-second turn
runs out next).

Each workload runs on a fresh SQLite file and, with ``--postgres URL`` (or
``BASRA_TEST_POSTGRES``), on a fresh schema of that PostgreSQL database (dropped after), one
server process each, side by side in one run. Only 127.0.0.1 and that database are contacted.
Run from the repository root:

    python -m bench clock [--matches 500] [--postgres postgresql://...]
        [--only sqlite|postgres] [--code-before DIR]

With ``--code-before DIR`` (``--before`` of the old script; a tree of earlier code, e.g. ``git
archive COMMIT | tar -x -C DIR``) each workload runs first on a server of that code, then on
one of this code, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from app.api.edges.tokens import issue_token
from app.service import MatchService
from bench.before import Legacy, groups
from bench.options import Shared
from bench.servers import HOST, fresh_schema, served
from bench.stats import quantile
from domain.events import MatchEnded
from domain.recorded import RecordedEvent
from domain.times import utc_micros, utc_text

TURN_SECONDS = 2
"""The server's turn time of the benchmark (R25: the server's may be 1-600)."""

SEED_MS_PER_TABLE = 60
"""Time allowed per table to record it before its turn starts (generous on a loaded machine)."""

SEED_THREADS = 8
"""Threads recording the tables."""

SHARED = Shared(postgres="optional")
"""The PostgreSQL server (measured when given)."""

WORKLOADS = {False: "nobody plays", True: "plays at the deadline"}
"""The two workloads by whether the seats play, as printed."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_clock.py)."""
    found: dict[str, float] = {}
    for block in re.split(r"\n(?=\w+, (?:nobody|plays))", text):
        head = re.match(
            r"(\w+), (nobody plays|plays at the deadline), (this code|the code of)", block
        )
        if head is None:
            continue
        plays = head.group(2) != "nobody plays"
        key = f"{head.group(1)}/{'plays' if plays else 'idle'}/"
        key += "here" if head.group(3) == "this code" else "before"
        found |= groups(
            block, r"(\d+) timeouts, (\d+) not ended", [f"{key}/timeouts", f"{key}/not_ended"]
        )
        found |= groups(block, r"at most (\d+) matches", [f"{key}/most_at_once"])
        found |= groups(
            block,
            r"plays landed (\d+), refused 409 (\d+), other (\d+)",
            [f"{key}/landed", f"{key}/refused", f"{key}/other"],
        )
        found |= groups(
            block,
            r"lateness p50 (-?\d+) ms, p99 (-?\d+) ms, max (-?\d+) ms",
            [f"{key}/lateness_p50_ms", f"{key}/lateness_p99_ms", f"{key}/lateness_max_ms"],
        )
    return found


LEGACY = Legacy(
    "bench.bench_clock",
    read_legacy,
    names={"postgres": "--postgres"},
    renames={"--code-before": "--before"},
    left_out=("--lead", "--workloads"),
)
"""The old script, bench/bench_clock.py, printed the same report (its lead was 15 s)."""


@dataclass(frozen=True)
class Seeded:
    """A table recorded with both seats taken: who is on turn, with what, and their token."""

    match_id: str
    seq: int
    card: str
    token: str


def seed_tables(service: MatchService, matches: int, at_ms: int) -> list[Seeded]:
    """``matches`` 2-seat tables of people, every seat taken at ``at_ms`` (the service's clock
    held there), so every first turn runs from ``at_ms`` for the server's turn time; recorded
    from several threads (on PostgreSQL each append waits on the database)."""
    service.clock = lambda: utc_text(at_ms)
    service.turn_seconds = TURN_SECONDS
    with ThreadPoolExecutor(SEED_THREADS) as pool:
        return list(pool.map(lambda _: seed_one(service), range(matches)))


def seed_one(service: MatchService) -> Seeded:
    """One table recorded with both seats taken."""
    match_id = service.create_match(ruleset="classic", seats=2).match_id
    tokens = []
    for seat in (0, 1):
        issued = issue_token(match_id, seat)
        service.take_seat(
            match_id,
            seat,
            f"P{seat}",
            token_id=issued.token_id,
            token_hash=issued.token_hash,
            caused_by=f"seat:{seat}/token:{issued.token_id}",
        )
        tokens.append(issued.token)
    state = service.load(match_id)
    assert state.turn is not None and state.deadline is not None
    return Seeded(match_id, state.events, state.hands[state.turn][0], tokens[state.turn])


async def play_at_deadline(http: httpx.AsyncClient, url: str, table: Seeded, due_ms: int) -> int:
    """The seat on turn plays at a random moment of the last 100 ms before ``due_ms``; the
    HTTP status."""
    aim_ms = due_ms - random.uniform(0, 100)
    await asyncio.sleep(max(0.0, aim_ms / 1000 - time.time()))
    response = await http.post(
        f"{url}/matches/{table.match_id}/plays",
        json={"card": table.card, "seq": table.seq},
        headers={"Authorization": f"Bearer {table.token}"},
    )
    return response.status_code


def lateness_ms(stream: list[RecordedEvent]) -> float | None:
    """Ms between the deadline a timeout fired and its record time, or None."""
    ended = stream[-1]
    if not isinstance(ended.event, MatchEnded) or ended.event.reason != "timeout":
        return None
    for r in reversed(stream[:-1]):
        deadline = getattr(r.event, "deadline", None)
        if isinstance(deadline, str):
            return (utc_micros(ended.at) - utc_micros(deadline)) / 1000
    return None


@contextmanager
def fresh_store(
    kind: str, postgres: str | None, folder: Path
) -> Iterator[tuple[Path | None, str | None, MatchService]]:
    """A fresh SQLite file of ``folder`` or PostgreSQL schema: (the file, the URL, a reading
    service)."""
    if kind == "sqlite":
        db = folder / f"bench-{time.time_ns()}.db"
        service = MatchService.open(db)
        try:
            yield db, None, service
        finally:
            service.close()
        return
    assert postgres is not None
    with fresh_schema(postgres) as (url, _):
        service = MatchService.open(database_url=url)
        try:
            yield None, url, service
        finally:
            service.close()


async def run_one(
    matches: int, plays: bool, kind: str, postgres: str | None, tree: Path, code: str, lead: float
) -> dict[str, float]:
    """One workload on a fresh server (the code in ``tree``, called ``code``) and store; prints
    its figures and returns them."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_store(kind, postgres, Path(tmp)) as (db, url, service),
    ):
        # every turn starts at S, far enough ahead to record them all and start the server
        margin_ms = max(int(lead * 1000), matches * SEED_MS_PER_TABLE)
        start_ms = time.time_ns() // 1_000_000 + margin_ms
        due_ms = start_ms + TURN_SECONDS * 1000
        tables = await asyncio.to_thread(seed_tables, service, matches, start_ms)
        serve_args = ["--turn-seconds", str(TURN_SECONDS)]
        with served(Path(tmp), 1, url, {}, tree, serve_args=serve_args, db=db) as (port, _):
            server = f"http://{HOST}:{port}"
            left_ms = start_ms - time.time_ns() // 1_000_000
            if left_ms < 0:
                print(f"  (recording and start-up overran S by {-left_ms} ms: turns had begun)")
            limits = httpx.Limits(max_connections=matches)
            async with httpx.AsyncClient(timeout=60, limits=limits) as http:
                answers = [0] * matches
                if plays:
                    answers = await asyncio.gather(
                        *(play_at_deadline(http, server, t, due_ms) for t in tables)
                    )
                limit = time.monotonic() + 120
                pending = {t.match_id for t in tables}
                late: list[float] = []
                spans: list[tuple[int, int]] = []  # (turn started, match ended), epoch us
                while pending and time.monotonic() < limit:
                    await asyncio.sleep(0.5)
                    for match_id in list(pending):
                        # after a play that landed, the other seat's turn runs out next
                        stream = await asyncio.to_thread(service.events, match_id)
                        if isinstance(stream[-1].event, MatchEnded):
                            pending.discard(match_id)
                            spans.append((start_ms * 1000, utc_micros(stream[-1].at)))
                            value = lateness_ms(stream)
                            if value is not None:
                                late.append(value)
    figures: dict[str, float] = {
        "timeouts": len(late),
        "not_ended": len(pending),
        "most_at_once": most_at_once(spans),
    }
    print(
        f"{kind}, {WORKLOADS[plays]}, {code}: {matches} matches, {len(late)} timeouts,"
        f" {len(pending)} not ended (load average {os.getloadavg()[0]:.2f})"
    )
    print(
        f"  every first deadline at S + {TURN_SECONDS} s;"
        f" at most {most_at_once(spans)} matches had a turn running at once"
    )
    if plays:
        landed = answers.count(200)
        refused = sum(1 for a in answers if a == 409)
        other = len(answers) - landed - refused
        figures |= {"landed": landed, "refused": refused, "other": other}
        print(f"  plays landed {landed}, refused 409 {refused}, other {other}")
    if late:
        figures |= {
            "lateness_p50_ms": statistics.median(late),
            "lateness_p99_ms": quantile(late, 0.99),
            "lateness_max_ms": max(late),
        }
        print(
            f"  lateness p50 {statistics.median(late):.0f} ms,"
            f" p99 {quantile(late, 0.99):.0f} ms, max {max(late):.0f} ms"
        )
    return figures


def most_at_once(spans: list[tuple[int, int]]) -> int:
    """The most (start, end) spans that overlap at one moment."""
    moments = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    running = most = 0
    for _, step in moments:
        running += step
        most = max(most, running)
    return most


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument(
        "--code-before", type=Path, default=None, help="a tree of earlier code to serve in turn"
    )
    parser.add_argument("--only", choices=["sqlite", "postgres"], default=None)
    parser.add_argument(
        "--workloads",
        default="idle,plays",
        help="idle (nobody plays), plays (plays at the deadline), or both (the default)",
    )
    parser.add_argument(
        "--lead",
        type=float,
        default=15.0,
        help="seconds at least from the start of the recording to S (default 15)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Both workloads on SQLite, then on PostgreSQL when a database is given; the figures by
    store, workload (``idle``, ``plays``) and code (``here``, ``before``)."""
    kinds = ["sqlite"] + (["postgres"] if args.postgres else [])
    kinds = [k for k in kinds if args.only in (None, k)]
    here = Path(__file__).resolve().parent.parent
    trees = [("here", "this code", here)]
    if args.code_before is not None:  # each workload with the earlier code, then with this code
        trees.insert(0, ("before", f"the code of {args.code_before}", args.code_before.resolve()))
    figures: dict[str, Any] = {}
    for kind in kinds:
        for plays in (False, True):
            if ("plays" if plays else "idle") not in args.workloads.split(","):
                continue
            for key, code, tree in trees:
                found = asyncio.run(
                    run_one(args.matches, plays, kind, args.postgres, tree, code, args.lead)
                )
                workload = "plays" if plays else "idle"
                figures.setdefault(kind, {}).setdefault(workload, {})[key] = found
    return figures
