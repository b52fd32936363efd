"""The strong bot's strength and speed: seeded matches against the easy bot and against itself.

Every seed is played twice with the sides swapped, so neither side keeps the better deals.
Matches are played in memory (decide and evolve, no store) on at most ``--workers`` processes;
run it under ``nice -n 10`` on a shared machine. Prints a Markdown table and writes JSON.

    nice -n 10 .venv/bin/python -m bench.bench_strong --workers 2 --out /tmp/strong.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from domain.bots import Bot, EasyBot, bot_card
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.state import INITIAL_STATE
from domain.strong_bot import DEFAULT_BUDGET, StrongBot


@dataclass(frozen=True)
class Setting:
    """One line of the table: who plays whom, where, how many seeds (each played twice)."""

    name: str
    ruleset: str
    seats: int
    pairs: int
    strong_budget: int
    other: str  # "easy", or "strong" for the strong bot at half budget
    timed: bool = False


SETTINGS = (
    Setting("classic-2 vs easy", "classic", 2, 400, DEFAULT_BUDGET, "easy", timed=True),
    Setting("egyptian-2 vs easy", "egyptian", 2, 200, DEFAULT_BUDGET, "easy"),
    Setting("classic-4 strong pair vs easy pair", "classic", 4, 200, DEFAULT_BUDGET, "easy"),
    Setting("classic-2 vs itself at half budget", "classic", 2, 100, DEFAULT_BUDGET, "strong"),
)


def play_one(job: tuple[Setting, int, int]) -> dict[str, object]:
    """One seeded match; the strong bot (full budget) plays side ``strong_side``."""
    setting, k, strong_side = job
    seats = setting.seats
    seeds = f"bench-strong/{setting.ruleset}/{seats}/{k}"
    kinds = {s: "strong" if s % 2 == strong_side else setting.other for s in range(seats)}
    budgets = {
        s: setting.strong_budget if s % 2 == strong_side else setting.strong_budget // 2
        for s in range(seats)
    }
    state = fold(
        decide(
            INITIAL_STATE,
            CreateMatch(
                match_id=f"bench-{k}",
                ruleset=setting.ruleset,
                seats=seats,
                secret=secret_from_text_seed(seeds),
                bots=tuple(range(seats)),
                bot_kind="easy",
                bot_kinds={s: kind for s, kind in kinds.items() if kind != "easy"},
                bot_budget=setting.strong_budget,
            ),
        )
    )
    assert state.setup is not None and state.setup.key is not None
    key = state.setup.key
    bots: dict[int, Bot] = {
        s: StrongBot(key, s, budgets[s]) if kinds[s] == "strong" else EasyBot()
        for s in range(seats)
    }
    times: list[float] = []
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        # CPU time of this process: the time on one core, whatever else the machine runs.
        started = time.process_time()
        card = bot_card(bots[seat], state, seat)
        spent = time.process_time() - started
        if setting.timed and seat % 2 == strong_side and len(state.hands[seat]) > 1:
            times.append(spent)
        state = fold(decide(state, PlayCard(seat, card)), state)
    return {
        "won": state.winner == strong_side,
        "draw": state.winner is None,
        "rounds": state.round,
        "strong_points": state.totals[strong_side],
        "other_points": state.totals[1 - strong_side],
        "times": times,
    }


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate, 95% by default."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def summary(setting: Setting, results: list[dict[str, object]]) -> dict[str, object]:
    """Win rate with its interval, draws, points per round, and decision times."""
    n = len(results)
    wins = sum(1 for r in results if r["won"])
    draws = sum(1 for r in results if r["draw"])
    rounds = sum(int(r["rounds"]) for r in results)  # type: ignore[call-overload]
    strong = sum(int(r["strong_points"]) for r in results)  # type: ignore[call-overload]
    other = sum(int(r["other_points"]) for r in results)  # type: ignore[call-overload]
    times = sorted(t for r in results for t in r["times"])  # type: ignore[attr-defined]
    low, high = wilson(wins, n)
    out: dict[str, object] = {
        "setting": setting.name,
        "matches": n,
        "wins": wins,
        "draws": draws,
        "win_rate": wins / n,
        "ci95": [low, high],
        "strong_points_per_round": strong / rounds,
        "other_points_per_round": other / rounds,
        "budget": setting.strong_budget,
    }
    if times:
        out["decisions_timed"] = len(times)
        out["median_ms"] = statistics.median(times) * 1000
        out["p99_ms"] = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
    return out


def _table(rows: list[dict[str, object]]) -> str:
    """The Markdown table of the rows, and the decision times where measured."""
    lines = [
        "| setting | matches | strong wins | draws | win rate (95% CI) | points/round |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        ci = row["ci95"]
        assert isinstance(ci, list)
        low, high = ci
        lines.append(
            f"| {row['setting']} | {row['matches']} | {row['wins']} | {row['draws']} |"
            f" {row['win_rate']:.1%} ({low:.1%}-{high:.1%}) |"
            f" {row['strong_points_per_round']:.1f} vs {row['other_points_per_round']:.1f} |"
        )
    for row in rows:
        if "median_ms" in row:
            lines.append(
                f"\n{row['setting']}: {row['decisions_timed']} decisions of more than one card,"
                f" median {row['median_ms']:.1f} ms, p99 {row['p99_ms']:.1f} ms of CPU time"
            )
    return "\n".join(lines)


RULESETS = ("classic", "egyptian", "lebanese", "yemeni", "jordanian")
"""Every rule set, for the timing of decisions."""


def timing(matches: int) -> str:
    """CPU time per strong decision of more than one card, by rule set and seats, in this one
    process (one core): ``matches`` seeded matches each, the strong side against easy bots."""
    lines = [
        "| rule set | seats | decisions | median ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]
    for ruleset in RULESETS:
        for seats in (2, 4):
            setting = Setting("timing", ruleset, seats, matches, DEFAULT_BUDGET, "easy", True)
            times = sorted(
                t
                for k in range(matches)
                for t in play_one((setting, k, k % 2))["times"]  # type: ignore[attr-defined]
            )
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            lines.append(
                f"| {ruleset} | {seats} | {len(times)} | {statistics.median(times) * 1000:.1f} |"
                f" {p99 * 1000:.1f} | {times[-1] * 1000:.1f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Play every setting, the seeds of all settings interleaved, and print the table.

    The summary is written to ``--out`` every 20 matches, so a run stopped early keeps what it
    measured (each setting's count says how many of its matches were played).
    """
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the pairs to play")
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--timing", type=int, default=0, help="only time decisions: this many matches per setting"
    )
    parser.add_argument(
        "--self-budget",
        type=int,
        default=0,
        help="only the strong bot at this budget against itself at half of it, Classic 2 seats",
    )
    parser.add_argument("--pairs", type=int, default=100, help="seeds for --self-budget")
    args = parser.parse_args(argv)
    settings: tuple[Setting, ...] = SETTINGS
    if args.self_budget:
        name = f"classic-2 at {args.self_budget} vs itself at {args.self_budget // 2}"
        settings = (Setting(name, "classic", 2, args.pairs, args.self_budget, "strong"),)
    if args.timing:
        print(timing(args.timing))
        return
    started = time.perf_counter()
    pairs = {s.name: max(1, int(s.pairs * args.scale)) for s in settings}
    jobs = [
        (setting, k, side)
        for k in range(max(pairs.values()))
        for setting in settings
        if k < pairs[setting.name]
        for side in (0, 1)
    ]
    results: dict[str, list[dict[str, object]]] = {s.name: [] for s in settings}
    rows: list[dict[str, object]] = []
    with ProcessPoolExecutor(max_workers=min(2, args.workers)) as pool:
        for done, ((setting, _, _), result) in enumerate(
            zip(jobs, pool.map(play_one, jobs, chunksize=2), strict=True), 1
        ):
            results[setting.name].append(result)
            if done % 20 == 0 or done == len(jobs):
                rows = [summary(s, results[s.name]) for s in settings if results[s.name]]
                if args.out:
                    elapsed = time.perf_counter() - started
                    with open(args.out, "w") as f:
                        json.dump({"rows": rows, "wall_seconds": elapsed, "done": done}, f)
                print(f"{done}/{len(jobs)} matches", file=sys.stderr, flush=True)
    print(_table(rows))
    print(f"\nwall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
