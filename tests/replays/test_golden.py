"""Golden replay files: the same seeds still make the same matches, and they render the same."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from replays.cursor import MatchCursor
from replays.replay_file import write_replay
from tests.replays.streams import GOLDEN, GOLDEN_NAMES, golden_bytes, golden_events


def _maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _maker()


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_the_seed_still_makes_the_golden_match_byte_for_byte(name: str) -> None:
    # given the golden match's rule set, seats and fixed seed (R6)
    _, ruleset, seats = name.split("-")
    # when it is played again through the rules
    recorded, state = MAKER.play_golden(ruleset, int(seats))
    # then the replay file is the golden one, byte for byte
    assert write_replay(recorded, state.names) == golden_bytes(name)


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_the_golden_frames_render_the_same(name: str) -> None:
    recorded = golden_events(name)
    expected = (GOLDEN / f"{name}.frames.txt").read_text(encoding="utf-8")
    assert MAKER.frames_text(recorded) == expected
    # and every position of the match renders (no position is left unrenderable)
    cursor = MatchCursor(recorded)
    for seq in range(1, cursor.last_seq + 1, 17):
        cursor.position(seq)
