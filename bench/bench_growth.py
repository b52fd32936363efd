"""Cost growth: a play's latency with 1,000 and with 100,000 stored matches, SQLite and PostgreSQL.

For each store and each size: a fresh store is filled with that many matches (each a short
stream of the first events of a real recorded match: created and seated; written straight
through the store in transactions of 1,000 matches), then ``--plays`` plays are made through
``MatchService.play_card`` in fresh practice matches (a person against an easy bot; the answer
includes the bot's reply), one at a time, and each play's latency is taken. The sizes run one
after the other on the same store (filled up from the smaller size to the larger), and the
whole is repeated ``--repeats`` times; medians of each run's p50 and p99 are printed, with the
ratio of the larger size to the smaller.

    .venv/bin/python -m bench.bench_growth [--sizes 1000,100000] [--plays 400] [--repeats 2] \
        [--postgres URL] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from app.service import MatchService, utc_now
from app.store.match_store import MatchStore
from app.store.postgres import drop_schema
from bench.bench_scale import new_schema, settings_for
from domain.commands import CreateMatch
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

FILL_BATCH = 1000
"""Matches per transaction while filling."""


def say(message: str) -> None:
    """Progress on stderr."""
    print(message, file=sys.stderr, flush=True)


def filler() -> list[RecordedEvent]:
    """The first three events of a real recorded match (created, and the seats)."""
    events, _ = play_match(
        CreateMatch(
            match_id="filler",
            ruleset="classic",
            seats=2,
            secret=secret_from_text_seed("bench/growth"),
            bots=(0, 1),
        )
    )
    at = utc_now()
    return [RecordedEvent(seq=i, at=at, event=e) for i, e in enumerate(events[:3], 1)]


def fill(store: MatchStore, start: int, stop: int, template: list[RecordedEvent]) -> None:
    """Store matches ``start`` … ``stop - 1``, FILL_BATCH per transaction."""
    run = uuid.uuid4().hex[:6]
    for first in range(start, stop, FILL_BATCH):
        rows = [
            store.mapper.to_stored_event(f"fill-{run}-{k}", recorded)
            for k in range(first, min(stop, first + FILL_BATCH))
            for recorded in template
        ]
        store.recorder.insert_events(rows)


def play_latencies(service: MatchService, plays: int, seed: int) -> list[float]:
    """Milliseconds of ``plays`` plays through the service, in fresh practice matches."""
    out: list[float] = []
    k = 0
    while len(out) < plays:
        match_id, _ = service.create_match(
            ruleset="classic",
            seats=2,
            bots=(1,),
            secret=secret_from_text_seed(f"growth/{seed}/{k}"),
        )
        k += 1
        service.take_seat(match_id, 0, "bench", token_id="t0")
        state = service.load(match_id)
        while state.status == "playing" and len(out) < plays:
            card = state.hands[0][0]
            began = time.perf_counter()
            service.play_card(match_id, 0, card, caused_by="seat:0/token:t0")
            out.append((time.perf_counter() - began) * 1000)
            state = service.load(match_id)
    return out


def pct(values: list[float], p: float) -> float:
    """The ``p`` quantile."""
    data = sorted(values)
    return data[min(len(data) - 1, int(p * len(data)))]


def main(argv: list[str] | None = None) -> None:
    """Fill, play, print."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--plays", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--postgres", default=os.environ.get("BASRA_TEST_POSTGRES"))
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    sizes = sorted(int(x) for x in args.sizes.split(","))
    template = filler()
    kinds = ["sqlite"] + (["postgres"] if args.postgres else [])
    found: dict[tuple[str, int], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-growth-", dir=args.dir) as tmp:
        for r in range(args.repeats):
            for kind in kinds:
                settings = None
                if kind == "postgres":
                    settings = settings_for(args.postgres, new_schema())
                    store = MatchStore.postgres(settings)
                else:
                    store = MatchStore.sqlite(Path(tmp) / f"growth-{r}.db")
                service = MatchService(store)
                try:
                    stored = 0
                    for size in sizes:
                        say(f"{kind}: filling to {size:,} matches (repeat {r + 1})")
                        fill(store, stored, size, template)
                        stored = size
                        say(f"{kind}: {args.plays} plays at {size:,} matches")
                        latencies = play_latencies(
                            service, args.plays, seed=r * 10 + sizes.index(size)
                        )
                        found.setdefault((kind, size), []).append(
                            (pct(latencies, 0.5), pct(latencies, 0.99))
                        )
                finally:
                    service.close()
                    if settings is not None:
                        drop_schema(settings)
    print(f"## A play's latency by stored matches ({args.plays} plays, {args.repeats} repeats)")
    for kind in kinds:
        base = None
        for size in sizes:
            runs = found[(kind, size)]
            p50 = statistics.median(a for a, _ in runs)
            p99 = statistics.median(b for _, b in runs)
            base = base or p50
            listed = ", ".join(f"{a:.2f}/{b:.2f}" for a, b in runs)
            print(
                f"  {kind:<8} {size:>9,} matches: p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  "
                f"p50 x{p50 / base:.2f}  [p50/p99: {listed}]"
            )


if __name__ == "__main__":
    main()
