r"""The garbage collector of a serving process: its pauses while ``basra serve`` is under load.

``basra serve`` on a fresh SQLite file (one process, the abuse limits off, as in
bench/scale.py) under the closed loop of ``--matches`` practice matches for ``--seconds``,
once with Python's collector as it comes (``BASRA_API_GC=default``) and once tuned
(``BASRA_API_GC=tuned``, the default: app/api/edges/collector.py), alternating, ``--repeats`` times.
The server is started with a ``sitecustomize`` module of this benchmark's own on its path that
records every collection (``gc.callbacks``: when, which generation, how long) to a file; only
the collections made while the load ran are counted. Printed for each mode: collections by
generation, the time spent in them per play and in all, the longest pause, the loop's plays
per second and p99, and the server's resident memory before and after the load. Run from the
repository root:

    python -m bench collector [--repeats 3] [--seconds 10] [--matches 50] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.before import Legacy, groups
from bench.client import closed_loop
from bench.harness import say
from bench.options import Shared
from bench.servers import served, tree_cpu_seconds

MODES = ("default", "tuned")
"""The values of ``BASRA_API_GC`` compared."""

SHARED = Shared(seconds=10.0, repeats=3)
"""Each served run's length, and the runs of each mode."""

FIGURES = (
    "plays_s",
    "p99_ms",
    "cpu_ms_per_play",
    "collector_us_per_play",
    "longest_pause_ms",
    "longest_full_ms",
    "rss_before_mb",
    "rss_after_mb",
)
"""A mode's figures, each the median over its runs."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's lines (bench/bench_collector.py)."""
    found: dict[str, float] = {}
    for mode in MODES:
        line = re.search(rf"^  {mode} +collections.*$", text, re.MULTILINE)
        if line is None:
            continue
        patterns = {
            "collections/0": r"gen 0/1/2\) ([\d.]+) /",
            "collections/1": r"gen 0/1/2\) [\d.]+ / ([\d.]+) /",
            "collections/2": r"gen 0/1/2\) [\d.]+ / [\d.]+ / ([\d.]+);",
            "collector_us_per_play": r"in the collector ([\d,.]+) us a play",
            "longest_pause_ms": r"longest pause ([\d.]+) ms",
            "longest_full_ms": r"longest full ([\d.]+) ms",
            "plays_s": r"; ([\d,.]+) plays/s",
            "p99_ms": r"p99 ([\d.]+) ms",
            "cpu_ms_per_play": r"CPU ([\d.]+) ms a play",
            "rss_before_mb": r"memory ([\d.]+) MB before",
            "rss_after_mb": r"([\d.]+) MB after",
        }
        for key, pattern in patterns.items():
            found |= groups(line.group(0), pattern, [f"{mode}/{key}"])
    return found


LEGACY = Legacy(
    "bench.bench_collector", read_legacy, names={"seconds": "--seconds", "repeats": "--repeats"}
)
"""The old script, bench/bench_collector.py, printed the same lines."""

RECORDER = '''
"""Records the collections of this process (bench/collector.py)."""
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


def recorder_env(workdir: Path, log_name: str) -> tuple[dict[str, str], Path]:
    """The environment that puts ``RECORDER`` on a server's path, and the prefix of the files
    it writes (``workdir / log_name``, one file a process)."""
    site = workdir / "collector-site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(RECORDER)
    log = workdir / log_name
    return {"PYTHONPATH": str(site), "BENCH_GC_LOG": str(log)}, log


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
    env, log_prefix = recorder_env(workdir, f"gc-{mode}-{seed}")
    env["BASRA_API_GC"] = mode
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=50)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run both modes alternately and print the medians with every run; the medians by mode,
    and every run."""
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="bench-collector-") as tmp:
        for r in range(args.repeats):
            for mode in MODES:
                say(f"BASRA_API_GC={mode}, repeat {r + 1}")
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
    figures: dict[str, Any] = {
        mode: {key: statistics.median(r[key] for r in rs) for key in FIGURES}
        | {
            "collections": {
                g: statistics.median(r["collections"][g] for r in rs) for g in (0, 1, 2)
            }
        }
        for mode, rs in runs.items()
    }
    return figures | {"runs": runs}
