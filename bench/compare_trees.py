r"""Run one JSON-printing benchmark from two checkouts, interleaved, and compare their figures.

    .venv/bin/python -m bench.compare_trees --before TREE [--runs 5] \
        -- bench/bench_rules.py --repeats 1 --json

Each run starts the benchmark as a fresh process from this checkout and from ``TREE`` (a
``git worktree`` or ``git archive`` of an earlier commit), the order alternating run by run so
neither side always goes first on this shared, noisy machine; each side runs its own code with
this checkout's interpreter. Every number the benchmark prints in its JSON (nested keys joined
with ``/``) is collected per side; the table gives each figure's median on both sides, the
median of the per-run ratios (here / before) and the spread of those ratios (min to max), so a
change can be judged against the runs' own noise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def numbers(value: object, prefix: str = "") -> Iterator[tuple[str, float]]:
    """Every number in a JSON value, keyed by its path (``2 seats/median_plays_per_s``)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield prefix, float(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{prefix}/{key}" if prefix else str(key))


def run(tree: Path, argv: list[str]) -> dict[str, float]:
    """One run of the benchmark script ``argv[0]`` (a path inside the tree) from ``tree``."""
    script, *rest = argv
    out = subprocess.run(
        [sys.executable, str(tree / script), *rest],
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
    ).stdout
    return dict(numbers(json.loads(out)))


def _figure(value: float) -> str:
    """A figure as the benchmarks print theirs: whole above 100, else four significant digits."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.4g}"


def main() -> int:
    """Run both sides ``--runs`` times, interleaved, and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, help="the earlier checkout")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="also write every run here")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- SCRIPT ARGS…")
    args = parser.parse_args()
    argv = [a for a in args.command if a != "--"]
    if not argv:
        parser.error("give the benchmark after --, e.g. -- bench/bench_rules.py --json")
    sides = {"before": args.before.resolve(), "here": HERE}
    runs: dict[str, list[dict[str, float]]] = {"before": [], "here": []}
    for k in range(args.runs):
        order = ("before", "here") if k % 2 == 0 else ("here", "before")
        for side in order:
            runs[side].append(run(sides[side], argv))
            print(f"run {k + 1}/{args.runs} {side} done", file=sys.stderr)
    keys = [key for key in runs["here"][0] if all(key in r for r in runs["before"])]
    print(f"command: {' '.join(argv)}  ({args.runs} runs each side, interleaved)")
    print("| figure | before, median | here, median | here / before, median | min | max |")
    print("|---|---|---|---|---|---|")
    for key in keys:
        before = [r[key] for r in runs["before"]]
        here = [r[key] for r in runs["here"]]
        ratios = [h / b for h, b in zip(here, before, strict=True) if b]
        if not ratios:
            continue
        print(
            f"| {key} | {_figure(statistics.median(before))} | "
            f"{_figure(statistics.median(here))} | "
            f"{statistics.median(ratios):.3f} | {min(ratios):.3f} | {max(ratios):.3f} |"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
