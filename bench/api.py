"""Load benchmark of the HTTP API: real server processes on loopback, side by side with a baseline.

Two servers run under the same uvicorn settings, one after the other, each in its own process:

- ``basra serve`` on a fresh SQLite file (the embedded store: WAL, ``synchronous`` as configured);
- a minimal Litestar app whose one handler appends one SQLite row per request, on a file with the
  store's ``journal_mode`` (WAL) and ``synchronous``.

Workloads (the client is one asyncio process with a small keep-alive HTTP/1.1 client, so that
the load generator costs little next to the servers):

- ``throughput``: 50 practice matches (a person against an easy bot) playing as fast as they
  can; plays/s of the API against requests/s of the baseline under 50 concurrent clients.
- ``paced``: 500 practice matches each playing a card every 2 seconds (250 plays/s);
  the latency of each play, p50/p90/p99, and the same pacing against the baseline.

The API runs with every abuse limit off (``--rate-limit NAME=off``, docs/api.md "CORS and
limits"): the workloads create hundreds of matches from one address, which the default
``matches=60/minute`` would refuse with 429 after the first 60.

Every loop is bounded in time; only 127.0.0.1 is contacted. Run from the repository root:

    .venv/bin/python -m bench.bench_api [--rounds 3] [--duration 15] [--paced-duration 40]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from app.config import DEFAULT_SYNCHRONOUS

HOST = "127.0.0.1"
"""Loopback only."""

NO_LIMITS = ("players", "matches", "wrong_tokens", "feeds")
"""The API's abuse limits, each turned off for the benchmark (one client address, many matches)."""


def rank_quantile(ordered: list[float], p: float) -> float:
    """The ``p`` quantile (0-1) of an ascending list, by nearest rank (0.0 when empty)."""
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else 0.0


# -- the baseline server ----------------------------------------------------------------------


def baseline_app() -> Any:
    """A minimal Litestar app: ``POST /append`` inserts one row and commits (WAL, synchronous)."""
    from litestar import Litestar, get, post

    path = os.environ["BASRA_BENCH_BASELINE_DB"]
    synchronous = os.environ.get("BASRA_SQLITE_SYNCHRONOUS", DEFAULT_SYNCHRONOUS)
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    setup.commit()
    setup.close()
    local = threading.local()

    def connection() -> sqlite3.Connection:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(path, timeout=5, isolation_level=None)
            conn.execute(f"PRAGMA synchronous={synchronous}")
            local.conn = conn
        return conn

    @post("/append", sync_to_thread=True, status_code=200)
    def append(data: dict[str, Any]) -> dict[str, int]:
        conn = connection()
        conn.execute("BEGIN IMMEDIATE")
        cursor = conn.execute("INSERT INTO rows (body) VALUES (?)", (json.dumps(data),))
        conn.execute("COMMIT")
        return {"id": int(cursor.lastrowid or 0)}

    @get("/health", sync_to_thread=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return Litestar([append, health])


def serve_baseline(port: int, server_name: str) -> None:
    """Run the baseline under the same server and settings as ``basra serve --server NAME``."""
    import uvicorn

    from app.api.server import GRACEFUL_SHUTDOWN_SECONDS

    if server_name == "granian":
        from granian import Granian
        from granian.constants import Interfaces

        Granian(
            "bench.bench_api:baseline_app",
            factory=True,
            address=HOST,
            port=port,
            interface=Interfaces.ASGI,
            workers=1,
            websockets=False,
            log_access=False,
            workers_kill_timeout=GRACEFUL_SHUTDOWN_SECONDS,
        ).serve()
        return
    config = uvicorn.Config(
        "bench.bench_api:baseline_app",
        factory=True,
        host=HOST,
        port=port,
        access_log=False,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    uvicorn.Server(config).run()


# -- a small keep-alive HTTP/1.1 client -------------------------------------------------------


class Connection:
    """One keep-alive connection; requests one at a time; bodies read by Content-Length."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.reconnects = 0

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """Send a request; (status, body). A keep-alive connection the server closed while idle
        is opened again and the request sent once more (every request here is safe to repeat:
        plays carry an Idempotency-Key)."""
        reused = self.writer is not None
        try:
            return await self._send(method, path, body, headers)
        except (asyncio.IncompleteReadError, ConnectionError):
            if not reused:
                raise
            await self.close()
            self.reconnects += 1
            return await self._send(method, path, body, headers)

    async def _send(
        self, method: str, path: str, body: bytes, headers: dict[str, str] | None
    ) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            sock = self.writer.get_extra_info("socket")
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        assert self.reader is not None
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}"]
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body or method == "POST":
            lines.append("Content-Type: application/json")
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            key, _, raw = line.partition(b":")
            if key.strip().lower() == b"content-length":
                length = int(raw)
        payload = await self.reader.readexactly(length) if length else b""
        return status, payload

    async def close(self) -> None:
        """Close the connection."""
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
            self.writer = None


# -- one practice match as a client plays it --------------------------------------------------


class View(msgspec.Struct):
    """The parts of a seat view the client uses."""

    status: str
    seq: int
    hand: list[str]


class PlayResult(msgspec.Struct):
    """The parts of a play response the client uses."""

    seq: int
    view: View


class Practice:
    """A practice match through the API: seat 0 a person, seat 1 an easy bot."""

    def __init__(self, conn: Connection, rng: random.Random) -> None:
        self.conn = conn
        self.rng = rng
        self.path = ""
        self.headers: dict[str, str] = {}
        self.view: View | None = None
        self.plays = 0

    async def start(self) -> None:
        """Create the match and take seat 0."""
        body = b'{"ruleset":"classic","seats":2,"bots":[1]}'
        status, created = await self.conn.request("POST", "/matches", body)
        assert status == 201, created
        match_id = msgspec.json.decode(created)["match_id"]
        self.path = f"/matches/{match_id}"
        status, seat = await self.conn.request("POST", f"{self.path}/seats/0", b'{"name":"bench"}')
        assert status == 201, seat
        self.headers = {"Authorization": f"Bearer {msgspec.json.decode(seat)['token']}"}
        status, view = await self.conn.request("GET", f"{self.path}/view", headers=self.headers)
        assert status == 200, view
        self.view = msgspec.json.decode(view, type=View)

    @property
    def ended(self) -> bool:
        """True once the match has ended."""
        return self.view is not None and self.view.status != "playing"

    async def play(self) -> None:
        """Play a random card of the hand, with ``seq`` and an ``Idempotency-Key``."""
        assert self.view is not None
        card = self.rng.choice(self.view.hand)
        body = msgspec.json.encode({"card": card, "seq": self.view.seq})
        headers = self.headers | {"Idempotency-Key": f"p{self.view.seq}"}
        status, result = await self.conn.request("POST", f"{self.path}/plays", body, headers)
        assert status == 200, result
        self.view = msgspec.json.decode(result, type=PlayResult).view
        self.plays += 1


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
            "p50": round(rank_quantile(data, 0.50), 2),
            "p90": round(rank_quantile(data, 0.90), 2),
            "p99": round(rank_quantile(data, 0.99), 2),
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


# -- servers as processes ---------------------------------------------------------------------


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server(
    kind: str, workdir: Path, server_name: str = "uvicorn", store_calls: str | None = None
) -> Iterator[int]:
    """Start the ``api`` or ``baseline`` server on a fresh file; its port; stopped after."""
    port = free_port()
    env = dict(os.environ)
    if store_calls is not None:
        env["BASRA_API_STORE_CALLS"] = store_calls
    for name in list(env):
        if name.startswith("POSTGRES_") or name == "BASRA_DATABASE_URL":
            del env[name]
    db = workdir / f"{kind}-{port}.db"
    if kind == "api":
        command = [sys.executable, "-m", "cli.main", "serve", "--host", HOST, "--port", str(port)]
        command += ["--db", str(db), "--server", server_name]
        command += [arg for name in NO_LIMITS for arg in ("--rate-limit", f"{name}=off")]
    else:
        env["BASRA_BENCH_BASELINE_DB"] = str(db)
        command = [sys.executable, "-m", "bench.bench_api", "baseline-server", "--port", str(port)]
        command += ["--server", server_name]
    log = (workdir / f"{kind}-{port}.log").open("wb")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        try:
            asyncio.run(_wait_healthy(port, process))
        except RuntimeError:
            log.flush()
            tail = (workdir / f"{kind}-{port}.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{kind} server on port {port} did not start:\n{tail}") from None
        yield port
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


async def _wait_healthy(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        conn = Connection(port)
        try:
            status, _ = await conn.request("GET", "/health")
            if status == 200:
                return
        except OSError:
            await asyncio.sleep(0.1)
        finally:
            await conn.close()
    raise RuntimeError("the server did not start")


# -- the run ----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    """Run both workloads against both servers, alternating, and print JSON and a summary."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="command")
    base = sub.add_parser("baseline-server", help="(internal) run the baseline server")
    base.add_argument("--port", type=int, required=True)
    base.add_argument("--server", default="uvicorn")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per workload")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per throughput run")
    parser.add_argument("--concurrency", type=int, default=50, help="matches playing at once")
    parser.add_argument("--paced-matches", type=int, default=500)
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between plays")
    parser.add_argument("--paced-duration", type=float, default=40.0)
    parser.add_argument("--paced-rounds", type=int, default=2)
    parser.add_argument("--only", choices=["throughput", "paced"], default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument(
        "--servers", default="uvicorn", help="comma-separated: uvicorn and/or granian"
    )
    parser.add_argument(
        "--compare-threads",
        action="store_true",
        help="also run the API with every store call on worker threads (BASRA_API_STORE_CALLS)",
    )
    args = parser.parse_args(argv)
    if args.command == "baseline-server":
        serve_baseline(args.port, args.server)
        return

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
    text = json.dumps(results, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")


def _throughput(args: argparse.Namespace, workdir: Path, name: str) -> dict[str, Any]:
    api: list[float] = []
    threads: list[float] = []
    baseline: list[float] = []
    for r in range(args.rounds):
        with server("baseline", workdir, name) as port:
            baseline.append(asyncio.run(throughput_baseline(port, args.concurrency, args.duration)))
        with server("api", workdir, name) as port:
            api.append(asyncio.run(throughput_api(port, args.concurrency, args.duration, r)))
        if args.compare_threads:
            with server("api", workdir, name, store_calls="threads") as port:
                threads.append(
                    asyncio.run(throughput_api(port, args.concurrency, args.duration, r))
                )
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


if __name__ == "__main__":
    main()
