"""Side by side with another checkout: a benchmark run from both, whole processes interleaved,
each figure's medians and the median of the per-run ratios (here / before) with their spread.

The other checkout runs its own harness (``python -m bench NAME … --json``) when it has one;
an older checkout, whose benchmark is still a script of its own (``bench/bench_NAME.py``), runs
that script with the options translated back to its names, and its printed figures are read
with the benchmark's ``Legacy.read``."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
"""The checkout this harness belongs to."""

HARNESS_OPTIONS = {"--before": 1, "--before-runs": 1, "--json": 0}
"""The harness's own options and how many values each takes: left out of a side's command."""


@dataclass(frozen=True)
class Legacy:
    """How to run a benchmark's old script (``python -m MODULE``) and read its figures.

    ``names``: each shared option the script took, by its ``dest``, and the name it had there;
    ``renames``: the script's names of the benchmark's own options that changed; ``left_out``:
    the benchmark's options (each with one value) that the script did not have; ``extra``:
    arguments it always gets (e.g. ``--json``); ``read``: its standard output to the figures,
    keyed as the harness's JSON is (nested keys joined with ``/``)."""

    module: str
    read: Callable[[str], dict[str, float]]
    names: dict[str, str] = field(default_factory=dict)
    renames: dict[str, str] = field(default_factory=dict)
    left_out: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()


def numbers(value: object, prefix: str = "") -> Iterator[tuple[str, float]]:
    """Every number in a JSON value, keyed by its path (``2 seats/median_plays_per_s``)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield prefix, float(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{prefix}/{key}" if prefix else str(key))


def json_figures(text: str) -> dict[str, float]:
    """The figures of a script that prints one JSON document (after any other lines)."""
    start = text.find("{")
    return dict(numbers(json.loads(text[start:])))


def figure(text: str, pattern: str) -> float:
    """The number of the first match of ``pattern``'s group in ``text`` (commas dropped)."""
    found = re.search(pattern, text, re.MULTILINE)
    if found is None:
        raise ValueError(f"no {pattern!r} in the output:\n{text[-1500:]}")
    return float(found.group(1).replace(",", ""))


def figures(text: str, patterns: dict[str, str]) -> dict[str, float]:
    """``figure`` of each pattern, by key; a pattern that is not found is left out."""
    found: dict[str, float] = {}
    for key, pattern in patterns.items():
        try:
            found[key] = figure(text, pattern)
        except ValueError:
            continue
    return found


def groups(text: str, pattern: str, keys: Sequence[str]) -> dict[str, float]:
    """The numbers of the groups of ``pattern``'s first match, by ``keys`` in order (commas
    dropped); nothing when it does not match."""
    found = re.search(pattern, text, re.MULTILINE)
    if found is None:
        return {}
    return {
        key: float(value.replace(",", "")) for key, value in zip(keys, found.groups(), strict=True)
    }


def without(argv: Sequence[str], options: Sequence[str]) -> list[str]:
    """``argv`` without ``options`` (each with one value)."""
    return without_options(argv, dict.fromkeys(options, 1))


def without_options(argv: Sequence[str], options: dict[str, int]) -> list[str]:
    """``argv`` without ``options``, each with as many values as it maps to."""
    out: list[str] = []
    skip = 0
    for token in argv:
        if skip:
            skip -= 1
            continue
        name = token.split("=", 1)[0]
        if name in options:
            skip = options[name] if "=" not in token else 0
            continue
        out.append(token)
    return out


def without_harness_options(argv: Sequence[str]) -> list[str]:
    """``argv`` without ``--before DIR``, ``--before-runs N`` and ``--json``."""
    return without_options(argv, HARNESS_OPTIONS)


def legacy_command(legacy: Legacy, own: Sequence[str], args: argparse.Namespace) -> list[str]:
    """The old script's command line for the same run."""
    command = [sys.executable, "-m", legacy.module]
    command += [legacy.renames.get(token, token) for token in without(own, legacy.left_out)]
    for dest, name in legacy.names.items():
        value = getattr(args, dest, None)
        if value is not None:
            command += [name, str(value)]
    return [*command, *legacy.extra]


def _run(command: list[str], tree: Path) -> str:
    """One side's run from ``tree``; its standard output."""
    env = dict(os.environ) | {"PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} in {tree} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def has_harness(tree: Path, name: str) -> bool:
    """Whether ``tree`` runs ``name`` through a harness of its own."""
    registry = tree / "bench" / "harness.py"
    return registry.exists() and f'"{name}"' in registry.read_text()


def sides(
    name: str, legacy: Legacy | None, argv: Sequence[str], own: Sequence[str], args: Any
) -> dict[str, tuple[list[str], Path, Callable[[str], dict[str, float]]]]:
    """(command, checkout, reader) of the two sides."""
    here = [sys.executable, "-m", "bench", name, *without_harness_options(argv), "--json"]
    before_tree = Path(args.before).resolve()
    before: tuple[list[str], Path, Callable[[str], dict[str, float]]]
    if has_harness(before_tree, name):
        before = (here, before_tree, json_figures)
    elif legacy is not None:
        before = (legacy_command(legacy, own, args), before_tree, legacy.read)
    else:
        raise SystemExit(f"{before_tree} has no benchmark {name!r}, and no old script is known")
    return {"before": before, "here": (here, HERE, json_figures)}


def _shown(value: float) -> str:
    """A figure as the benchmarks print theirs: whole above 100, else four significant digits."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.4g}"


def compare(
    name: str, legacy: Legacy | None, argv: Sequence[str], own: Sequence[str], args: Any
) -> dict[str, Any]:
    """Run both sides ``args.before_runs`` times, alternating which goes first; print the table (and
    the commands); the runs and the table's rows."""
    both = sides(name, legacy, argv, own, args)
    runs: dict[str, list[dict[str, float]]] = {"before": [], "here": []}
    for k in range(args.before_runs):
        order = ("before", "here") if k % 2 == 0 else ("here", "before")
        for side in order:
            command, tree, read = both[side]
            runs[side].append(read(_run(command, tree)))
            print(f"run {k + 1}/{args.before_runs} {side} done", file=sys.stderr, flush=True)
    rows: list[dict[str, Any]] = []
    keys = [key for key in runs["here"][0] if all(key in r for r in runs["before"])]
    for key in keys:
        before = [r[key] for r in runs["before"]]
        here = [r[key] for r in runs["here"]]
        ratios = [h / b for h, b in zip(here, before, strict=True) if b]
        rows.append(
            {
                "figure": key,
                "before": statistics.median(before),
                "here": statistics.median(here),
                "ratio": statistics.median(ratios) if ratios else None,
                "min": min(ratios) if ratios else None,
                "max": max(ratios) if ratios else None,
            }
        )
    out = sys.stderr if args.json else sys.stdout
    for side in ("before", "here"):
        command, tree, _ = both[side]
        shown = " ".join(command[1:]).replace(str(HERE), ".")
        print(f"{side}: (cd {tree} && python {shown})", file=out)
    print(f"{args.before_runs} runs each side, interleaved", file=out)
    print(
        "| figure | before, median | here, median | here / before, median | min | max |", file=out
    )
    print("|---|---|---|---|---|---|", file=out)
    for row in rows:
        ratio = row["ratio"]
        spread = (
            f"{ratio:.3f} | {row['min']:.3f} | {row['max']:.3f}"
            if ratio is not None
            else "- | - | -"
        )
        print(
            f"| {row['figure']} | {_shown(row['before'])} | {_shown(row['here'])} | {spread} |",
            file=out,
        )
    return {"runs": runs, "rows": rows}
