r"""Run one benchmark from two checkouts, interleaved, and compare their figures (kept for its
old command line; ``python -m bench NAME --before TREE`` does the same).

    python -m bench.compare_trees --before TREE [--runs 5] -- bench/bench_rules.py --repeats 1

The benchmark is named by its old script (``bench/bench_NAME.py``) or by its name; its options
follow. See bench/before.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.harness import BENCHMARKS, run


def name_of(script: str) -> str:
    """The benchmark a script path (``bench/bench_rules.py``) or a name stands for."""
    name = Path(script).stem.removeprefix("bench_")
    if name not in BENCHMARKS:
        raise SystemExit(f"no benchmark {name!r} (from {script!r})")
    return name


def main() -> int:
    """Run both sides ``--runs`` times, interleaved, and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, help="the earlier checkout")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="also write every run here")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- SCRIPT ARGS…")
    args = parser.parse_args()
    argv = [a for a in args.command if a not in ("--", "--json")]
    if not argv:
        parser.error("give the benchmark after --, e.g. -- bench/bench_rules.py --repeats 1")
    script, *rest = argv
    rest += ["--before", str(args.before), "--before-runs", str(args.runs)]
    compared = run(name_of(script), rest)
    if args.json is not None:
        args.json.write_text(json.dumps(compared["runs"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
