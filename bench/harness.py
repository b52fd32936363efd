"""The benchmark harness: every benchmark by name, its options parsed once, its figures as text
or JSON, and side by side with another checkout (``--before DIR``).

    python -m bench                      # the benchmarks, one line each
    python -m bench NAME --help          # a benchmark's options
    python -m bench NAME [OPTIONS]       # run it: text on stdout (progress on stderr)
    python -m bench NAME --json          # its figures as JSON on stdout
    python -m bench NAME --before DIR    # both checkouts, interleaved: median ratios
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from bench.before import Legacy, compare
from bench.options import Shared, check_postgres, shared_parser

BENCHMARKS: dict[str, str] = {
    "api": "the HTTP API under load beside a one-row Litestar server: throughput, paced latency",
    "balance": "where a served closed loop's latency comes from: rate, processes, CPU, waits",
    "bytes": "bytes on disk per recorded match, and append and load latency, on both stores",
    "capture": "the R8 capture solver on adversarial, full and typical floors",
    "chain": "what the hash chain adds to an append on SQLite",
    "cli": "basra read commands as whole processes beside a bare interpreter",
    "clock": "how late turn deadlines fire on a real basra serve (R25)",
    "codec": "encoding and decoding a stored row: the compact form against the JSON form",
    "collector": "the garbage collector's pauses in a serving process under load",
    "follow": "a table followed in Chromium: view reads per play per viewer, play to other page",
    "games": "the lobby's games list and a profile on basra serve with 100,000 players",
    "growth": "a play's latency with 1,000 and with 100,000 stored matches",
    "live": "a play on one server process reaching an SSE feed held on another",
    "outage": "store calls while PostgreSQL is down, and how soon they succeed after",
    "pool": "time to pair in the rated pool with 100 and 1,000 players waiting",
    "race": "plays raced across two basra serve processes on PostgreSQL: does every match verify",
    "replay": "opening a 300-event match and jumping to any step; verify --all speed",
    "results": "the results projection over many finished matches; the results routes under load",
    "rules": "random self-play through decide and evolve, beside a plain mutable loop",
    "served": "a person's play through the API's play operation, on the in-memory store",
    "scale": "PostgreSQL commits, the store's appends and served plays, side by side",
    "store": "the event store on SQLite beside raw sqlite3: appends, loads, read-model rebuild",
    "tables": "N live tables at human pace: plays, pushes to every feed, CPU and RSS per feed",
    "support": "the support desk's search, player page and match page over 100,000 matches",
    "strong": "the strong bot's strength and speed against the easy bot and itself",
    "web": "the web pages in Chromium against basra serve: first loads, replay key presses",
}
"""Every benchmark (the module ``bench.NAME``) with its one-line description."""


class Benchmark(Protocol):
    """What a benchmark module holds."""

    SHARED: Shared
    LEGACY: Legacy | None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the benchmark's own options."""

    def run(self, args: argparse.Namespace) -> dict[str, Any]:
        """Measure, print the figures as text, and return them."""


def say(message: str) -> None:
    """Progress on stderr."""
    print(message, file=sys.stderr, flush=True)


def load(name: str) -> Benchmark:
    """The benchmark module ``name``."""
    module: Benchmark = importlib.import_module(f"bench.{name}")
    return module


def listing() -> str:
    """Usage and every benchmark with its description."""
    width = max(map(len, BENCHMARKS))
    lines = [(__doc__ or "").strip(), "", "benchmarks:"]
    lines += [f"  {name:<{width}}  {summary}" for name, summary in BENCHMARKS.items()]
    return "\n".join(lines)


def parser_for(name: str, benchmark: Benchmark) -> argparse.ArgumentParser:
    """The full parser of ``python -m bench NAME``: its own options and the shared ones."""
    parser = argparse.ArgumentParser(
        prog=f"python -m bench {name}",
        description=sys.modules[f"bench.{name}"].__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[shared_parser(benchmark.SHARED)],
    )
    benchmark.add_arguments(parser.add_argument_group(f"options of {name}"))  # type: ignore[arg-type]
    return parser


def run(name: str, argv: Sequence[str]) -> dict[str, Any]:
    """Run benchmark ``name`` with ``argv`` as ``python -m bench NAME ARGV`` does; its figures
    (with ``--before``: the comparison's runs and rows)."""
    benchmark = load(name)
    parser = parser_for(name, benchmark)
    args = parser.parse_args(list(argv))
    check_postgres(benchmark.SHARED, args, parser)
    if args.before is not None:
        _, own = shared_parser(benchmark.SHARED).parse_known_args(list(argv))
        return compare(name, benchmark.LEGACY, argv, own, args)
    if args.json:
        with contextlib.redirect_stdout(sys.stderr):
            return benchmark.run(args)
    return benchmark.run(args)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(listing())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in BENCHMARKS:
        print(f"no benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    results = run(name, rest)
    if "--json" in rest:
        print(json.dumps(results, indent=2, default=str))
    return 0
