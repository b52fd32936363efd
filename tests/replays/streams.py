"""Recorded streams for the replay tests: bot matches from text seeds, golden files, tampering."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from domain.commands import CreateMatch
from domain.events import CardPlayed, Event
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match
from replays.replay_reader import parse_replay

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
"""The golden replay files and their frames."""

RULESETS = ("classic", "egyptian", "lebanese", "yemeni", "jordanian")
"""The five rule sets, in the order docs/replay-format.md lists them."""

GOLDEN_NAMES = tuple(f"golden-{r}-{s}" for r in RULESETS for s in (2, 4))
"""Every golden match: each rule set at 2 and at 4 seats."""


@cache
def _bot_match(ruleset: str, seats: int, seed: str, bot_kind: str) -> tuple[Event, ...]:
    command = CreateMatch(
        match_id=f"m-{ruleset}-{seats}",
        ruleset=ruleset,
        seats=seats,
        secret=secret_from_text_seed(seed),
        bots=tuple(range(seats)),
        bot_kind=bot_kind,
    )
    events, _ = play_match(command)
    return tuple(events)


def bot_match(
    ruleset: str = "classic", seats: int = 2, seed: str = "replay-tests", bot_kind: str = "easy"
) -> list[RecordedEvent]:
    """A whole bot-only match, recorded with a time per event and its cause."""
    events = _bot_match(ruleset, seats, seed, bot_kind)
    return [
        RecordedEvent(
            seq=seq,
            at=f"2026-11-29T21:{seq // 60 % 60:02d}:{seq % 60:02d}.{seq:06d}Z",
            event=event,
            caused_by=f"bot:{event.seat}" if isinstance(event, CardPlayed) else "server",
            request_id=f"r-{seq}",
        )
        for seq, event in enumerate(events, 1)
    ]


def golden_bytes(name: str) -> bytes:
    """The bytes of a golden replay file."""
    return (GOLDEN / f"{name}.jsonl").read_bytes()


def golden_events(name: str) -> list[RecordedEvent]:
    """The recorded events of a golden replay file."""
    return list(parse_replay(golden_bytes(name)).events)


def first_seq(recorded: list[RecordedEvent], kind: type[Event], **fields: Any) -> int:
    """The seq of the first event of ``kind`` whose fields have the given values."""
    for item in recorded:
        if isinstance(item.event, kind) and all(
            getattr(item.event, k) == v for k, v in fields.items()
        ):
            return item.seq
    raise LookupError(f"no {kind.__name__} with {fields}")


def tampered(recorded: list[RecordedEvent], seq: int, **changes: Any) -> list[RecordedEvent]:
    """A copy of the stream with fields of the event at ``seq`` changed."""
    out = list(recorded)
    item = out[seq - 1]
    out[seq - 1] = replace(item, event=replace(item.event, **changes))
    return out


def swapped(recorded: list[RecordedEvent], seq: int) -> list[RecordedEvent]:
    """A copy of the stream with the events at ``seq`` and ``seq + 1`` in each other's place."""
    out = list(recorded)
    a, b = out[seq - 1], out[seq]
    out[seq - 1] = replace(a, event=b.event)
    out[seq] = replace(b, event=a.event)
    return out
