"""R18a-R22: point cards, piles and the last pickup, most cards and the carry, winning."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.cards import DECK
from domain.commands import CreateMatch
from domain.decide import decide
from domain.errors import InvalidTargetError
from domain.events import MatchEnded, RoundScored
from domain.fairness import secret_from_text_seed
from domain.rulesets import RULESETS
from domain.scoring import match_result, score_round
from domain.state import INITIAL_STATE, MatchState
from tests.domain.builders import created

SIDE0_EXAMPLE = ("JS", "AH", "AC", "10D")


def piles_with(side0: tuple[str, ...], count0: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Side 0 holds ``side0`` plus plain cards up to ``count0``; side 1 holds the rest."""
    plain = [
        c for c in DECK if c not in side0 and c[:-1] not in ("A", "J") and c not in ("2C", "10D")
    ]
    pile0 = side0 + tuple(plain[: count0 - len(side0)])
    pile1 = tuple(c for c in DECK if c not in pile0)
    return pile0, pile1


def round_state(
    ruleset: str,
    piles: tuple[tuple[str, ...], ...],
    basra: tuple[int, int] = (0, 0),
    carry: int = 0,
    totals: tuple[int, int] = (0, 0),
) -> MatchState:
    _, state = created(ruleset, 2)
    return replace(
        state, piles=piles, pile_basra=basra, floor=(), carry=carry, totals=totals, last_capturer=0
    )


def test_r20_r21_worked_example_56_points_and_its_egyptian_50() -> None:
    # Given side 0 took 28 cards with J♠, A♥, A♣, 10♦ and two Basras
    piles = piles_with(SIDE0_EXAMPLE, 28)
    classic = score_round(round_state("classic", piles, (20, 0)), RULESETS["classic"])
    egyptian = score_round(round_state("egyptian", piles, (20, 0)), RULESETS["egyptian"])
    # Then Classic scores 30 + 6 + 20 and Egyptian 30 + 20
    assert classic.sides[0].total == 56
    assert (classic.sides[0].majority, classic.sides[0].points, classic.sides[0].basra) == (
        30,
        6,
        20,
    )
    assert egyptian.sides[0].total == 50


def test_r18a_point_cards_add_to_13_a_round() -> None:
    scored = score_round(round_state("classic", piles_with((), 30)), RULESETS["classic"])
    assert scored.sides[0].points + scored.sides[1].points == 13


def test_r19_last_pickup_goes_to_the_last_capturer_and_counts_as_cards() -> None:
    pile0, pile1 = piles_with((), 24)
    floor = pile1[:4]
    state = replace(round_state("classic", (pile0, pile1[4:])), floor=floor, last_capturer=0)
    scored = score_round(state, RULESETS["classic"])
    assert scored.last_pickup is not None and scored.last_pickup.cards == floor
    assert scored.sides[0].cards == 28 and scored.sides[0].majority == 30


@pytest.mark.parametrize("ruleset", ["classic", "egyptian", "yemeni", "jordanian"])
def test_r20_a_26_26_tie_carries_the_award_to_the_next_majority(ruleset: str) -> None:
    tie = piles_with((), 26)
    first = score_round(round_state(ruleset, tie), RULESETS[ruleset])
    assert first.sides[0].majority == first.sides[1].majority == 0 and first.carry == 30
    second = score_round(round_state(ruleset, tie, carry=first.carry), RULESETS[ruleset])
    assert second.carry == 60
    won = score_round(round_state(ruleset, piles_with((), 20), carry=60), RULESETS[ruleset])
    assert won.sides[1].majority == 90 and won.carry == 0


def test_r16_r20_lebanese_majority_is_3_and_a_tie_carries_nothing() -> None:
    tie = score_round(round_state("lebanese", piles_with((), 26)), RULESETS["lebanese"])
    assert tie.carry == 0 and tie.sides[0].majority == 0
    won = score_round(round_state("lebanese", piles_with((), 27)), RULESETS["lebanese"])
    assert won.sides[0].majority == 3


def test_r20_a_carry_pending_at_the_end_is_lost() -> None:
    _, state = created("classic", 2, target=10)
    scored = score_round(
        round_state("classic", piles_with((), 26), totals=(0, 0)), RULESETS["classic"]
    )
    # The tie round still pushes both past 10 with point cards; the carry is not paid out.
    assert state.setup is not None
    ended = match_result(scored, 1, state.setup)
    assert ended is not None and ended.totals == scored.totals
    assert sum(s.majority for s in scored.sides) == 0


def setup_with(target: int):  # type: ignore[no-untyped-def]
    _, state = created("classic", 2, target=target)
    assert state.setup is not None
    return state.setup


def scored(totals: tuple[int, int]) -> RoundScored:
    return RoundScored(round=1, last_pickup=None, sides=(), carry=0, totals=totals)


def test_r22_one_side_at_the_target_wins() -> None:
    ended = match_result(scored((101, 80)), 3, setup_with(101))
    assert isinstance(ended, MatchEnded) and ended.winner == 0 and ended.reason == "target"


def test_r22_both_past_the_target_the_higher_wins() -> None:
    ended = match_result(scored((120, 130)), 3, setup_with(101))
    assert ended is not None and ended.winner == 1


def test_r22_level_past_the_target_plays_another_round() -> None:
    assert match_result(scored((110, 110)), 3, setup_with(101)) is None


def test_r22_round_30_ends_the_match_higher_wins_or_draw() -> None:
    win = match_result(scored((50, 40)), 30, setup_with(101))
    draw = match_result(scored((50, 50)), 30, setup_with(101))
    assert win is not None and win.winner == 0 and win.reason == "round_limit"
    assert draw is not None and draw.winner is None
    assert match_result(scored((50, 40)), 29, setup_with(101)) is None


def test_r22_match_end_reveals_the_secret() -> None:
    ended = match_result(scored((101, 0)), 2, setup_with(101))
    assert ended is not None and ended.seed == secret_from_text_seed("test").hex()


@pytest.mark.parametrize(
    ("ruleset", "target"),
    [("classic", 101), ("egyptian", 121), ("lebanese", 101), ("yemeni", 101), ("jordanian", 101)],
)
def test_r22_default_targets(ruleset: str, target: int) -> None:
    _, state = created(ruleset, 2)
    assert state.setup is not None and state.setup.target == target


@pytest.mark.parametrize("target", [0, -5, 1001])
def test_r22_target_override_must_be_1_to_1000(target: int) -> None:
    with pytest.raises(InvalidTargetError):
        decide(
            INITIAL_STATE, CreateMatch("m", "classic", 2, secret_from_text_seed("t"), target=target)
        )


def test_r22_target_override_is_kept() -> None:
    _, state = created("classic", 2, target=7)
    assert state.setup is not None and state.setup.target == 7
