"""Benchmark: the lobby's "your games" list (``GET /players/me/matches``) and a profile
(``GET /players/{id}``) on a real ``basra serve`` over a store of 100,000 players.

Run: python -m bench games [--players 100000] [--requests 2000] [--repeats 3] [--json]

The store is written in bulk as ``bench results`` writes it (``--players`` finished 2-seat
matches between registered players, each player in at least one), and ``--sample`` of the
players are given tokens of their own (a ``player_token_rotated`` each) so the lobby's list can
be asked for with them. The server's read models are brought up to the log by one request
first (unmeasured); then one keep-alive client asks ``--requests`` times each route, for random
sampled players, one request at a time. Latency p50/p99 per route, median over the repeats.
Goal: p99 at most 50 ms for both.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from app.api.edges.tokens import hash_token
from app.store.match_store import MatchStore
from app.store.player_store import PlayerStore
from bench.before import Legacy
from bench.client import Connection
from bench.harness import say
from bench.options import Shared
from bench.results import generate
from bench.servers import served
from bench.stats import quantile
from domain.players import PlayerTokenRotated

SHARED = Shared(repeats=3)
"""Repeats of the load (medians reported)."""

LEGACY: Legacy | None = None
"""No earlier script."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--players", type=int, default=100_000, help="players (and matches)")
    parser.add_argument("--requests", type=int, default=2000, help="requests per route a repeat")
    parser.add_argument("--sample", type=int, default=300, help="players given tokens")


def _tokens(db: Path, ids: list[str], sample: int) -> dict[str, str]:
    """Give ``sample`` random players a known token; token by player id."""
    rng = random.Random(7)
    store = MatchStore.sqlite(db)
    players = PlayerStore(store)
    tokens = {}
    for pid in rng.sample(ids, min(sample, len(ids))):
        token = f"player_{pid}.bench{rng.getrandbits(64):x}"
        players.append(pid, 1, [PlayerTokenRotated(hash_token(token))])
        tokens[pid] = token
    store.close()
    return tokens


async def _load(port: int, tokens: dict[str, str], requests: int) -> dict[str, list[float]]:
    rng = random.Random(requests)
    ids = list(tokens)
    seen: dict[str, list[float]] = {"games": [], "profile": []}
    conn = Connection(port)
    for _ in range(requests):
        pid = rng.choice(ids)
        auth = {"Authorization": f"Bearer {tokens[pid]}"}
        started = time.perf_counter()
        status, _ = await conn.request("GET", "/players/me/matches?limit=50", headers=auth)
        seen["games"].append(time.perf_counter() - started)
        assert status == 200, status
        started = time.perf_counter()
        status, _ = await conn.request("GET", f"/players/{rng.choice(ids)}")
        seen["profile"].append(time.perf_counter() - started)
        assert status == 200, status
    await conn.close()
    return seen


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure and print the two routes' latency at ``--players`` players."""
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        db = workdir / "games.db"
        say(f"writing {args.players} players and matches")
        ids = generate(db, args.players, 4)
        tokens = _tokens(db, ids, args.sample)
        with served(workdir, db=db, serve_args=["--no-access-log"], start_seconds=900) as (
            port,
            _,
        ):
            say("bringing the read models up to the log")
            asyncio.run(_load(port, tokens, 1))
            runs: dict[str, list[dict[str, float]]] = {"games": [], "profile": []}
            for repeat in range(args.repeats):
                say(f"repeat {repeat + 1}: {args.requests} requests a route")
                seen = asyncio.run(_load(port, tokens, args.requests))
                for route, values in seen.items():
                    runs[route].append(
                        {
                            "p50_ms": quantile(values, 0.5) * 1000,
                            "p99_ms": quantile(values, 0.99) * 1000,
                            "max_ms": max(values) * 1000,
                        }
                    )
    print(f"{args.players} players; one client, one request at a time")
    for route, rows in runs.items():
        figures[route] = {
            key: statistics.median(row[key] for row in rows)
            for key in ("p50_ms", "p99_ms", "max_ms")
        } | {"requests": args.requests}
        row = figures[route]
        print(
            f"  {route:<8} p50 {row['p50_ms']:.2f} ms  p99 {row['p99_ms']:.2f} ms"
            f"  max {row['max_ms']:.1f} ms"
        )
    figures["players"] = args.players
    return figures
