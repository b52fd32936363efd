"""The strong bot's strength and speed: seeded matches against the easy bot and against itself.

Every seed is played twice with the sides swapped, so neither side keeps the better deals.
Matches are played in memory (decide and evolve, no store) on at most ``--workers`` processes;
run it under ``nice -n 10`` on a shared machine. Prints a Markdown table and writes JSON.

    nice -n 10 python -m bench strong --workers 2 --out /tmp/strong.json
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from bench.before import Legacy, groups
from bench.options import Shared
from bench.stats import quantile
from domain.bot_kinds import DEFAULT_BUDGET, LOGIC_VERSION
from domain.bots import Bot, EasyBot, bot_card
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.state import INITIAL_STATE
from domain.strong_bot import (
    SeatKnowledge,
    StrongBot,
    best_card,
    evaluate,
    knowledge,
)

SHARED = Shared()
"""No shared options but the harness's own."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's table (bench/bench_strong.py)."""
    found: dict[str, float] = {}
    for setting in SETTINGS:
        name = re.escape(setting.name)
        keys = [f"{setting.name}/{key}" for key in ("matches", "wins", "draws", "win_rate")]
        found |= groups(text, rf"^\| {name} \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+)%", keys)
        if f"{setting.name}/win_rate" in found:
            found[f"{setting.name}/win_rate"] /= 100
        keys = [f"{setting.name}/decisions_timed", f"{setting.name}/median_ms"]
        found |= groups(text, rf"^{name}: (\d+) decisions.* median ([\d.]+) ms", keys)
    return found


LEGACY = Legacy("bench.bench_strong", read_legacy)
"""The old script, bench/bench_strong.py, printed the same table."""


@dataclass(frozen=True)
class Player:
    """One side's bot: the easy bot, or the strong bot with its budget, version and objective."""

    kind: str  # "easy" or "strong"
    budget: int = DEFAULT_BUDGET
    version: int = LOGIC_VERSION
    objective: str = "points"

    def bot(self, key: bytes, seat: int) -> Bot:
        """This side's bot at ``seat``."""
        if self.kind == "easy":
            return EasyBot()
        return StrongBot(key, seat, self.budget, self.version, self.objective)

    def label(self) -> str:
        """How the table names this side."""
        if self.kind == "easy":
            return "easy"
        extra = "" if self.objective == "points" else f", {self.objective}"
        return f"strong {self.budget} (v{self.version}{extra})"


def parse_player(text: str) -> Player:
    """``easy``, or ``strong:BUDGET[:vVERSION][:match]``."""
    parts = text.split(":")
    if parts[0] == "easy":
        return Player("easy")
    budget = int(parts[1]) if len(parts) > 1 else DEFAULT_BUDGET
    version = LOGIC_VERSION
    objective = "points"
    for part in parts[2:]:
        if part.startswith("v"):
            version = int(part[1:])
        else:
            objective = part
    return Player("strong", budget, version, objective)


@dataclass(frozen=True)
class Setting:
    """One line of the table: who plays whom, where, how many seeds (each played twice)."""

    name: str
    ruleset: str
    seats: int
    pairs: int
    strong: Player  # the side whose wins are counted
    other: Player
    timed: bool = False


def _default(name: str, ruleset: str, seats: int, pairs: int, *, timed: bool = False) -> Setting:
    return Setting(name, ruleset, seats, pairs, Player("strong"), Player("easy"), timed)


SETTINGS = (
    _default("classic-2 vs easy", "classic", 2, 400, timed=True),
    _default("egyptian-2 vs easy", "egyptian", 2, 200),
    _default("classic-4 strong pair vs easy pair", "classic", 4, 200),
)


def play_one(job: tuple[Setting, int, int]) -> dict[str, object]:
    """One seeded match; the counted side (``setting.strong``) plays side ``strong_side``."""
    setting, k, strong_side = job
    seats = setting.seats
    seeds = f"bench-strong/{setting.ruleset}/{seats}/{k}"
    players = {s: setting.strong if s % 2 == strong_side else setting.other for s in range(seats)}
    budget = max(p.budget for p in players.values() if p.kind == "strong")
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
                bot_kinds={s: p.kind for s, p in players.items() if p.kind != "easy"},
                bot_budget=budget,
            ),
        )
    )
    assert state.setup is not None and state.setup.key is not None
    key = state.setup.key
    bots = {s: players[s].bot(key, s) for s in range(seats)}
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
        "pair": k,
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


def _pair_scores(results: list[dict[str, object]]) -> list[float]:
    """The counted side's share of the wins of each seed played both ways (a draw is half)."""
    by_pair: dict[object, list[float]] = {}
    for r in results:
        by_pair.setdefault(r["pair"], []).append(1.0 if r["won"] else 0.5 if r["draw"] else 0.0)
    return [sum(scores) / 2 for scores in by_pair.values() if len(scores) == 2]


def paired_interval(results: list[dict[str, object]], z: float = 1.96) -> tuple[float, float]:
    """A 95% interval of the win rate from the seeds' pairs: the two matches of a seed share its
    decks with the sides swapped, so the luck of the deal cancels within a pair and the pairs,
    not the matches, are the independent samples (normal interval of the pairs' mean)."""
    scores = _pair_scores(results)
    if len(scores) < 2:
        return (0.0, 1.0)
    mean = statistics.fmean(scores)
    half = z * statistics.stdev(scores) / math.sqrt(len(scores))
    return (mean - half, mean + half)


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
    pair_low, pair_high = paired_interval(results)
    out: dict[str, object] = {
        "setting": setting.name,
        "matches": n,
        "wins": wins,
        "draws": draws,
        "win_rate": wins / n,
        "ci95": [low, high],
        "strong_points_per_round": strong / rounds,
        "other_points_per_round": other / rounds,
        "strong": setting.strong.label(),
        "other": setting.other.label(),
        "pairs_complete": len(_pair_scores(results)),
        "paired_ci95": [pair_low, pair_high],
    }
    if times:
        out["decisions_timed"] = len(times)
        out["median_ms"] = statistics.median(times) * 1000
        out["p99_ms"] = quantile(times, 0.99) * 1000
    return out


def _table(rows: list[dict[str, object]]) -> str:
    """The Markdown table of the rows, and the decision times where measured."""
    lines = [
        "| setting | matches | wins | draws | win rate (95% Wilson CI) | paired 95% CI"
        " | points/round |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ci = row["ci95"]
        paired = row["paired_ci95"]
        assert isinstance(ci, list) and isinstance(paired, list)
        low, high = ci
        lines.append(
            f"| {row['setting']} | {row['matches']} | {row['wins']} | {row['draws']} |"
            f" {row['win_rate']:.1%} ({low:.1%}-{high:.1%}) |"
            f" {paired[0]:.1%}-{paired[1]:.1%} |"
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


def round_spread(matches: int) -> str:
    """By rule set and seats, over the rounds of ``matches`` easy-bot matches each (seeds
    ``bench-strong-rounds/K``): a side's mean points a round, and the standard deviation of a
    round's difference between the two sides: ``ROUND_SPREAD`` of domain/strong_bot.py, which
    the ``match`` objective weighs a lead with."""
    from domain.events import RoundScored
    from domain.selfplay import play_match

    lines = ["| rule set | seats | rounds | mean points a side | sd of the difference |"]
    lines.append("|---|---|---|---|---|")
    for ruleset in ("classic", "egyptian", "lebanese", "yemeni", "jordanian"):
        for seats in (2, 4):
            points: list[int] = []
            differences: list[int] = []
            for k in range(matches):
                command = CreateMatch(
                    match_id=f"rounds-{k}",
                    ruleset=ruleset,
                    seats=seats,
                    secret=secret_from_text_seed(f"bench-strong-rounds/{k}"),
                    bots=tuple(range(seats)),
                    bot_kind="easy",
                )
                events, _ = play_match(command)
                for event in events:
                    if isinstance(event, RoundScored):
                        a, b = event.sides[0].total, event.sides[1].total
                        points += [a, b]
                        differences.append(a - b)
            lines.append(
                f"| {ruleset} | {seats} | {len(differences)} | {statistics.fmean(points):.1f} |"
                f" {statistics.pstdev(differences):.1f} |"
            )
    return "\n".join(lines)


def timing(matches: int, strong: Player) -> str:
    """CPU time per strong decision of more than one card, by rule set and seats, in this one
    process (one core): ``matches`` seeded matches each, the strong side against easy bots."""
    lines = [
        "| rule set | seats | decisions | median ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]
    for ruleset in RULESETS:
        for seats in (2, 4):
            setting = Setting("timing", ruleset, seats, matches, strong, Player("easy"), timed=True)
            times = sorted(
                t
                for k in range(matches)
                for t in play_one((setting, k, k % 2))["times"]  # type: ignore[attr-defined]
            )
            p99 = quantile(times, 0.99)
            lines.append(
                f"| {ruleset} | {seats} | {len(times)} | {statistics.median(times) * 1000:.1f} |"
                f" {p99 * 1000:.1f} | {times[-1] * 1000:.1f} |"
            )
    return "\n".join(lines)


def regret_table(positions: int, budgets: list[int], reference: int, strong: Player) -> str:
    """How far each budget's pick falls below the best card, both valued by a reference of
    ``reference`` deals from a stream of its own (``reference/SEAT/N``), at the positions of
    seeded Classic 2-seat matches of ``strong`` against itself (one process)."""
    found: list[tuple[bytes, SeatKnowledge]] = []
    k = 0
    while len(found) < positions:
        state = fold(
            decide(
                INITIAL_STATE,
                CreateMatch(
                    match_id=f"regret-{k}",
                    ruleset="classic",
                    seats=2,
                    secret=secret_from_text_seed(f"bench-strong-regret/{k}"),
                    bots=(0, 1),
                    bot_kind="strong",
                    bot_budget=strong.budget,
                ),
            )
        )
        assert state.setup is not None and state.setup.key is not None
        key = state.setup.key
        bots = {s: strong.bot(key, s) for s in (0, 1)}
        while state.status == "playing" and len(found) < positions:
            seat = state.turn
            assert seat is not None
            if len(state.hands[seat]) > 1:
                found.append((key, knowledge(state, seat)))
            state = fold(decide(state, PlayCard(seat, bot_card(bots[seat], state, seat))), state)
        k += 1
    regrets: dict[int, list[float]] = {b: [] for b in budgets}
    best: dict[int, int] = dict.fromkeys(budgets, 0)
    times: dict[int, list[float]] = {b: [] for b in budgets}
    for key, known in found:
        truth = evaluate(
            known, key, reference, "reference", objective=strong.objective, version=strong.version
        )
        top = max(truth.values())
        for b in budgets:
            started = time.process_time()
            values = evaluate(known, key, b, objective=strong.objective, version=strong.version)
            times[b].append(time.process_time() - started)
            pick = best_card(known.view.hand, values)
            regrets[b].append(top - truth[pick])
            best[b] += truth[pick] >= top - 1e-9
    lines = [
        f"{len(found)} positions of {k} matches, reference {reference} deals, {strong.label()}",
        "",
        "| budget | mean regret (points) | 95% CI | best card | median ms |",
        "|---|---|---|---|---|",
    ]
    for b in budgets:
        mean = statistics.fmean(regrets[b])
        half = 1.96 * statistics.stdev(regrets[b]) / math.sqrt(len(regrets[b]))
        lines.append(
            f"| {b} | {mean:.3f} | {mean - half:.3f}-{mean + half:.3f} |"
            f" {best[b] / len(found):.1%} | {statistics.median(times[b]) * 1000:.1f} |"
        )
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
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
    parser.add_argument(
        "--strong",
        default=f"strong:{DEFAULT_BUDGET}",
        help="the counted side: strong:BUDGET[:vVERSION][:match] (the default in the settings)",
    )
    parser.add_argument(
        "--other", default=None, help="only this match-up: the counted side against this one"
    )
    parser.add_argument("--ruleset", default="classic", help="for --other and --self-budget")
    parser.add_argument("--seats", type=int, default=2, help="for --other and --self-budget")
    parser.add_argument("--pairs", type=int, default=100, help="seeds for --other, --self-budget")
    parser.add_argument("--first-pair", type=int, default=0, help="the first seed's number")
    parser.add_argument(
        "--regret", type=int, default=0, help="only the decision-quality check: this many positions"
    )
    parser.add_argument("--budgets", default="2,4,8,16,32,64", help="for --regret")
    parser.add_argument("--reference", type=int, default=512, help="for --regret")
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="only the round spread of this many easy-bot matches per rule set and seats",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play every setting, the seeds of all settings interleaved, and print the table; the rows
    by setting (the tables of ``--rounds``, ``--regret`` and ``--timing`` as text).

    The summary is written to ``--out`` every 20 matches, so a run stopped early keeps what it
    measured (each setting's count says how many of its matches were played).
    """
    strong = parse_player(args.strong)
    settings: tuple[Setting, ...] = tuple(replace(s, strong=strong) for s in SETTINGS)
    if args.self_budget:
        strong = replace(strong, budget=args.self_budget)
        args.other = f"strong:{args.self_budget // 2}:v{strong.version}:{strong.objective}"
    if args.other:
        other = parse_player(args.other)
        name = f"{args.ruleset}-{args.seats}: {strong.label()} vs {other.label()}"
        settings = (Setting(name, args.ruleset, args.seats, args.pairs, strong, other),)
    table = ""
    if args.rounds:
        table = round_spread(args.rounds)
    elif args.regret:
        budgets = [int(b) for b in args.budgets.split(",")]
        table = regret_table(args.regret, budgets, args.reference, strong)
    elif args.timing:
        table = timing(args.timing, parse_player(args.strong))
    if table:
        print(table)
        return {"table": table}
    started = time.perf_counter()
    pairs = {s.name: max(1, int(s.pairs * args.scale)) for s in settings}
    jobs = [
        (setting, k, side)
        for k in range(args.first_pair, args.first_pair + max(pairs.values()))
        for setting in settings
        if k < args.first_pair + pairs[setting.name]
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
    wall = time.perf_counter() - started
    print(f"\nwall time {wall:.0f} s")
    return {str(row["setting"]): row for row in rows} | {"wall_seconds": wall}
