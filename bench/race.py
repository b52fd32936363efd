r"""Racing plays across two `basra serve` processes on PostgreSQL: does every match verify?

Two processes serve one PostgreSQL schema (a fresh one, dropped after). Each match is a
practice table (seat 0 a person, seat 1 the easy bot) played to its end with every play of the
person sent twice at the same instant, a different card to each process, without ``seq``: the
play that loses the race is refused (the card is gone, or it is no longer the seat's turn) or,
once the bot has replied and the turn is back, decided again on the stream the winner moved on.
Every finished match is then verified (``GET /matches/{id}/verification``) and the figures are
printed: matches, raced pairs, pairs where both plays landed (the loser decided again), matches
verifying, matches with a record time stepping back inside an intact chain, and failures.

Run from the repository root (``--before TREE`` serves another checkout, e.g. an earlier
commit made with ``git worktree add``, for the figure before a change):

    .venv/bin/python -m bench.bench_race --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--matches 200] [--parallel 8] [--target 1] [--before TREE] [--json FILE]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypedDict

import httpx

from app.store.postgres import drop_schema
from bench.bench_api import HOST
from bench.bench_scale import new_schema, say, served, settings_for


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


def main(argv: list[str] | None = None) -> None:
    """Serve two processes, race the matches, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL URL (a schema is made)")
    parser.add_argument("--matches", type=int, default=200, help="matches raced (200)")
    parser.add_argument("--parallel", type=int, default=8, help="matches raced at once (8)")
    parser.add_argument("--target", type=int, default=1, help="each match's target (1: a round)")
    parser.add_argument("--before", type=Path, help="serve this checkout instead (PYTHONPATH)")
    parser.add_argument("--json", type=Path, help="also write every match's figures here")
    parser.add_argument(
        "--verify-here",
        action="store_true",
        help="also verify every stored match with this checkout's verify (with --before: how the"
        " matches the code before stored read today)",
    )
    args = parser.parse_args(argv)

    settings = settings_for(args.postgres, new_schema())
    url = f"{args.postgres}?schema={settings.schema}"
    started = time.perf_counter()
    races: list[MatchRace] = []
    try:
        with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
            ports = [
                stack.enter_context(served(Path(folder), 1, url, {}, args.before))[0]
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
    finally:
        drop_schema(settings)
    elapsed = time.perf_counter() - started
    verifying = sum(r["ok"] for r in races)
    print(f"code: {args.before or 'this checkout'}")
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
    if args.json is not None:
        args.json.write_text(json.dumps(races, indent=1))
    sys.exit(0)


if __name__ == "__main__":
    main()
