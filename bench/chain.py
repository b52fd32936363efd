"""Benchmark: what the hash chain adds to an append on SQLite (docs/performance.md).

Run: python -m bench chain [--appends N] [--repeats R] [--sync FULL,NORMAL] [--dir DIR]

An append here is what one play command stores: the events of a real 2-seat bot match taken
two at a time (a play and the reply), one transaction each, on the store's SQLite file (WAL,
``synchronous`` as asked). Three timings per append, interleaved in every repeat in fresh files
in one folder, medians over every append of every repeat:

- ``plain``: ``MatchStore.append`` of the events without links (as before the chain);
- ``chained``: what the service does now: find the last stored link, link the events
  (``domain.chain.chained``), append them;
- ``chain only``: finding the last link (kept by the process after its own append, as
  ``MatchService`` keeps it) and linking the events, without the append;
- ``chain, last link read``: the same with the last link read from the store every time (one
  indexed read: a command after another process's append).

Results go to stdout as text; progress to stderr.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from app.service.chain_heads import ChainHeads
from app.store.match_store import MatchStore
from bench.before import Legacy, groups
from bench.harness import say
from bench.options import Shared
from domain.chain import chained
from domain.commands import CreateMatch
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

AT = "2026-11-30T12:00:00.000000Z"

SHARED = Shared(repeats=5, workdir=True)
"""Repeats (medians over every append of every repeat), and the folder of the files."""

MODES = ("plain", "chained", "chain", "read")
"""The timings of an append (see above), in the order they are printed."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's lines (bench/bench_chain.py)."""
    found: dict[str, float] = {}
    for sync in ("FULL", "NORMAL", "OFF"):
        pattern = (
            rf"synchronous={sync}: median per append: plain ([\d.]+) µs, chained ([\d.]+) µs.*"
            r"chain only ([\d.]+) µs.*last link read from the store ([\d.]+) µs"
        )
        found |= groups(text, pattern, [f"{sync}/{mode}_us" for mode in MODES])
    return found


LEGACY = Legacy("bench.bench_chain", read_legacy, names={"repeats": "--repeats", "dir": "--dir"})
"""The old script, bench/bench_chain.py, printed the same lines."""


def fresh(path: Path) -> Path:
    """``path`` with no file (nor WAL files) left from an earlier run."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def commands(n: int) -> list[tuple[str, bytes, list[RecordedEvent]]]:
    """n appends: (match id, secret, the events of one command), in stream order per match."""
    out: list[tuple[str, bytes, list[RecordedEvent]]] = []
    k = 0
    while len(out) < n:
        secret = secret_from_text_seed(f"bench-chain/{k}")
        match_id = f"c-{k}"
        events, _ = play_match(
            CreateMatch(match_id=match_id, ruleset="classic", seats=2, secret=secret, bots=(0, 1))
        )
        recorded = [
            RecordedEvent(seq=i, at=AT, event=e, caused_by="bot:0", request_id=f"req-{i // 2}")
            for i, e in enumerate(events, 1)
        ]
        out.extend((match_id, secret, recorded[i : i + 2]) for i in range(0, len(recorded), 2))
        k += 1
    return out[:n]


def head(store: MatchStore, heads: ChainHeads, match_id: str, seq: int) -> str | None:
    """The link of the stored event at ``seq``, as MatchService.chain_head finds it: from the
    links this process stored, else one indexed read."""
    if seq <= 0:
        return None
    known = heads.get(match_id, seq)
    if known is not None:
        return known.chain
    last = store.read(match_id, after_seq=seq - 1, upto_seq=seq)
    return last[0].chain if last else None


def run_mode(
    store: MatchStore, work: list[tuple[str, bytes, list[RecordedEvent]]], mode: str
) -> list[int]:
    """Nanoseconds of each append in ``mode``: ``plain``, ``chained``, ``chain`` (the chain
    work alone) or ``read`` (the chain work with the last link read from the store each time,
    as in another process)."""
    times: list[int] = []
    heads = ChainHeads()
    for match_id, secret, entries in work:
        start = time.perf_counter_ns()
        if mode == "plain":
            store.append(match_id, entries)
        else:
            if mode == "read":
                heads.discard(match_id)
            link = head(store, heads, match_id, entries[0].seq - 1)
            linked = chained(entries, link, secret)
            if mode == "chained":
                store.append(match_id, linked)
            heads.put(match_id, linked[-1].seq, linked[-1].chain)
        times.append(time.perf_counter_ns() - start)
    return times


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--appends", type=int, default=600)
    parser.add_argument("--sync", default="FULL,NORMAL")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the repeats, print medians and ratios."""
    folder = Path(args.dir or tempfile.mkdtemp(prefix="bench-chain-"))
    folder.mkdir(parents=True, exist_ok=True)
    work = commands(args.appends)
    events = sum(len(entries) for _, _, entries in work)
    print(
        f"{args.appends} appends ({events} events, {events / args.appends:.2f} an append),"
        f" {args.repeats} repeats, folder {folder}"
    )
    figures: dict[str, Any] = {"appends": args.appends, "events": events}
    try:
        for sync in args.sync.split(","):
            results: dict[str, list[int]] = {mode: [] for mode in MODES}
            for repeat in range(args.repeats):
                say(f"{sync}: repeat {repeat + 1}/{args.repeats}")
                for mode in ("plain", "chained"):
                    store = MatchStore.sqlite(fresh(folder / f"{mode}.db"), synchronous=sync)
                    try:
                        results[mode] += run_mode(store, work, mode)
                        if mode == "chained":  # the chain work alone, on the filled store
                            results["chain"] += run_mode(store, work, "chain")
                            results["read"] += run_mode(store, work, "read")
                    finally:
                        store.close()
            plain, full, chain, read = (statistics.median(results[m]) / 1000 for m in MODES)
            figures[sync] = {f"{m}_us": statistics.median(results[m]) / 1000 for m in MODES}
            print(
                f"synchronous={sync}: median per append: plain {plain:.1f} µs,"
                f" chained {full:.1f} µs ({100 * (full - plain) / plain:+.1f}%),"
                f" chain only {chain:.1f} µs ({100 * chain / plain:.1f}% of plain),"
                f" chain with the last link read from the store {read:.1f} µs"
                f" ({100 * read / plain:.1f}% of plain)"
            )
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    return figures
