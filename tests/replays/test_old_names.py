"""Names recorded under an earlier name rule still re-judge as they were judged then.

``tests/data/old_names_people.jsonl`` was exported by a build whose name rule let fillers,
joiners and look-alike letters through (tests/data/old_names.md): its four seats are names the
rule refuses to a seat taken now, yet the file still loads, rule by rule and link by link.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from domain.commands import CreateMatch, TakeSeat
from domain.decide import decide
from domain.errors import InvalidNameError
from domain.events import SeatTaken
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.names import seat_name
from domain.state import INITIAL_STATE
from replays.audit import audit
from replays.errors import ReplayFileError
from replays.replay_reader import load_replay, parse_replay

OLD_FILE = Path(__file__).parent.parent / "data" / "old_names_people.jsonl"
OLD_NAMES = ["easy bot\u3164", "easy \u0299\u1d0f\u1d1b", "deleted player", "a\u034fb"]


def test_a_file_recorded_under_the_earlier_rule_still_loads_with_its_names() -> None:
    # given a replay file whose seats the rule for new seats refuses, one and all
    for name in OLD_NAMES:
        with pytest.raises(InvalidNameError):
            seat_name(name)

    # when it is read and re-judged (the chain, every rule, every name)
    replay = load_replay(OLD_FILE.read_bytes())

    # then it is accepted, with every seat under the name it was recorded with
    assert fold(r.event for r in replay.events).names == tuple(OLD_NAMES)
    assert audit(parse_replay(OLD_FILE.read_bytes()).events).ok


def test_a_new_seat_under_an_old_name_is_refused() -> None:
    # given a table waiting for its seats
    created = decide(
        INITIAL_STATE,
        CreateMatch(
            match_id="m-new",
            ruleset="classic",
            seats=2,
            secret=secret_from_text_seed("old-names/new"),
        ),
    )
    state = fold(created)
    for name in OLD_NAMES:
        # when a person asks for a seat under a name the earlier rule let through
        with pytest.raises(InvalidNameError):
            decide(state, TakeSeat(seat=0, name=name))


def _unchained_lines() -> list[dict[str, Any]]:
    """The file's lines without its chain, so that an edited name meets the rules first."""
    lines = [json.loads(line) for line in OLD_FILE.read_bytes().splitlines()]
    return [{k: v for k, v in line.items() if k not in ("chain", "sealed")} for line in lines]


@pytest.mark.parametrize("name", ["easy bot", "Am\x1b[31mal", "a\u200bb", "x\u202ey"])
def test_a_recorded_name_the_earlier_rule_refused_is_refused_at_its_line(name: str) -> None:
    # given the file with seat 1 recorded under a name no rule ever let through
    lines = _unchained_lines()
    lines[0]["players"][1] = name
    assert lines[3]["type"] == "seat_taken" and lines[3]["seat"] == 1
    lines[3]["name"] = name
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)

    # when it is read, then that seat's line is refused for its name
    with pytest.raises(ReplayFileError) as caught:
        load_replay(data)
    assert caught.value.line == 4
    assert "cannot take seat 1" in str(caught.value)


def test_every_seat_taken_in_the_old_file_is_a_person_by_name_only() -> None:
    # the file is what tests/data/old_names.md says: four people by name, no player ids
    seats = [r.event for r in parse_replay(OLD_FILE.read_bytes()).events]
    taken = [e for e in seats if isinstance(e, SeatTaken)]
    assert [e.name for e in taken] == OLD_NAMES
    assert all(not isinstance(e.player_id, str) for e in taken)
