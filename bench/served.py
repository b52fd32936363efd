"""Benchmark: what a served play costs the server's code, without HTTP (the play operation).

    python -m bench served [--matches 11]
    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python -m bench served --matches 11     # and --matches 1

Each match is a practice table (seat 0 a person, seat 1 the easy bot) on the in-memory store,
played to its end by the person through the API's play operation with a ``seq`` and an
Idempotency-Key, as a client of the web table plays: the pipeline, the bots' replies, the chain,
the cache, the facts and the response with its view. Prints the plays made and their time.
Counting instructions of two builds (``--matches 11`` less ``--matches 1``) compares the code
path free of the machine's noise; it leaves out the store's I/O, the event loop and HTTP.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from app.api.table import ops
from app.runtime.facts import FactsCache
from app.service import MatchService
from app.store.match_store import MatchStore
from bench.options import Shared
from domain.fairness import secret_from_text_seed

SHARED = Shared()
"""No shared options: one pass over the matches."""

LEGACY = None
"""No script before the harness."""


def play_matches(count: int) -> int:
    """Play ``count`` practice matches through the play operation; return the person's plays."""
    service = MatchService(MatchStore.memory(), clock=lambda: "2026-12-04T12:00:00.000000Z")
    facts = FactsCache(service)
    service.add_listener(facts.on_append)
    plays = 0
    for k in range(count):
        match_id = f"m-{k}"
        service.create_match(
            ruleset="classic",
            seats=2,
            bots=(1,),
            secret=secret_from_text_seed(f"served/{k}"),
            match_id=match_id,
        )
        service.take_seat(match_id, 0, "ann", token_id="t0")
        state = service.load(match_id)
        while state.status == "playing":
            card = state.hands[0][0]
            ops.play(
                service,
                facts,
                match_id=match_id,
                seat=0,
                card_text=str(card),
                expected_seq=state.events,
                caused_by="seat:0/token:t0",
                idempotency_key=f"k-{plays}",
            )
            plays += 1
            state = service.load(match_id)
    return plays


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=11, help="practice matches played")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play the matches; print the plays and the microseconds per play of this process."""
    started = time.process_time()
    plays = play_matches(args.matches)
    cpu_us = (time.process_time() - started) / max(plays, 1) * 1e6
    print(plays)
    print(f"{cpu_us:.0f} us of CPU per person's play (bot reply and answer included)")
    return {"plays": plays, "cpu_us_per_play": cpu_us}
