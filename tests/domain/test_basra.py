"""R14-R18: which clears are Basras, and what they are worth, in each rule set."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.commands import PlayCard
from domain.decide import decide
from domain.events import CardPlayed, CardsDealt, RoundStarted
from tests.domain.builders import apply, position


def basra(
    ruleset: str, floor: list[str], card: str, trail_pair: tuple[str, str] | None = None
) -> int:
    """Basra points when seat 0 plays ``card`` onto ``floor``."""
    state = position(
        ruleset, hands=[[card, "KH"], ["QC", "QD"]], floor=floor, trail_pair=trail_pair
    )
    event = decide(state, PlayCard(0, card))[0]
    assert isinstance(event, CardPlayed)
    return event.basra


@pytest.mark.parametrize(
    ("floor", "card", "points"),
    [
        (["5S"], "5H", 10),  # a lone card taken by its rank
        (["3S", "2D"], "5H", 10),  # a sum that clears the floor
        (["QS", "QH"], "QD", 10),  # a queen clearing queens
        (["KS"], "KD", 10),
        (["5S", "KD"], "5H", 0),  # the king stays: no clear
        (["JH"], "JS", 0),  # R14: a Jack's sweep is never a Basra
        (["3S", "4D", "2C"], "7D", 10),  # R14: Komi on numbers adding to 9
        (["3S", "4D", "3C"], "7D", 10),  # ... to exactly 10
        (["3S", "4D", "4C"], "7D", 0),  # ... to 11: a sweep, no Basra
        (["3S", "QD"], "7D", 0),  # ... with a queen: no Basra
    ],
)
def test_r14_classic_basras(floor: list[str], card: str, points: int) -> None:
    assert basra("classic", floor, card) == points


def test_r14_a_basra_with_the_last_card_of_the_round_counts_and_the_pickup_is_never_one() -> None:
    # Given the very last card of a round in seat 1's hand and a floor it clears
    state = position("classic", hands=[[], ["5H"]], floor=["2S", "3D"], turn=1, stock=[])
    events = decide(state, PlayCard(1, "5H"))
    played, scored = events[0], events[1]
    assert isinstance(played, CardPlayed) and played.basra == 10
    assert scored.last_pickup is None  # type: ignore[attr-defined]
    assert scored.sides[1].basra == 10  # type: ignore[attr-defined]


def test_r14_r19_the_end_of_round_pickup_is_not_a_basra() -> None:
    # Given side 0 captured last and seat 1 trails the round's last card
    state = replace(
        position("classic", hands=[[], ["KH"]], floor=["2S", "3D"], turn=1, stock=[]),
        last_capturer=0,
    )
    # When it is played, then the floor goes to side 0 without a Basra
    events = decide(state, PlayCard(1, "KH"))
    scored = events[1]
    assert scored.last_pickup.side == 0  # type: ignore[attr-defined]
    assert scored.last_pickup.cards == ("2S", "3D", "KH")  # type: ignore[attr-defined]
    assert scored.sides[0].basra == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("floor", "card", "points"),
    [
        (["JH"], "JS", 20),
        (["JH", "2C"], "JS", 0),
        (["2C"], "JS", 0),
        (["5S"], "5H", 10),
        (["3S", "4D"], "7D", 10),
    ],
)
def test_r15_egyptian_jack_basra_is_twenty_on_a_lone_jack(
    floor: list[str], card: str, points: int
) -> None:
    assert basra("egyptian", floor, card) == points


@pytest.mark.parametrize(
    ("floor", "card", "trail_pair", "points"),
    [
        (["5S"], "5H", None, 10),  # (a) lone card by its rank
        (["QS"], "QH", None, 10),
        (["JH"], "JS", None, 10),  # (a) a Jack on a lone Jack counts
        (["5S"], "JS", None, 0),  # a Jack on a lone non-Jack does not
        (["2S", "3D"], "5H", None, 0),  # a bigger floor cleared without the trail setup
        (["2S", "3D"], "5H", ("2S", "3D"), 10),  # (b) lone 2, 3 trailed, 5 takes both as one sum
        (["2S", "3D"], "JC", ("2S", "3D"), 0),  # a Jack's sweep of those two is no Basra
        (["5S", "5D"], "5H", ("5S", "5D"), 0),  # two groups, not one sum
        (["3S", "4D"], "7D", ("3S", "4D"), 10),  # the 7♦ is a plain 7: a sum of 3 + 4
        (["2S", "3D", "4C"], "9H", None, 0),  # no other clear is a Basra
    ],
)
def test_r16_lebanese_basras(
    floor: list[str], card: str, trail_pair: tuple[str, str] | None, points: int
) -> None:
    assert basra("lebanese", floor, card, trail_pair) == points


def test_r16_lebanese_trailed_pair_survives_a_new_deal_but_not_a_new_round() -> None:
    # Given a lone 2 and seat 0 trailing a 3 beside it with its last card
    state = position(
        "lebanese", hands=[["3D"], []], floor=["2S"], stock=["5H", "KD", "9C", "8C", "KS", "QS"] * 1
    )
    state = replace(state, in_hands=1)
    events = decide(state, PlayCard(0, "3D"))
    state = apply(state, events)
    # When a new deal comes between the trail and the capture
    assert any(isinstance(e, CardsDealt) for e in events)
    assert state.trail_pair == ("2S", "3D")
    # Then the setup still stands; a new round clears it
    assert apply(state, [RoundStarted(round=2, dealer=0)]).trail_pair is None


def test_r16_the_trailed_pair_is_remembered_only_after_a_lone_card() -> None:
    state = position("lebanese", hands=[["3D", "KS"], ["QC", "QD"]], floor=["2S", "9H"])
    state = apply(state, decide(state, PlayCard(0, "3D")))
    assert state.trail_pair is None
    state = position("lebanese", hands=[["3D", "KS"], ["QC", "QD"]], floor=["2S"])
    state = apply(state, decide(state, PlayCard(0, "3D")))
    assert state.trail_pair == ("2S", "3D")


@pytest.mark.parametrize(
    ("floor", "points"),
    [
        (["AS", "2D", "7C", "8H"], 10),  # (iii) the worked example: 1 + 8 = 2 + 7 = 9
        (["3S", "4D"], 10),  # (i) under 10
        (["3S", "4D", "3C"], 0),  # exactly 10 in one group only: no
        (["5S", "5D"], 10),  # (iii) 5 = 5
        (["10S", "QD", "KH"], 10),  # (ii) only 10s, queens and kings
        (["10S"], 10),
        (["10S", "3D"], 0),
        (["JH"], 0),
        (["4S", "4D", "4H"], 10),  # (iii) three groups of 4
    ],
)
def test_r17_yemeni_komi_basra_cases(floor: list[str], points: int) -> None:
    assert basra("yemeni", floor, "7D") == points


def test_r17_yemeni_jack_basra_is_twenty_on_a_lone_jack() -> None:
    assert basra("yemeni", ["JH"], "JS") == 20
    assert basra("yemeni", ["JH", "QS"], "JS") == 0


@pytest.mark.parametrize(
    ("floor", "card", "points"),
    [
        (["AS"], "AH", 2),
        (["7S"], "7H", 14),
        (["10S"], "10H", 20),
        (["QS"], "QH", 20),
        (["KS"], "KH", 20),
        (["3S", "4D"], "7D", 14),
        (["3S", "4D", "4C"], "7D", 0),
        (["JH"], "JS", 0),
    ],
)
def test_r18_jordanian_basra_is_twice_the_card(floor: list[str], card: str, points: int) -> None:
    assert basra("jordanian", floor, card) == points


def test_r18_worked_example_a_seven_and_a_queen_basra_make_34() -> None:
    # Given two Basras by side 0 in one round: a 7 and a queen
    state = position("jordanian", hands=[["7H", "QH"], ["KC", "KD"]], floor=["7S"])
    state = apply(state, decide(state, PlayCard(0, "7H")))
    state = apply(state, decide(state, PlayCard(1, "KC")))
    state = replace(state, floor=("QS",))
    state = apply(state, decide(state, PlayCard(0, "QH")))
    assert state.pile_basra[0] == 34
