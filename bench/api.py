"""Load benchmark of the HTTP API: real server processes on loopback, side by side with a baseline.

Two servers run under the same uvicorn settings, one after the other, each in its own process:

- ``basra serve`` on a fresh SQLite file (the embedded store: WAL, ``synchronous`` as configured);
- a minimal Litestar app whose one handler appends one SQLite row per request, on a file with the
  store's ``journal_mode`` (WAL) and ``synchronous`` (bench/baseline_server.py).

Workloads (the client is one asyncio process with a small keep-alive HTTP/1.1 client, so that
the load generator costs little next to the servers):

- ``throughput``: 50 practice matches (a person against an easy bot) playing as fast as they
  can for ``--seconds`` (``--duration`` as the old script named it), ``--repeats`` rounds
  (``--rounds``); plays/s of the API against requests/s of the baseline under 50 concurrent
  clients.
- ``paced``: 500 practice matches each playing a card every 2 seconds (250 plays/s);
  the latency of each play, p50/p90/p99, and the same pacing against the baseline.

The API runs with every abuse limit off (``--rate-limit NAME=off``, docs/api.md "CORS and
limits"): the workloads create hundreds of matches from one address, which the default
``matches=60/minute`` would refuse with 429 after the first 60.

Every loop is bounded in time; only 127.0.0.1 is contacted. Run from the repository root:

    python -m bench api [--repeats 3] [--seconds 15] [--paced-duration 40]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from app.config import DEFAULT_SYNCHRONOUS
from bench.before import Legacy, json_figures
from bench.client import Connection, Practice
from bench.options import Shared
from bench.servers import free_port, serve_env, served, serving
from bench.stats import quantile

SHARED = Shared(
    seconds=15.0,
    seconds_help="seconds per throughput run",
    repeats=3,
    repeats_help="alternating rounds per workload",
    names={"seconds": ("--duration",), "repeats": ("--rounds",)},
)
"""The throughput runs' length and rounds."""

LEGACY = Legacy(
    "bench.bench_api", json_figures, names={"seconds": "--duration", "repeats": "--rounds"}
)
"""The old script, bench/bench_api.py, printed the same JSON."""


# -- workloads --------------------------------------------------------------------------------


async def throughput_api(port: int, concurrency: int, duration: float, seed: int) -> float:
    """Plays per second of ``concurrency`` practice matches playing as fast as they can."""
    count = 0
    ready = asyncio.Event()
    started = 0
    deadline = 0.0

    async def player(i: int) -> None:
        nonlocal count, started
        conn = Connection(port)
        rng = random.Random(seed * 1000 + i)
        try:
            match = Practice(conn, rng)
            await match.start()
            started += 1
            if started == concurrency:
                ready.set()
            await ready.wait()
            while time.monotonic() < deadline:
                if match.ended:
                    match = Practice(conn, rng)
                    await match.start()
                await match.play()
                if time.monotonic() < deadline:
                    count += 1
        finally:
            await conn.close()

    tasks = [asyncio.create_task(player(i)) for i in range(concurrency)]
    await ready.wait()
    begin = time.monotonic()
    deadline = begin + duration
    await asyncio.gather(*tasks)
    return count / duration


async def throughput_baseline(port: int, concurrency: int, duration: float) -> float:
    """Requests per second of the one-row handler under ``concurrency`` clients."""
    count = 0
    deadline = time.monotonic() + duration

    async def client(i: int) -> None:
        nonlocal count
        conn = Connection(port)
        try:
            n = 0
            while time.monotonic() < deadline:
                body = msgspec.json.encode({"card": "AC", "client": i, "n": n})
                status, _ = await conn.request("POST", "/append", body)
                assert status == 200
                n += 1
                if time.monotonic() < deadline:
                    count += 1
        finally:
            await conn.close()

    await asyncio.gather(*(client(i) for i in range(concurrency)))
    return count / duration


@dataclass
class Paced:
    """Latencies of paced requests, in milliseconds."""

    latencies_ms: list[float] = field(default_factory=list)
    late_starts: int = 0

    def summary(self) -> dict[str, float]:
        """Count, p50, p90, p99 and max."""
        data = sorted(self.latencies_ms)
        if not data:
            return {"count": 0}

        return {
            "count": len(data),
            "p50": round(quantile(data, 0.50), 2),
            "p90": round(quantile(data, 0.90), 2),
            "p99": round(quantile(data, 0.99), 2),
            "max": round(data[-1], 2),
            "late_starts": self.late_starts,
        }


async def paced_api(port: int, matches: int, interval: float, duration: float, seed: int) -> Paced:
    """``matches`` practice matches, each playing one card every ``interval`` seconds."""
    result = Paced()
    players: list[Practice] = []
    conns = [Connection(port) for _ in range(matches)]
    for i, conn in enumerate(conns):
        practice = Practice(conn, random.Random(seed * 1000 + i))
        await practice.start()
        players.append(practice)
    begin = time.monotonic() + 0.5
    end = begin + duration

    async def pace(i: int) -> None:
        match = players[i]
        tick = begin + interval * i / matches  # spread evenly over the interval
        while tick < end:
            delay = tick - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                result.late_starts += 1
            if match.ended:
                match = Practice(conns[i], match.rng)
                await match.start()
            else:
                sent = time.perf_counter()
                await match.play()
                result.latencies_ms.append((time.perf_counter() - sent) * 1000)
            tick += interval

    try:
        await asyncio.gather(*(pace(i) for i in range(matches)))
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    return result


async def paced_baseline(port: int, clients: int, interval: float, duration: float) -> Paced:
    """The same pacing against the one-row handler."""
    result = Paced()
    conns = [Connection(port) for _ in range(clients)]
    for conn in conns:
        await conn.request("GET", "/health")
    begin = time.monotonic() + 0.5
    end = begin + duration

    async def pace(i: int) -> None:
        tick = begin + interval * i / clients
        n = 0
        while tick < end:
            delay = tick - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                result.late_starts += 1
            body = msgspec.json.encode({"card": "AC", "client": i, "n": n})
            sent = time.perf_counter()
            status, _ = await conns[i].request("POST", "/append", body)
            assert status == 200
            result.latencies_ms.append((time.perf_counter() - sent) * 1000)
            n += 1
            tick += interval

    try:
        await asyncio.gather(*(pace(i) for i in range(clients)))
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    return result


# -- the servers --------------------------------------------------------------------------------


@contextlib.contextmanager
def server(
    kind: str, workdir: Path, server_name: str = "uvicorn", store_calls: str | None = None
) -> Iterator[int]:
    """Start the ``api`` or ``baseline`` server on a fresh file; its port; stopped after."""
    env = {} if store_calls is None else {"BASRA_API_STORE_CALLS": store_calls}
    if kind == "api":
        with served(workdir, 1, None, env, server=server_name, start_seconds=30) as (port, _):
            yield port
        return
    port = free_port()
    env["BASRA_BENCH_BASELINE_DB"] = str(workdir / f"{kind}-{port}.db")
    command = [sys.executable, "-m", "bench.baseline_server", "--port", str(port)]
    command += ["--server", server_name]
    log = workdir / f"{kind}-{port}.log"
    with serving(command, port, serve_env(env), log, start_seconds=30):
        yield port


# -- the run ----------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--concurrency", type=int, default=50, help="matches playing at once")
    parser.add_argument("--paced-matches", type=int, default=500)
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between plays")
    parser.add_argument("--paced-duration", type=float, default=40.0)
    parser.add_argument("--paced-rounds", type=int, default=2)
    parser.add_argument("--only", choices=["throughput", "paced"], default=None)
    parser.add_argument(
        "--servers", default="uvicorn", help="comma-separated: uvicorn and/or granian"
    )
    parser.add_argument(
        "--compare-threads",
        action="store_true",
        help="also run the API with every store call on worker threads (BASRA_API_STORE_CALLS)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run both workloads against both servers, alternating, and print JSON and a summary."""
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "synchronous": os.environ.get("BASRA_SQLITE_SYNCHRONOUS", DEFAULT_SYNCHRONOUS),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
    }
    with tempfile.TemporaryDirectory(prefix="basra-bench-", dir=os.environ.get("BENCH_DIR")) as d:
        workdir = Path(d)
        for name in args.servers.split(","):
            results[name] = {"load_before": os.getloadavg()}
            if args.only in (None, "throughput"):
                results[name]["throughput"] = _throughput(args, workdir, name)
            if args.only in (None, "paced"):
                results[name]["paced"] = _paced(args, workdir, name)
            results[name]["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    return results


def _throughput(args: argparse.Namespace, workdir: Path, name: str) -> dict[str, Any]:
    api: list[float] = []
    threads: list[float] = []
    baseline: list[float] = []
    for r in range(args.repeats):
        with server("baseline", workdir, name) as port:
            baseline.append(asyncio.run(throughput_baseline(port, args.concurrency, args.seconds)))
        with server("api", workdir, name) as port:
            api.append(asyncio.run(throughput_api(port, args.concurrency, args.seconds, r)))
        if args.compare_threads:
            with server("api", workdir, name, store_calls="threads") as port:
                threads.append(asyncio.run(throughput_api(port, args.concurrency, args.seconds, r)))
        print(
            f"{name} round {r + 1}: baseline {baseline[-1]:.1f} req/s, api {api[-1]:.1f} plays/s"
            + (f", api with threads {threads[-1]:.1f} plays/s" if threads else ""),
            file=sys.stderr,
        )
    ratio = statistics.median(api) / statistics.median(baseline)
    extra: dict[str, Any] = {}
    if threads:
        extra = {
            "api_threads_plays_per_s": [round(x, 1) for x in threads],
            "api_threads_median": round(statistics.median(threads), 1),
            "threads_ratio_of_medians": round(
                statistics.median(threads) / statistics.median(baseline), 3
            ),
        }
    return extra | {
        "baseline_requests_per_s": [round(x, 1) for x in baseline],
        "api_plays_per_s": [round(x, 1) for x in api],
        "baseline_median": round(statistics.median(baseline), 1),
        "api_median": round(statistics.median(api), 1),
        "ratio_of_medians": round(ratio, 3),
        "goal": ">= 0.5",
        "met": ratio >= 0.5,
    }


def _paced(args: argparse.Namespace, workdir: Path, name: str) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for r in range(args.paced_rounds):
        with server("baseline", workdir, name) as port:
            base = asyncio.run(
                paced_baseline(port, args.paced_matches, args.interval, args.paced_duration)
            )
        with server("api", workdir, name) as port:
            api = asyncio.run(
                paced_api(port, args.paced_matches, args.interval, args.paced_duration, r)
            )
        run = {"baseline": base.summary(), "api": api.summary()}
        if args.compare_threads:
            with server("api", workdir, name, store_calls="threads") as port:
                threaded = asyncio.run(
                    paced_api(port, args.paced_matches, args.interval, args.paced_duration, r)
                )
            run["api_threads"] = threaded.summary()
        runs.append(run)
        print(f"{name} paced round {r + 1}: {json.dumps(run)}", file=sys.stderr)
    p99s = [run["api"]["p99"] for run in runs]
    return {
        "runs": runs,
        "api_p99_median_ms": round(statistics.median(p99s), 2),
        "goal_ms": 50,
        "met": statistics.median(p99s) <= 50,
    }
