r"""The garbage collector of a serving process: its pauses while ``basra serve`` is under load.

``basra serve`` on a fresh SQLite file (one process, the abuse limits off, as in
bench/bench_scale.py) under the closed loop of ``--matches`` practice matches for ``--seconds``,
once with Python's collector as it comes (``BASRA_API_GC=default``) and once tuned
(``BASRA_API_GC=tuned``, the default: app/api/collector.py), alternating, ``--repeats`` times.
The server is started with a ``sitecustomize`` module of this benchmark's own on its path that
records every collection (``gc.callbacks``: when, which generation, how long) to a file; only
the collections made while the load ran are counted. Printed for each mode: collections by
generation, the time spent in them per play and in all, the longest pause, the loop's plays
per second and p99, and the server's resident memory before and after the load. Run from the
repository root:

    .venv/bin/python -m bench.bench_collector [--repeats 3] [--seconds 10] [--matches 50] \
        [--json F]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_scale import closed_loop, served, tree_cpu_seconds

MODES = ("default", "tuned")
"""The values of ``BASRA_API_GC`` compared."""

RECORDER = '''
"""Records the collections of this process (bench/bench_collector.py)."""
import atexit, gc, os, time

_path = os.environ["BENCH_GC_LOG"] + f".{os.getpid()}"
_rows = []
_started = [0.0]


def _flush():
    with open(_path, "w") as out:
        out.writelines(_rows)


def _collection(phase, info):
    if phase == "start":
        _started[0] = time.perf_counter()
        return
    pause = time.perf_counter() - _started[0]
    _rows.append(f"{time.time():.6f} {info['generation']} {pause * 1000:.4f}\\n")
    if len(_rows) % 20 == 0:
        _flush()


gc.callbacks.append(_collection)
atexit.register(_flush)
'''


def resident_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (``VmRSS`` of /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pauses_between(log_prefix: Path, start: float, end: float) -> list[tuple[int, float]]:
    """(generation, ms) of every collection the server's processes made between two times."""
    found = []
    for path in log_prefix.parent.glob(log_prefix.name + ".*"):
        for line in path.read_text().splitlines():
            at, generation, ms = line.split()
            if start <= float(at) <= end:
                found.append((int(generation), float(ms)))
    return found


def one_run(workdir: Path, mode: str, matches: int, seconds: float, seed: int) -> dict[str, Any]:
    """One served run in ``mode``: the loop's figures and the collections made during it."""
    site = workdir / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(RECORDER)
    log_prefix = workdir / f"gc-{mode}-{seed}"
    env = {"PYTHONPATH": str(site), "BENCH_GC_LOG": str(log_prefix), "BASRA_API_GC": mode}
    with served(workdir, 1, None, env) as (port, pid):
        cpu_before = tree_cpu_seconds(pid)
        rss_before = resident_mb(pid)
        start = time.time()
        loop = asyncio.run(closed_loop(port, matches, seconds, seed=seed))
        end = time.time()
        cpu = tree_cpu_seconds(pid) - cpu_before
        rss_after = resident_mb(pid)
    # The server has exited (its records are flushed at exit).
    collections = pauses_between(log_prefix, start, end)
    plays = loop["plays_s"] * seconds
    by_generation = {g: [ms for gen, ms in collections if gen == g] for g in (0, 1, 2)}
    return {
        "mode": mode,
        "plays_s": loop["plays_s"],
        "p99_ms": loop["p99"],
        "cpu_ms_per_play": cpu * 1000 / plays if plays else 0.0,
        "collections": {g: len(v) for g, v in by_generation.items()},
        "collector_ms": sum(ms for _, ms in collections),
        "collector_us_per_play": sum(ms for _, ms in collections) * 1000 / plays if plays else 0,
        "longest_pause_ms": max((ms for _, ms in collections), default=0.0),
        "longest_full_ms": max(by_generation[2], default=0.0),
        "rss_before_mb": rss_before,
        "rss_after_mb": rss_after,
    }


def main(argv: list[str] | None = None) -> None:
    """Run both modes alternately and print the medians with every run."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="bench-collector-") as tmp:
        for r in range(args.repeats):
            for mode in MODES:
                print(f"BASRA_API_GC={mode}, repeat {r + 1}", file=sys.stderr, flush=True)
                runs[mode].append(one_run(Path(tmp), mode, args.matches, args.seconds, r))
    print(
        f"## The collector under {args.matches} matches, medians of {args.repeats} runs of "
        f"{args.seconds:g} s (every run in brackets)"
    )
    for mode in MODES:
        rs = runs[mode]

        def med(key: str, rs: list[dict[str, Any]] = rs) -> float:
            return float(statistics.median(r[key] for r in rs))

        def listed(key: str, rs: list[dict[str, Any]] = rs) -> str:
            return ", ".join(f"{r[key]:,.1f}" for r in rs)

        counts = " / ".join(
            f"{statistics.median(r['collections'][g] for r in rs):g}" for g in (0, 1, 2)
        )
        print(
            f"  {mode:<8} collections (gen 0/1/2) {counts}; in the collector "
            f"{med('collector_us_per_play'):.0f} us a play [{listed('collector_us_per_play')}], "
            f"longest pause {med('longest_pause_ms'):.1f} ms [{listed('longest_pause_ms')}], "
            f"longest full {med('longest_full_ms'):.1f} ms; "
            f"{med('plays_s'):,.0f} plays/s [{listed('plays_s')}], "
            f"p99 {med('p99_ms'):.1f} ms [{listed('p99_ms')}], "
            f"CPU {med('cpu_ms_per_play'):.2f} ms a play; resident memory "
            f"{med('rss_before_mb'):.0f} MB before the load, {med('rss_after_mb'):.0f} MB after "
            f"[{listed('rss_after_mb')}]"
        )
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
