"""R7-R13 as plays: sums, ranks, queens and kings, the Jack, the Komi, trailing, floor order."""

from __future__ import annotations

import pytest

from domain.commands import PlayCard
from domain.decide import decide
from domain.events import CardPlayed
from tests.domain.builders import apply, position


def play(ruleset: str, floor: list[str], card: str, **kw: object) -> CardPlayed:
    """Given ``floor`` and ``card`` in seat 0's hand, when seat 0 plays it, then this event."""
    state = position(ruleset, hands=[[card, "KH"], ["QC", "QD"]], floor=floor, **kw)  # type: ignore[arg-type]
    event = decide(state, PlayCard(0, card))[0]
    assert isinstance(event, CardPlayed)
    return event


def test_r8_worked_example_nine_takes_rank_and_two_sums_leaving_the_king() -> None:
    e = play("classic", ["9S", "5H", "4D", "KS", "6C", "3H"], "9D")
    assert e.captured == ("9S", "5H", "4D", "6C", "3H")
    assert sorted(map(sorted, e.groups)) == sorted(
        map(sorted, [["9S"], ["5H", "4D"], ["6C", "3H"]])
    )
    assert e.basra == 0


def test_r8_worked_example_ten_takes_the_ten_and_four_plus_six_leaving_the_three() -> None:
    e = play("classic", ["4S", "6H", "10C", "3D"], "10H")
    assert e.captured == ("4S", "6H", "10C")
    assert e.basra == 0


def test_r7_ace_counts_one_in_sums() -> None:
    e = play("classic", ["AS", "4D", "KC"], "5H")
    assert e.captured == ("AS", "4D")


def test_r7_r9_faces_are_never_part_of_a_sum() -> None:
    e = play("classic", ["QS", "10D", "AC"], "10H")
    assert e.captured == ("10D",)


def test_r8_most_cards_beats_fewer() -> None:
    # 8 could take 8 alone? no 8 here: 5+3 (2 cards) versus 4+2+2 (3 cards); disjoint use: 5,3,4,2,2
    # gives 16 = two groups (5+3, 4+2+2): all five.
    e = play("classic", ["5S", "3D", "4C", "2H", "2S"], "8H")
    assert set(e.captured) == {"5S", "3D", "4C", "2H", "2S"}


def test_r8_tie_break_points_then_earliest() -> None:
    # Two single-card hauls of equal size are impossible for a number; use sums:
    # 6 on [4S, 2C, 2H, 4D]: groups 4+2 twice take all four; make it choose with a spare 2.
    e = play("classic", ["4S", "2H", "2C"], "6D")
    # Only one 4: 4+2 is the only group, 2C (2 points) beats 2H (0): criterion 2.
    assert e.captured == ("4S", "2C")
    e = play("classic", ["4S", "2H", "2D"], "6D")
    # Same points: the earlier 2 wins: criterion 3.
    assert e.captured == ("4S", "2H")


def test_r9_queen_takes_every_queen_and_nothing_else() -> None:
    e = play("classic", ["QS", "2H", "QH", "KD"], "QD")
    assert e.captured == ("QS", "QH") and e.basra == 0


def test_r9_king_with_no_king_on_the_floor_trails() -> None:
    e = play("classic", ["QS", "2H"], "KD")
    assert e.captured == ()


def test_r10_jack_takes_the_whole_floor_faces_and_jacks_included() -> None:
    e = play("classic", ["QS", "JH", "7D", "3C"], "JD")
    assert e.captured == ("QS", "JH", "7D", "3C") and e.sweep and e.basra == 0


def test_r10_jack_on_an_empty_floor_stays() -> None:
    state = position("classic", hands=[["JD", "KH"], ["QC", "QD"]], floor=[])
    event = decide(state, PlayCard(0, "JD"))[0]
    assert isinstance(event, CardPlayed) and event.captured == ()
    assert apply(state, [event]).floor == ("JD",)


def test_r10_a_jack_on_the_floor_is_never_taken_by_a_number() -> None:
    e = play("classic", ["JH", "5S"], "5D")
    assert e.captured == ("5S",) and e.basra == 0


def test_r11_komi_sweeps_in_classic() -> None:
    e = play("classic", ["QS", "9H", "3C"], "7D")
    assert e.captured == ("QS", "9H", "3C") and e.sweep


def test_r11_komi_on_the_floor_is_an_ordinary_seven() -> None:
    e = play("classic", ["7D", "4S", "3H"], "7C")
    assert set(e.captured) == {"7D", "4S", "3H"}
    e = play("classic", ["7D", "QS"], "JS")
    assert e.captured == ("7D", "QS")


def test_r11_r16_the_komi_is_a_plain_seven_in_lebanese() -> None:
    e = play("lebanese", ["QS", "4H", "3C", "9D"], "7D")
    assert e.captured == ("4H", "3C") and not e.sweep


def test_r12_a_card_that_takes_nothing_goes_to_the_end_and_captures_keep_order() -> None:
    state = position("classic", hands=[["KD", "2S"], ["QC", "QD"]], floor=["9H", "3C", "5S"])
    state = apply(state, decide(state, PlayCard(0, "KD")))
    assert state.floor == ("9H", "3C", "5S", "KD")
    state = position("classic", hands=[["2S", "KH"], ["QC", "QD"]], floor=["9H", "2C", "5S", "KD"])
    state = apply(state, decide(state, PlayCard(0, "2S")))
    assert state.floor == ("9H", "5S", "KD")


def test_r13_any_card_may_be_played_even_when_another_would_capture() -> None:
    state = position("classic", hands=[["KD", "9S"], ["QC", "QD"]], floor=["9H"])
    events = decide(state, PlayCard(0, "KD"))
    assert isinstance(events[0], CardPlayed) and events[0].captured == ()


@pytest.mark.parametrize("card", ["JS", "7D"])
def test_r10_r11_a_sweep_on_an_empty_floor_is_a_trail(card: str) -> None:
    state = position("classic", hands=[[card, "KH"], ["QC", "QD"]], floor=[])
    event = decide(state, PlayCard(0, card))[0]
    assert isinstance(event, CardPlayed) and event.captured == () and not event.sweep
