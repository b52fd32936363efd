"""Writes the golden compact rows: ``python tests/data/golden/make_compact_rows.py``.

Each line of ``compact_rows.jsonl`` is one recorded event (as JSON, its event tagged) with the
topic and the state bytes (hex) of its stored row in the compact form, as the encoder that
wrote every compact row up to now wrote them (the one that generated Python source for each
kind; run at commit 3e8301d). ``tests/app/store/test_compact_golden.py`` checks that today's
encoder writes these very bytes and that they decode back to the same events, so the form can
never drift. The events come from:

- the golden replay files of every rule set at 2 and 4 seats (people, bots, a clock expiry,
  chain links), and whole bot matches of every rule set with each bot kind and table setting;
- the three fixture stores in tests/data (rows of every earlier form, decoded);
- every event kind with each of its defaulted fields as the last one set (with the fields
  before it all at their defaults, and all set), which is where a stored array ends;
- Hypothesis's derandomized examples of any recorded event (times, digests, texts).

Never rerun it against a changed encoder: its value is that it captured the bytes before.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings

HERE = Path(__file__).parent
ROOT = HERE.parent.parent.parent
sys.path.insert(0, str(ROOT))

from app.store.compact import encode_compact  # noqa: E402
from app.store.decoding import decode_row  # noqa: E402
from domain.commands import CreateMatch  # noqa: E402
from domain.events import (  # noqa: E402
    EVENT_TYPES,
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    LastPickup,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    SideScore,
)
from domain.fairness import secret_from_text_seed  # noqa: E402
from domain.recorded import RecordedEvent  # noqa: E402
from domain.selfplay import play_match  # noqa: E402
from replays.replay_reader import parse_replay  # noqa: E402

RULESETS = ("classic", "egyptian", "lebanese", "yemeni", "jordanian")
UNSET = msgspec.UNSET


def replay_events() -> list[RecordedEvent]:
    """Every event of the golden replay files."""
    found: list[RecordedEvent] = []
    for path in sorted(HERE.glob("golden-*.jsonl")):
        found.extend(parse_replay(path.read_bytes()).events)
    return found


def bot_match_events() -> list[RecordedEvent]:
    """Whole bot matches of every rule set and table size, each bot kind and setting."""
    found: list[RecordedEvent] = []
    variants: list[dict[str, Any]] = [
        {"bot_kind": "easy"},
        {"bot_kind": "random", "private": True, "spectators": False},
        {"bot_kind": "strong", "bot_budget": 4, "server_turn_seconds": 30},
        {"bot_kinds": {1: "random"}, "rematch_of": "m-before", "turn_seconds": 20},
    ]
    for ruleset in RULESETS:
        for seats in (2, 4):
            for k, options in enumerate(variants):
                if options.get("bot_kind") == "strong" and (seats == 4 or ruleset != "classic"):
                    continue  # the strong bot is slow: one match of it is enough
                match_id = f"m-{ruleset}-{seats}-{k}"
                events, _ = play_match(
                    CreateMatch(
                        match_id=match_id,
                        ruleset=ruleset,
                        seats=seats,
                        secret=secret_from_text_seed(f"compact-golden/{match_id}"),
                        bots=tuple(range(seats)),
                        **options,
                    )
                )
                for n, event in enumerate(events, 1):
                    micros = n * 7919 % 10**6
                    found.append(
                        RecordedEvent(
                            seq=n,
                            at=f"2026-12-04T10:{n // 60 % 60:02d}:{n % 60:02d}.{micros:06d}Z",
                            event=event,
                            caused_by="server" if n == 1 else f"bot:{n % seats}",
                            request_id=f"req-{k}" if k % 2 else None,
                            chain=secret_from_text_seed(f"link/{match_id}/{n}").hex(),
                        )
                    )
    return found


def fixture_events() -> list[RecordedEvent]:
    """Every event row of the fixture stores, decoded as today's reader decodes it."""
    found: list[RecordedEvent] = []
    for name in ("store_fixture_v1.db", "store_fixture_v2.db", "old_names.db"):
        connection = sqlite3.connect(f"{(HERE.parent / name).as_uri()}?mode=ro", uri=True)
        try:
            rows = connection.execute(
                "SELECT originator_id, originator_version, topic, state FROM stored_events"
                " ORDER BY rowid"
            ).fetchall()
        finally:
            connection.close()
        found.extend(decode_row(str(o), int(v), str(t), bytes(s)) for o, v, t, s in rows)
    return found


SET_VALUES: dict[type[Event], dict[str, Any]] = {
    MatchCreated: {
        "bots": (1,),
        "bot_kind": "random",
        "origin": "m-origin",
        "turn_seconds": 45,
        "private": False,
        "spectators": True,
        "rematch_of": "m-first",
        "bot_kinds": {"1": "strong"},
        "bot_budget": 8,
        "bot_logic": 2,
        "reserved": ("p-1", None),
    },
    SeatTaken: {
        "token_id": "t0",
        "token_hash": "ab" * 32,
        "player_id": "p-" + "1" * 32,
        "client_seed": "seed-0",
    },
    FloorDealt: {"deadline": "2026-12-04T10:00:30.000000Z"},
    CardPlayed: {
        "groups": (("3S",), ("3H", "AC")),
        "sweep": True,
        "auto": True,
        "deadline": "2026-12-04T10:00:30.000000Z",
    },
    MatchEnded: {"seed": "cd" * 32, "seat": 1},
}
"""A value other than its default for each defaulted field of each kind."""

REQUIRED: dict[type[Event], dict[str, Any]] = {
    MatchCreated: {
        "match_id": "m-1",
        "ruleset": "classic",
        "seats": 2,
        "target": 101,
        "secret": None,
        "client_seeds": ("", ""),
        "commitment": "ef" * 32,
    },
    SeatTaken: {"seat": 0, "name": "amira"},
    RoundStarted: {"round": 1, "dealer": 0},
    CardsDealt: {"round": 1, "deal": 1, "hands": (("AS", "2S"), None)},
    FloorDealt: {"round": 1, "cards": ("3S", "4D"), "reburied": ("JC",)},
    CardPlayed: {"seat": 1, "card": "3D", "captured": ("3S",), "basra": 0},
    RoundScored: {
        "round": 2,
        "last_pickup": LastPickup(side=0, cards=("QH",)),
        "sides": (SideScore(12, 3, 4, 10, 29), SideScore(0, 0, 1, 0, 1)),
        "carry": 0,
        "totals": (29, 1),
    },
    MatchEnded: {"winner": 0, "reason": "target", "totals": (101, 12)},
    RematchCreated: {"match_id": "m-2"},
}
"""The fields without defaults of each kind."""


def layout_events() -> list[RecordedEvent]:
    """Every kind with each defaulted field as the last one set, the others before it either all
    at their defaults or all set; and with every field at its default."""
    found: list[RecordedEvent] = []
    for cls in EVENT_TYPES:
        defaulted = list(SET_VALUES.get(cls, {}))
        choices: list[dict[str, Any]] = [{}]
        for i, name in enumerate(defaulted):
            choices.append({name: SET_VALUES[cls][name]})
            choices.append({n: SET_VALUES[cls][n] for n in defaulted[: i + 1]})
        for k, chosen in enumerate(choices):
            event = cls(**REQUIRED[cls], **chosen)
            found.append(RecordedEvent(seq=k + 1, at="2026-12-04T10:00:00.000001Z", event=event))
    found.append(
        RecordedEvent(
            seq=3,
            at="2026-12-04T10:00:00.000001Z",
            event=RoundScored(round=3, last_pickup=None, sides=(), carry=1, totals=()),
        )
    )
    return found


def hypothesis_events() -> list[RecordedEvent]:
    """Derandomized examples of any recorded event (the compact form's own test strategy)."""
    from tests.app.store.test_compact import RECORDED

    found: list[RecordedEvent] = []

    @settings(
        max_examples=600,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(RECORDED)
    def collect(recorded: RecordedEvent) -> None:
        found.append(recorded)

    collect()
    return found


PER_SHAPE = 3
"""At most this many rows of one shape are kept (the file stays small)."""


def _shape(value: Any) -> Any:
    """What a value is, as far as where and how it is stored goes."""
    if value is UNSET or value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return "str" if value else ""
    if isinstance(value, int):
        return "int"
    if isinstance(value, tuple):
        return tuple(_shape(v) for v in value[:2]) + (len(value) > 2,)
    if isinstance(value, dict):
        return ("dict", len(value))
    if isinstance(value, msgspec.Struct):
        return (type(value).__name__, *(_shape(v) for v in msgspec.structs.astuple(value)))
    return type(value).__name__


def _text_shape(value: str | None) -> Any:
    if value is None:
        return None
    return (len(value), value == value.lower(), value.endswith("Z"))


def signature(recorded: RecordedEvent) -> tuple[Any, ...]:
    """The shape of a recorded event: its kind, each field's kind of value, the trail's forms."""
    return (
        _shape(recorded.event),
        _text_shape(recorded.at),
        recorded.caused_by is None,
        recorded.request_id is None,
        _text_shape(recorded.chain),
        _text_shape(recorded.sealed),
    )


def main() -> None:
    """Write compact_rows.jsonl beside this script."""
    events = (
        replay_events()
        + bot_match_events()
        + fixture_events()
        + layout_events()
        + hypothesis_events()
    )
    lines: list[bytes] = []
    seen: dict[tuple[Any, ...], int] = {}
    for recorded in events:
        topic, state = encode_compact(recorded)
        shape = signature(recorded)
        if seen.get(shape, 0) >= PER_SHAPE:
            continue
        seen[shape] = seen.get(shape, 0) + 1
        line = msgspec.json.encode({"recorded": recorded, "topic": topic, "state": state.hex()})
        lines.append(line)
    (HERE / "compact_rows.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    print(f"wrote {len(lines)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
