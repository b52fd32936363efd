"""Bots: the easy bot sees only its seat's view; the random bot repeats from the match seed."""

from __future__ import annotations

import inspect

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.bots import EasyBot, RandomBot
from domain.commands import CreateMatch
from domain.fairness import deal_key, secret_from_text_seed
from domain.selfplay import play_match
from domain.views import SeatView, seat_view
from tests.domain.builders import created, position


def test_the_easy_bot_decides_from_a_seat_view_alone() -> None:
    hints = inspect.signature(EasyBot.choose).parameters
    assert list(hints) == ["self", "view"]
    assert "SeatView" in str(hints["view"].annotation)


def test_the_easy_bot_takes_a_basra_when_it_has_one() -> None:
    state = position("classic", hands=[["KH", "9D", "5H"], ["QC", "QD"]], floor=["2S", "3D"])
    assert EasyBot().choose(seat_view(state, 0)) == "5H"


def test_the_easy_bot_keeps_its_jack_for_a_loaded_floor() -> None:
    state = position("classic", hands=[["JH", "KS"], ["QC", "QD"]], floor=["2S"])
    assert EasyBot().choose(seat_view(state, 0)) == "KS"


def test_the_easy_bot_does_not_leave_a_lone_card_when_it_can_avoid_it() -> None:
    # Given a 9 that would take the 9 and leave the 5 alone for the next player's Basra
    state = position("classic", hands=[["9D", "KS"], ["QC", "QD"]], floor=["9S", "5C"])
    # Then the easy bot trails its king instead
    assert EasyBot().choose(seat_view(state, 0)) == "KS"
    # And with a queen on the floor the 5 is not alone, so it takes the 9
    state = position("classic", hands=[["9D", "KS"], ["QC", "QD"]], floor=["9S", "5C", "QH"])
    assert EasyBot().choose(seat_view(state, 0)) == "9D"


@settings(max_examples=20, deadline=None)
@given(st.text(max_size=8), st.sampled_from([2, 4]))
def test_the_easy_bot_always_plays_a_card_of_its_hand(seed: str, seats: int) -> None:
    _, state = created("classic", seats, seed=seed)
    for seat in range(seats):
        view: SeatView = seat_view(state, seat)
        assert EasyBot().choose(view) in view.hand


def test_the_random_bot_draws_from_its_seat_stream_and_resumes_exactly() -> None:
    key = deal_key(secret_from_text_seed("rb"), ["", ""])
    hands = [("AC", "2C", "3C", "4C"), ("AC", "2C", "3C"), ("AC", "2C"), ("AC",)] * 3
    bot = RandomBot(key, 1)
    choices = [bot.choose_from(h) for h in hands]
    for k in range(len(hands)):
        resumed = RandomBot.resume(key, 1, 4, k)
        assert [resumed.choose_from(h) for h in hands[k:]] == choices[k:]
    assert RandomBot(key, 0).stream.next_u32() != RandomBot(key, 1).stream.next_u32()


def test_a_simulated_match_repeats_exactly_from_its_seed() -> None:
    command = CreateMatch(
        "m", "yemeni", 4, secret_from_text_seed("again"), bots=(0, 1, 2, 3), bot_kind="random"
    )
    assert play_match(command)[0] == play_match(command)[0]
