"""The capacity goals read off one run of ``python -m bench tables`` (docs/performance.md,
"Capacity at human pace").

The capacity of a side in one run is the largest step whose plays done are at least
``DONE_SHARE`` of planned with a play p99 of at most ``PLAY_P99_MS`` and a push p99 of at most
``PUSH_P99_MS``. No collapse asks, at twice the capacity, for plays done of at least
``BEST_SHARE`` of the best rate that side did at any step of the run, and a play p99 within
``P99_FACTOR`` times the capacity step's. The steps are the run's own: a coarse grid (1,000 then
2,000) finds a capacity below the real one, at a p99 far under the goal's, so step finely around
it (``--tables 1000,1250,1500,2000,2500,3000``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

DONE_SHARE: Final = 0.95
"""Plays done, of planned, that a step holding its tables reaches."""

PLAY_P99_MS: Final = 100.0
"""The play p99 a step holding its tables stays within."""

PUSH_P99_MS: Final = 150.0
"""The push p99 a step holding its tables stays within."""

BEST_SHARE: Final = 0.90
"""Plays done at twice the capacity, of the best rate the side did in the run."""

P99_FACTOR: Final = 2.0
"""How many times the capacity step's play p99 the tables playing at twice it may wait."""


def holds(row: dict[str, Any]) -> bool:
    """Whether a step held its tables: plays done and both p99s within the capacity goal."""
    return bool(
        row["done_s"] >= DONE_SHARE * row["planned_s"]
        and row["play_p99"] <= PLAY_P99_MS
        and row["push_p99"] <= PUSH_P99_MS
    )


def verdict(rows: Sequence[dict[str, Any]]) -> str:
    """One side's steps of one run, read against the capacity and no-collapse goals."""
    capacity = max((row for row in rows if holds(row)), key=lambda r: r["tables"], default=None)
    if capacity is None:
        return (
            f"no step held its tables ({DONE_SHARE:.0%} of planned plays, "
            f"p99 {PLAY_P99_MS:g}/{PUSH_P99_MS:g} ms): no capacity"
        )
    said = (
        f"capacity {capacity['tables']:,} tables ({capacity['done_s']} of "
        f"{capacity['planned_s']} plays/s, play p99 {capacity['play_p99']} ms)"
    )
    twice = next((row for row in rows if row["tables"] == 2 * capacity["tables"]), None)
    if twice is None:
        return f"{said}; no step at {2 * capacity['tables']:,} tables measured"
    best = max(rows, key=lambda r: r["done_s"])
    done_share = twice["done_s"] / best["done_s"]
    p99_factor = twice["play_p99"] / max(capacity["play_p99"], 1e-9)
    done_met = "met" if done_share >= BEST_SHARE else "missed"
    p99_met = "met" if p99_factor <= P99_FACTOR else "missed"
    return (
        f"{said}; at {twice['tables']:,}: plays done {twice['done_s']}/s = "
        f"{done_share:.1%} of the best step's {best['done_s']} ({best['tables']:,} tables; "
        f"goal {BEST_SHARE:.0%}: {done_met}), play p99 {twice['play_p99']} ms = "
        f"{p99_factor:.2f}x the capacity step's (goal {P99_FACTOR:g}x: {p99_met})"
    )


def verdicts(rows: Sequence[dict[str, Any]]) -> list[str]:
    """A line per side and run: each read against the goals on its own steps."""
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["side"], row.get("run", 1)), []).append(row)
    return [f"{side} (run {run}): {verdict(steps)}" for (side, run), steps in groups.items()]
