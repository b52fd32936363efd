"""Whole ``basra`` processes against a bare interpreter, alternated, as medians and ratios.

    .venv/bin/python bench/bench_cli.py [--rounds N]

A temporary store gets one seeded match; then each round runs, in turn, a bare interpreter that
imports json and sqlite3 and every read command (``replay --step``, ``export``, ``verify ID``,
``matches``) as a new process. Medians of the wall time per process, and each command's ratio
to the bare interpreter measured in the same rounds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE = [sys.executable, "-c", "import json, sqlite3"]
"""The floor: an interpreter that starts and imports what any store reader needs."""


def _wall(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    """Measure and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    rounds = parser.parse_args().rounds
    basra = [sys.executable, "-m", "cli.main"]
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        db = str(where / "bench.db")
        simulate = ["simulate", "--ruleset", "classic", "--seats", "2", "--seed", "bench"]
        match_id = subprocess.run(
            [*basra, *simulate, "--db", db], check=True, capture_output=True, text=True
        ).stdout.strip()
        commands = {
            "bare python (json, sqlite3)": BARE,
            "replay ID --step 40": [*basra, "replay", match_id, "--step", "40", "--db", db],
            "export ID": [*basra, "export", match_id, "--db", db],
            "verify ID": [*basra, "verify", match_id, "--db", db],
            "matches": [*basra, "matches", "--db", db],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                times[name].append(_wall(command, Path.cwd()))
    bare = statistics.median(times["bare python (json, sqlite3)"])
    print(f"{'command':32} {'median ms':>10} {'× bare':>8}   ({rounds} rounds, alternated)")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:32} {median * 1000:10.1f} {median / bare:8.2f}")


if __name__ == "__main__":
    main()
