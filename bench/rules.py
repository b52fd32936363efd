"""Benchmark: random self-play through decide and evolve on one core (plays per second).

Run: python -m bench rules [--matches N] [--repeats R] [--warmup W] [--json]

Each repeat plays N fresh seeded matches per rule set (random bots) through ``decide`` and
``evolve`` only, after W unmeasured matches per rule set if asked (the steady state of a
long-running process whose capture caches have seen many floors); the figure is plays / wall
time, median over the repeats (and plays / this process's CPU time, which other jobs sharing
the core do not count). Interleaved with it in the same run, the plain mutable baseline
(``bench/baseline_mutable.py``: the same game with lists changed in place and no events) plays
N Classic matches, so the engine can be read as a ratio to it on this noisy machine.

``--workload engine|baseline --matches N`` only plays N Classic 2-seat matches from fixed seeds
(the same deals and bot draws for both) and prints the plays: run it under
``valgrind --tool=callgrind`` to count instructions per play, free of the machine's noise.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bench.baseline_mutable import play_mutable
from bench.before import Legacy, json_figures
from bench.options import Shared
from domain.bots import RandomBot
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.state import INITIAL_STATE

RULESETS = ("classic", "egyptian", "lebanese", "yemeni", "jordanian")

SHARED = Shared(repeats=5)
"""Repeats of every table (medians reported)."""

LEGACY = Legacy(
    "bench.bench_rules", json_figures, names={"repeats": "--repeats"}, extra=("--json",)
)
"""The old script, bench/bench_rules.py, printed the same JSON with ``--json``."""


def self_play(ruleset: str, seats: int, seed: str) -> int:
    """Play one random-bot match to the end through decide/evolve; return its number of plays."""
    command = CreateMatch(
        match_id="bench",
        ruleset=ruleset,
        seats=seats,
        secret=secret_from_text_seed(seed),
        bots=tuple(range(seats)),
        bot_kind="random",
    )
    state = INITIAL_STATE
    for event in decide(state, command):
        state = evolve(state, event)
    assert state.setup is not None and state.setup.key is not None
    bots = [RandomBot(state.setup.key, s) for s in range(seats)]
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        card = bots[seat].choose_from(state.hands[seat])
        for event in decide(state, PlayCard(seat, card)):
            state = evolve(state, event)
    return state.plays


def run_once(matches: int, seats: int, repeat: int) -> tuple[int, float, float]:
    """Play ``matches`` fresh matches of every rule set; return (plays, seconds, CPU seconds).

    Every repeat uses new seeds, so no cache sees a match it has already played. The CPU
    seconds are this process's own: on a machine where other jobs share the core, they show
    what one core does, where the wall time also counts the time the core was away.
    """
    plays = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for ruleset in RULESETS:
        for k in range(matches):
            plays += self_play(ruleset, seats, f"bench/{seats}/{repeat}/{k}")
    return plays, time.perf_counter() - start, time.process_time() - cpu_start


def run_baseline(matches: int, seats: int, repeat: int) -> tuple[int, float]:
    """Play ``matches`` Classic matches with the plain mutable loop; return (plays, seconds)."""
    plays = 0
    start = time.perf_counter()
    for _ in range(len(RULESETS)):
        for k in range(matches):
            plays += play_mutable(f"base/{seats}/{repeat}/{k}", seats)
    return plays, time.perf_counter() - start


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=20, help="matches per rule set per repeat")
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        help="matches per rule set played first, unmeasured, as a long-running process would have",
    )
    parser.add_argument(
        "--workload",
        choices=("engine", "baseline"),
        help="only play --matches Classic 2-seat matches from fixed seeds and print the plays "
        "(for counting instructions under valgrind, free of the machine's noise)",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure and print plays per second (median of repeats) at 2 and 4 seats."""
    if args.workload is not None:
        plays = 0
        for k in range(args.matches):
            if args.workload == "engine":
                plays += self_play("classic", 2, f"fixed/{k}")
            else:
                plays += play_mutable(f"fixed/{k}", 2)
        print(plays)
        return {"plays": plays}
    results: dict[str, Any] = {}
    for seats in (2, 4):
        run_once(max(2, args.warmup), seats, -1)  # imports, and the solver's caches if asked
        run_baseline(2, seats, -1)
        rates = []
        cpu_rates = []
        base_rates = []
        ratios = []
        plays = 0
        for repeat in range(args.repeats):
            plays, seconds, cpu_seconds = run_once(args.matches, seats, repeat)
            base_plays, base_seconds = run_baseline(args.matches, seats, repeat)
            rates.append(plays / seconds)
            cpu_rates.append(plays / cpu_seconds)
            base_rates.append(base_plays / base_seconds)
            ratios.append(rates[-1] / base_rates[-1])
        results[f"{seats} seats"] = {
            "plays_last_repeat": plays,
            "median_plays_per_s": round(statistics.median(rates)),
            "min_plays_per_s": round(min(rates)),
            "max_plays_per_s": round(max(rates)),
            "median_plays_per_cpu_s": round(statistics.median(cpu_rates)),
            "baseline_median_plays_per_s": round(statistics.median(base_rates)),
            "median_ratio_to_baseline": round(statistics.median(ratios), 3),
        }
    print(f"matches {args.matches} a rule set, {args.repeats} repeats, warm-up {args.warmup}")
    print(
        "| table | plays (last repeat) | median plays/s | min | max "
        "| median plays per CPU second | mutable baseline, median plays/s "
        "| median ratio to baseline |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        print(
            f"| {name} | {r['plays_last_repeat']} | {r['median_plays_per_s']:,} | "
            f"{r['min_plays_per_s']:,} | {r['max_plays_per_s']:,} | "
            f"{r['median_plays_per_cpu_s']:,} | "
            f"{r['baseline_median_plays_per_s']:,} | {r['median_ratio_to_baseline']} |"
        )
    return results
