"""Whole ``basra`` processes against a bare interpreter, alternated, as medians and ratios.

    python -m bench cli [--repeats N] [--code-before TREE]

A temporary store gets one seeded match; then each round runs, in turn, a bare interpreter that
imports json and sqlite3 and every read command (``replay --step``, ``export``, ``verify ID``,
``matches``) as a new process. Medians of the wall time per process, and each command's ratio
to the bare interpreter measured in the same rounds (``--repeats``; ``--rounds`` as the old
script named it). With ``--code-before TREE`` (the source of an
older commit, e.g. ``git archive COMMIT | tar -x -C TREE``) each command also runs from that
tree in the same rounds, and the table gives the ratio of now to before.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.before import Legacy, groups
from bench.options import Shared

ROOT = Path(__file__).resolve().parents[1]
"""The source tree this script belongs to."""

BARE = [sys.executable, "-c", "import json, sqlite3"]
"""The floor: an interpreter that starts and imports what any store reader needs."""

KEYS = {
    "bare python (json, sqlite3)": "bare",
    "replay ID --step 40": "replay",
    "export ID": "export",
    "verify ID": "verify",
    "matches": "matches",
}
"""The figures' keys of the processes timed."""

SHARED = Shared(
    repeats=21, repeats_help="rounds, each process once", names={"repeats": ("--rounds",)}
)
"""Rounds."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's table (bench/bench_cli.py)."""
    found: dict[str, float] = {}
    for label, key in KEYS.items():
        pattern = rf"^{label.replace('(', '[(]').replace(')', '[)]')} +([\d.]+) +([\d.]+)$"
        found |= groups(text, pattern, [f"{key}_ms", f"{key}_x_bare"])
    return found


LEGACY = Legacy(
    "bench.bench_cli",
    read_legacy,
    names={"repeats": "--rounds"},
    renames={"--code-before": "--before"},
)
"""The old script, bench/bench_cli.py, printed the same table."""


def _wall(command: list[str], cwd: Path, tree: Path) -> float:
    """One process's wall time, importing the project from ``tree`` (outside it: cwd)."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument(
        "--code-before", type=Path, help="an older commit's source tree to compare, in each round"
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure and print one table."""
    rounds, before = args.repeats, args.code_before
    basra = [sys.executable, "-m", "cli.main"]
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        db = str(where / "bench.db")
        simulate = ["simulate", "--ruleset", "classic", "--seats", "2", "--seed", "bench"]
        match_id = subprocess.run(
            [*basra, *simulate, "--db", db],
            check=True,
            capture_output=True,
            text=True,
            cwd=where,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        ).stdout.strip()
        commands = {
            "bare python (json, sqlite3)": BARE,
            "replay ID --step 40": [*basra, "replay", match_id, "--step", "40", "--db", db],
            "export ID": [*basra, "export", match_id, "--db", db],
            "verify ID": [*basra, "verify", match_id, "--db", db],
            "matches": [*basra, "matches", "--db", db],
        }
        runs = [(name, command, ROOT) for name, command in commands.items()]
        if before is not None:
            runs += [(f"{name} (before)", c, before.resolve()) for name, c in commands.items()][1:]
        times: dict[str, list[float]] = {name: [] for name, _, _ in runs}
        for _ in range(rounds):
            for name, command, tree in runs:
                times[name].append(_wall(command, where, tree))
    bare = statistics.median(times["bare python (json, sqlite3)"])
    figures: dict[str, Any] = {}
    print(f"{'command':42} {'median ms':>10} {'× bare':>8}   ({rounds} rounds, alternated)")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:42} {median * 1000:10.1f} {median / bare:8.2f}")
        key = KEYS.get(name) or f"before/{KEYS[name.removesuffix(' (before)')]}"
        figures[f"{key}_ms"] = median * 1000
        figures[f"{key}_x_bare"] = median / bare
    if before is not None:
        print(f"\n{'command':42} {'now / before':>12}")
        for name in list(commands)[1:]:
            now, then = times[name], times[f"{name} (before)"]
            print(f"{name:42} {statistics.median(now) / statistics.median(then):12.2f}")
    return figures
