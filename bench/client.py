"""The load generator's client: a small keep-alive HTTP/1.1 connection, a practice match as a
person plays it through the API, and the closed loop of practice matches playing as fast as
they can (what the served benchmarks put under load)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import time
from collections.abc import Awaitable, Callable

import msgspec

from bench.stats import quantile

HOST = "127.0.0.1"
"""Loopback only."""


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
    return {
        "plays_s": round(len(latencies) / seconds, 1),
        "p50": round(quantile(latencies, 0.5), 1),
        "p99": round(quantile(latencies, 0.99), 1),
        "errors": errors,
    }
