"""Benchmark: encoding and decoding a stored row, the compact form against the JSON form.

Run: .venv/bin/python bench/bench_codec.py [--matches 20] [--repeats 15]

Plays ``--matches`` seeded Classic 2-seat bot matches in memory (seeds ``codec-0``, …), records
their events with chain links as the service does, then, in one run and alternating, times the
store's mapper turning every event into a row and back: the compact form (what the store
writes) and the JSON form (what earlier builds wrote, still read). Microseconds per event,
median of ``--repeats`` passes over every event, and the bytes of a row's state. Results on
stdout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.store.mapper import EventMapper
from domain.chain import chained
from domain.commands import CreateMatch
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match


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


def main() -> None:
    """Time both forms, alternating, and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    events = streams(args.matches)
    mapper = EventMapper()
    forms = {"compact": mapper.to_stored_event, "json": mapper.to_json_stored_event}
    rows = {name: [encode("11", r) for r in events] for name, encode in forms.items()}
    for name in forms:  # both forms read back exactly what was written
        assert [mapper.to_recorded(row, "m") for row in rows[name]] == events
    encode_us: dict[str, list[float]] = {name: [] for name in forms}
    decode_us: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(args.repeats):
        for name, encode in forms.items():
            started = time.perf_counter()
            for r in events:
                encode("11", r)
            encode_us[name].append((time.perf_counter() - started) / len(events) * 1e6)
            to_recorded = mapper.to_recorded
            started = time.perf_counter()
            for row in rows[name]:
                to_recorded(row, "m")
            decode_us[name].append((time.perf_counter() - started) / len(events) * 1e6)
    print(f"{len(events)} events of {args.matches} Classic 2-seat matches, {args.repeats} passes")
    print("| form | state bytes per event | encode, us per event | decode, us per event |")
    print("| --- | --- | --- | --- |")
    for name in forms:
        size = sum(len(row.state) for row in rows[name]) / len(events)
        print(
            f"| {name} | {size:.1f} | {statistics.median(encode_us[name]):.2f} "
            f"| {statistics.median(decode_us[name]):.2f} |"
        )


if __name__ == "__main__":
    main()
