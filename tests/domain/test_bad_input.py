"""Bad input: each refusal is its own precise error under BasraError, and nothing changes."""

from __future__ import annotations

import pytest

from domain.commands import CreateMatch, LeaveMatch, PlayCard, TakeSeat
from domain.decide import decide
from domain.errors import (
    BasraError,
    CardNotInHandError,
    InvalidSeatCountError,
    InvalidSeatError,
    MatchAlreadyCreatedError,
    MatchEndedError,
    MatchNotStartedError,
    NotYourTurnError,
    UnknownRulesetError,
)
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.selfplay import play_match
from domain.state import INITIAL_STATE
from tests.domain.builders import created


def test_every_domain_error_is_a_basra_error_with_a_code() -> None:
    import domain.errors as errors

    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, BasraError) for c in classes)
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))


def test_a_play_out_of_turn_is_refused_and_changes_nothing() -> None:
    events, state = created()
    other = 1 - (state.turn or 0)
    with pytest.raises(NotYourTurnError):
        decide(state, PlayCard(other, state.hands[other][0]))
    assert fold(events) == state


def test_a_card_not_in_the_hand_is_refused() -> None:
    _, state = created()
    seat = state.turn or 0
    missing = next(c for c in state.hands[1 - seat])
    with pytest.raises(CardNotInHandError):
        decide(state, PlayCard(seat, missing))


def test_a_seat_out_of_range_is_refused() -> None:
    _, state = created()
    with pytest.raises(InvalidSeatError):
        decide(state, PlayCard(7, "AC"))


def test_a_play_after_the_match_ended_is_refused() -> None:
    _, state = play_match(
        CreateMatch("m", "classic", 2, secret_from_text_seed("end"), bots=(0, 1), bot_kind="random")
    )
    assert state.status == "ended"
    with pytest.raises(MatchEndedError):
        decide(state, PlayCard(0, "AC"))
    with pytest.raises(MatchEndedError):
        decide(state, LeaveMatch(0))


def test_a_play_before_the_seats_are_taken_is_refused() -> None:
    state = fold(decide(INITIAL_STATE, CreateMatch("m", "classic", 2, secret_from_text_seed("w"))))
    with pytest.raises(MatchNotStartedError):
        decide(state, PlayCard(0, "AC"))
    with pytest.raises(MatchNotStartedError):
        decide(INITIAL_STATE, PlayCard(0, "AC"))


def test_wrong_seat_count_and_unknown_ruleset_are_refused() -> None:
    with pytest.raises(InvalidSeatCountError):
        decide(INITIAL_STATE, CreateMatch("m", "classic", 3, secret_from_text_seed("x")))
    with pytest.raises(UnknownRulesetError):
        decide(INITIAL_STATE, CreateMatch("m", "cassino", 2, secret_from_text_seed("x")))


def test_a_match_is_created_once_and_bot_seats_must_be_seats() -> None:
    _, state = created()
    with pytest.raises(MatchAlreadyCreatedError):
        decide(state, CreateMatch("m", "classic", 2, secret_from_text_seed("x")))
    with pytest.raises(InvalidSeatError):
        decide(INITIAL_STATE, CreateMatch("m", "classic", 2, secret_from_text_seed("x"), bots=(2,)))
    with pytest.raises(BasraError):
        decide(
            INITIAL_STATE,
            CreateMatch("m", "classic", 2, secret_from_text_seed("x"), bot_kind="wise"),
        )


def test_a_seat_name_must_not_be_blank() -> None:
    state = fold(decide(INITIAL_STATE, CreateMatch("m", "classic", 2, secret_from_text_seed("w"))))
    with pytest.raises(BasraError):
        decide(state, TakeSeat(0, "   "))


def test_r26_leaving_forfeits_for_the_leavers_side_and_reveals_the_secret() -> None:
    _, state = created("classic", 4)
    ended = decide(state, LeaveMatch(2))[0]
    assert ended.winner == 1 and ended.reason == "forfeit"  # type: ignore[attr-defined]
    assert ended.seed == secret_from_text_seed("test").hex()  # type: ignore[attr-defined]
