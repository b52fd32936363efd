"""Count what a served play costs the server's code, without HTTP: ``app.api.operations.play``.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python bench/served_plays.py --matches 11     # and --matches 1

Each match is a practice table (seat 0 a person, seat 1 the easy bot) on the in-memory store,
played to its end by the person through the API's play operation with a ``seq`` and an
Idempotency-Key, as a client of the web table plays: the pipeline, the bots' replies, the chain,
the cache, the facts and the response with its view. Prints the plays made. Counting
instructions of two builds (``--matches 11`` less ``--matches 1``) compares the code path free
of the machine's noise; it leaves out the store's I/O, the event loop and HTTP.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.api import operations as ops
from app.api.facts import FactsCache
from app.service import MatchService
from app.store.match_store import MatchStore
from domain.fairness import secret_from_text_seed


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


def main() -> None:
    """Play the matches and print how many plays they took."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=11)
    print(play_matches(parser.parse_args().matches))


if __name__ == "__main__":
    main()
