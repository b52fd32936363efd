"""Benchmark of the turn clock (R25): how late deadlines fire on a real ``basra serve``.

500 concurrent 2-seat matches between people, every seat taken, nobody playing: each match
ends by timeout when its first deadline passes. The lateness of an expiry is the ``at`` of its
``match_ended`` minus the deadline it fired, read from the store after the run; reported as
p50/p99 in real milliseconds.

Second workload, "plays at the deadline": the same tables, and for each one a client that
plays the seat on turn's first card at a random moment of the last 100 real ms before its
deadline (give or take the scheduling of this one client process). Counted: plays that landed
(200) and plays refused (409 ``turn_expired``, or ``conflict`` when the clock's append came
first), and the lateness of the expiries that fired (after a play that landed, the other
seat's turn runs out).

The rules' shortest turn is 5 s; the server runs with ``BASRA_TEST_CLOCK`` (test mode only) at
2.5x the wall clock, so a 5-second turn passes in 2 real seconds; recorded lateness is divided
by the speed to give real time. Only 127.0.0.1 is contacted. Run from the repository root:

    .venv/bin/python -m bench.bench_clock [--matches 500]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.service import MatchService
from domain.events import MatchEnded
from domain.recorded import RecordedEvent
from domain.times import utc_micros

SPEED = 2.5
"""The served clock's speed: a 5-second turn (the rules' shortest) in 2 real seconds."""


def free_port() -> int:
    """A port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(db: Path, anchor_ms: int) -> tuple[subprocess.Popen[bytes], str]:
    """``basra serve`` on the SQLite file ``db`` with 5-second turns on the fast clock."""
    port = free_port()
    env = os.environ | {
        "BASRA_TEST_MODE": "1",
        "BASRA_TEST_CLOCK": f"{anchor_ms}*{SPEED}",
        "BASRA_RATE_LIMITS": "players=off matches=off",
    }
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--db", str(db), "--turn-seconds", "5"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    limit = time.monotonic() + 30
    while time.monotonic() < limit:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("basra serve did not start")


async def open_table(http: httpx.AsyncClient, url: str) -> tuple[str, list[str]]:
    """A 2-seat table with both seats taken: (match id, tokens)."""
    created = await http.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2})
    match_id = created.json()["match_id"]
    tokens = []
    for seat in (0, 1):
        taken = await http.post(f"{url}/matches/{match_id}/seats/{seat}", json={"name": "P"})
        tokens.append(taken.json()["token"])
    return match_id, tokens


async def play_at_deadline(
    http: httpx.AsyncClient, url: str, match_id: str, tokens: list[str], anchor_ms: int
) -> int:
    """The seat on turn plays at its deadline's real time; the HTTP status."""
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    view = (await http.get(f"{url}/matches/{match_id}/view", headers=auth)).json()
    if view["turn"] is None:
        return 0  # ended before this client could look (counted apart)
    token = tokens[view["turn"]]
    auth = {"Authorization": f"Bearer {token}"}
    hand = (await http.get(f"{url}/matches/{match_id}/view", headers=auth)).json()["hand"]
    served_ms = utc_micros(view["deadline"]) / 1000
    # aimed anywhere from 100 ms before the deadline to the deadline itself (real time)
    real_ms = anchor_ms + (served_ms - anchor_ms) / SPEED - random.uniform(0, 100)
    await asyncio.sleep(max(0.0, real_ms / 1000 - time.time()))
    response = await http.post(
        f"{url}/matches/{match_id}/plays",
        json={"card": hand[0], "seq": view["seq"]},
        headers=auth,
    )
    return response.status_code


def lateness_ms(stream: list[RecordedEvent]) -> float | None:
    """Real ms between the deadline a timeout fired and its record time, or None."""
    ended = stream[-1]
    if not isinstance(ended.event, MatchEnded) or ended.event.reason != "timeout":
        return None
    for r in reversed(stream[:-1]):
        deadline = getattr(r.event, "deadline", None)
        if isinstance(deadline, str):
            return (utc_micros(ended.at) - utc_micros(deadline)) / 1000 / SPEED
    return None


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0-1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


async def run(matches: int, plays: bool) -> None:
    """One workload on a fresh server; prints its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        anchor = time.time_ns() // 1_000_000
        process, url = start_server(db, anchor)
        try:
            limits = httpx.Limits(max_connections=50)
            async with httpx.AsyncClient(timeout=30, limits=limits) as http:
                gate = asyncio.Semaphore(50)

                async def one() -> tuple[str, int]:
                    async with gate:
                        match_id, tokens = await open_table(http, url)
                    if not plays:
                        return match_id, 0
                    return match_id, await play_at_deadline(http, url, match_id, tokens, anchor)

                tables = await asyncio.gather(*(one() for _ in range(matches)))
                answers = [answer for _, answer in tables]
                service = MatchService.open(db)
                limit = time.monotonic() + 120
                pending = {m for m, _ in tables}
                late: list[float] = []
                while pending and time.monotonic() < limit:
                    for match_id in list(pending):
                        # after a play that landed, the other seat's turn runs out next
                        stream = service.events(match_id)
                        if isinstance(stream[-1].event, MatchEnded):
                            pending.discard(match_id)
                            value = lateness_ms(stream)
                            if value is not None:
                                late.append(value)
                    await asyncio.sleep(0.5)
                service.close()
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(30)
    name = "plays at the deadline" if plays else "nobody plays"
    print(f"{name}: {matches} matches, {len(late)} timeouts, {len(pending)} not ended in time")
    if plays:
        landed = answers.count(200)
        refused = sum(1 for a in answers if a == 409)
        other = len(answers) - landed - refused
        print(f"  plays landed {landed}, refused 409 {refused}, not tried or other {other}")
    if late:
        print(
            f"  lateness p50 {statistics.median(late):.0f} ms, p99 {percentile(late, 0.99):.0f} ms,"
            f" max {max(late):.0f} ms"
        )


def main() -> None:
    """Both workloads, one after the other."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500)
    args = parser.parse_args()
    asyncio.run(run(args.matches, plays=False))
    asyncio.run(run(args.matches, plays=True))


if __name__ == "__main__":
    main()
