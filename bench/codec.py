"""Benchmark: encoding and decoding a stored row, the compact form against the JSON form.

Run: python -m bench codec [--matches 20] [--repeats 15]

Plays ``--matches`` seeded Classic 2-seat bot matches in memory (seeds ``codec-0``, …), records
their events with chain links as the service does, then, in one run and alternating, times the
store's mapper turning every event into a row and back: the compact form (what the store
writes and reads) and the JSON form (what earlier builds wrote; read now only by ``basra store
migrate``, through app.store.earlier). Microseconds per event,
median of ``--repeats`` passes over every event, and the bytes of a row's state. Results on
stdout.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from eventsourcing.persistence import StoredEvent

from app.store.earlier import decode_json_row
from app.store.mapper import EventMapper
from bench.before import Legacy, groups
from bench.options import Shared
from domain.chain import chained
from domain.commands import CreateMatch
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

SHARED = Shared(repeats=15, repeats_help="passes over every event (median)")
"""Passes over every event."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's table (bench/bench_codec.py)."""
    found: dict[str, float] = {}
    for form in ("compact", "json"):
        keys = [f"{form}/{key}" for key in ("state_bytes_per_event", "encode_us", "decode_us")]
        found |= groups(text, rf"^\| {form} \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", keys)
    return found


LEGACY = Legacy("bench.bench_codec", read_legacy, names={"repeats": "--repeats"})
"""The old script, bench/bench_codec.py, printed the same table."""


def streams(matches: int) -> list[RecordedEvent]:
    """Every recorded event of ``matches`` seeded bot matches, chained."""
    recorded: list[RecordedEvent] = []
    for number in range(matches):
        secret = secret_from_text_seed(f"codec-{number}")
        events, _ = play_match(
            CreateMatch(
                match_id=f"m-{number}", ruleset="classic", seats=2, secret=secret, bots=(0, 1)
            )
        )
        stream = [
            RecordedEvent(
                seq=seq,
                at=f"2026-12-02T10:{seq // 60 % 60:02d}:{seq % 60:02d}.{seq * 7 % 10**6:06d}Z",
                event=event,
                caused_by="server" if seq == 1 else f"bot:{seq % 2}",
            )
            for seq, event in enumerate(events, 1)
        ]
        recorded.extend(chained(stream, None, secret))
    return recorded


def _read_json_row(row: StoredEvent, match_id: str) -> RecordedEvent:
    """A row of the JSON form read back, as the migration reads it."""
    return decode_json_row(match_id, row.originator_version, row.topic, row.state)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--matches", type=int, default=20)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Time both forms, alternating, and print the medians."""
    events = streams(args.matches)
    mapper = EventMapper()
    forms = {"compact": mapper.to_stored_event, "json": mapper.to_json_stored_event}
    readers: dict[str, Callable[[StoredEvent, str], RecordedEvent]] = {
        "compact": mapper.to_recorded,
        "json": _read_json_row,
    }
    rows = {name: [encode("11", r) for r in events] for name, encode in forms.items()}
    for name in forms:  # both forms read back exactly what was written
        assert [readers[name](row, "m") for row in rows[name]] == events
    encode_us: dict[str, list[float]] = {name: [] for name in forms}
    decode_us: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(args.repeats):
        for name, encode in forms.items():
            started = time.perf_counter()
            for r in events:
                encode("11", r)
            encode_us[name].append((time.perf_counter() - started) / len(events) * 1e6)
            to_recorded = readers[name]
            started = time.perf_counter()
            for row in rows[name]:
                to_recorded(row, "m")
            decode_us[name].append((time.perf_counter() - started) / len(events) * 1e6)
    results: dict[str, Any] = {"events": len(events)}
    for name in forms:
        results[name] = {
            "state_bytes_per_event": sum(len(row.state) for row in rows[name]) / len(events),
            "encode_us": statistics.median(encode_us[name]),
            "decode_us": statistics.median(decode_us[name]),
        }
    print(f"{len(events)} events of {args.matches} Classic 2-seat matches, {args.repeats} passes")
    print("| form | state bytes per event | encode, us per event | decode, us per event |")
    print("| --- | --- | --- | --- |")
    for name in forms:
        r = results[name]
        print(
            f"| {name} | {r['state_bytes_per_event']:.1f} | {r['encode_us']:.2f} "
            f"| {r['decode_us']:.2f} |"
        )
    return results
