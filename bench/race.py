r"""Racing plays across two `basra serve` processes on PostgreSQL: does every match verify?

Two processes serve one PostgreSQL schema (a fresh one, dropped after). Each match is a
practice table (seat 0 a person, seat 1 the easy bot) played to its end with every play of the
person sent twice at the same instant, a different card to each process, without ``seq``: the
play that loses the race is refused (the card is gone, or it is no longer the seat's turn) or,
once the bot has replied and the turn is back, decided again on the stream the winner moved on.
Every finished match is then verified (``GET /matches/{id}/verification``) and the figures are
printed: matches, raced pairs, pairs where both plays landed (the loser decided again), matches
verifying, matches with a record time stepping back inside an intact chain, and failures.

Run from the repository root (``--code-before TREE``, ``--before`` of the old script, serves
another checkout instead, e.g. an earlier commit made with ``git worktree add``, for the figure
before a change; ``--json`` prints every match's figures too):

    python -m bench race --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--matches 200] [--parallel 8] [--target 1] [--code-before TREE] [--json]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypedDict

import httpx

from bench.before import Legacy, figures
from bench.client import HOST
from bench.harness import say
from bench.options import Shared
from bench.servers import fresh_schema, served

SHARED = Shared(postgres="needed")
"""The PostgreSQL server."""

PATTERNS = {
    "matches": r"^matches raced: (\d+)",
    "seconds": r"^matches raced: \d+ in (\d+) s",
    "pairs": r"^raced pairs: (\d+)",
    "both_landed": r"^pairs where both plays landed .*: (\d+)",
    "verifying": r"^matches verifying: (\d+)",
    "inverted": r"^matches with a record time stepping back .*: (\d+)",
    "here_ok": r"^verified by this checkout: (\d+)",
    "here_inverted": r"^verified by this checkout: .* ok, (\d+) of them",
}
"""The printed figures."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_race.py)."""
    return figures(text, PATTERNS)


LEGACY = Legacy(
    "bench.bench_race",
    read_legacy,
    names={"postgres": "--postgres"},
    renames={"--code-before": "--before"},
)
"""The old script, bench/bench_race.py, printed the same report."""


class MatchRace(TypedDict):
    """One match raced to its end and verified."""

    match_id: str
    pairs: int
    both_landed: int
    ok: bool
    inverted: int
    divergence: str | None


def _post_together(
    clients: list[httpx.Client], calls: list[tuple[str, dict[str, Any], dict[str, str]]]
) -> list[int]:
    """POST each (url, body, headers) on its own client from its own thread, released together;
    the statuses."""
    barrier = threading.Barrier(len(calls))
    statuses = [0] * len(calls)

    def send(i: int) -> None:
        url, body, headers = calls[i]
        barrier.wait()
        statuses[i] = clients[i].post(url, json=body, headers=headers).status_code

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return statuses


def race_one(urls: tuple[str, str], target: int) -> MatchRace:
    """Create a practice match on the first process and race every play of seat 0 to its end."""
    first, second = urls
    with httpx.Client(timeout=30) as a, httpx.Client(timeout=30) as b:
        created = a.post(
            f"{first}/matches",
            json={"ruleset": "classic", "seats": 2, "bots": [1], "target": target},
        )
        created.raise_for_status()
        match_id = created.json()["match_id"]
        seat = a.post(f"{first}/matches/{match_id}/seats/0", json={"name": "Racer"})
        seat.raise_for_status()
        auth = {"Authorization": f"Bearer {seat.json()['token']}"}
        pairs = both = 0
        view = a.get(f"{first}/matches/{match_id}/view", headers=auth).json()
        while view["status"] == "playing":
            hand = view["hand"]
            statuses = _post_together(
                [a, b],
                [
                    (f"{first}/matches/{match_id}/plays", {"card": hand[0]}, auth),
                    (f"{second}/matches/{match_id}/plays", {"card": hand[-1]}, auth),
                ],
            )
            if any(s >= 500 for s in statuses):
                raise RuntimeError(f"{match_id}: a play answered {statuses}")
            pairs += 1
            both += len(hand) > 1 and statuses == [200, 200]
            view = a.get(f"{first}/matches/{match_id}/view", headers=auth).json()
        result = b.get(f"{second}/matches/{match_id}/verification").json()
    divergence = result.get("divergence")
    return MatchRace(
        match_id=match_id,
        pairs=pairs,
        both_landed=both,
        ok=bool(result["ok"]),
        inverted=len(result.get("inverted_times", [])),
        divergence=None
        if divergence is None
        else f"seq {divergence['seq']} {divergence['kind']}: {divergence['explanation']}",
    )


def verify_here(database_url: str, match_ids: list[str]) -> tuple[int, int]:
    """(matches ok, of those with inverted times) as this checkout's verify reads them."""
    from app.service import MatchService
    from replays.verification import verify_stream

    service = MatchService.open(database_url=database_url)
    try:
        results = [verify_stream(m, service.events(m)) for m in match_ids]
    finally:
        service.close()
    return sum(r.ok for r in results), sum(1 for r in results if r.ok and r.inverted_times)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=200, help="matches raced (200)")
    parser.add_argument("--parallel", type=int, default=8, help="matches raced at once (8)")
    parser.add_argument("--target", type=int, default=1, help="each match's target (1: a round)")
    parser.add_argument("--code-before", type=Path, help="serve this checkout instead (PYTHONPATH)")
    parser.add_argument(
        "--verify-here",
        action="store_true",
        help="also verify every stored match with this checkout's verify (with --code-before: how"
        " the matches the code before stored read today)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Serve two processes, race the matches, print the figures; them and every match's."""
    started = time.perf_counter()
    races: list[MatchRace] = []
    with fresh_schema(args.postgres) as (url, settings):
        with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
            ports = [
                stack.enter_context(served(Path(folder), 1, url, {}, args.code_before))[0]
                for _ in range(2)
            ]
            urls = (f"http://{HOST}:{ports[0]}", f"http://{HOST}:{ports[1]}")
            say(f"two processes on {urls[0]} and {urls[1]}, schema {settings.schema}")
            with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
                futures = [pool.submit(race_one, urls, args.target) for _ in range(args.matches)]
                for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                    races.append(future.result())
                    if done % 20 == 0 or done == args.matches:
                        say(f"{done}/{args.matches} matches raced")
        if args.verify_here:
            here = verify_here(url, [r["match_id"] for r in races])
    elapsed = time.perf_counter() - started
    verifying = sum(r["ok"] for r in races)
    print(f"code: {args.code_before or 'this checkout'}")
    print(f"matches raced: {len(races)} in {elapsed:.0f} s ({args.parallel} at once)")
    print(f"raced pairs: {sum(r['pairs'] for r in races)}")
    print(
        f"pairs where both plays landed (one decided again): {sum(r['both_landed'] for r in races)}"
    )
    print(f"matches verifying: {verifying} of {len(races)}")
    print(
        f"matches with a record time stepping back inside an intact chain: "
        f"{sum(1 for r in races if r['inverted'])}"
    )
    failing = [r for r in races if not r["ok"]]
    for race in failing[:5]:
        print(f"  {race['match_id']}: {race['divergence']}")
    if args.verify_here:
        print(
            f"verified by this checkout: {here[0]} of {len(races)} ok,"
            f" {here[1]} of them with a record time stepping back inside an intact chain"
        )
    result: dict[str, Any] = {
        "matches": len(races),
        "seconds": elapsed,
        "pairs": sum(r["pairs"] for r in races),
        "both_landed": sum(r["both_landed"] for r in races),
        "verifying": verifying,
        "inverted": sum(1 for r in races if r["inverted"]),
    }
    if args.verify_here:
        result |= {"here_ok": here[0], "here_inverted": here[1]}
    return result | {"races": races}
