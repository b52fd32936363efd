"""Bots: the easy bot sees only its seat's view; the random bot repeats from the match seed."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain.bots import EasyBot, RandomBot, bot_at, plays_made
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.evolve import fold
from domain.fairness import deal_key, secret_from_text_seed
from domain.selfplay import bots_for, play_match
from domain.views import SeatView, seat_view
from tests.domain.builders import created, easy_position, position


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["classic", "egyptian", "lebanese", "yemeni", "jordanian"]),
    st.sampled_from([2, 4]),
    st.text(max_size=6),
    st.integers(min_value=0, max_value=60),
    st.randoms(use_true_random=False),
)
def test_the_easy_bot_never_changes_its_choice_when_unseen_cards_change(
    ruleset: str, seats: int, seed: str, plays: int, rng: random.Random
) -> None:
    # Given a position some plays into a bot match, and the easy bot's choice for the seat on turn
    state = easy_position(ruleset, seats, seed, plays)
    if state.status != "playing":
        return
    seat = state.turn
    assert seat is not None
    choice = EasyBot().choose(seat_view(state, seat))
    # When every card the seat cannot see (the other hands and the stock) is shuffled among
    # those places, each keeping its size
    others = [s for s in range(seats) if s != seat]
    unseen = [c for s in others for c in state.hands[s]] + list(state.stock)
    rng.shuffle(unseen)
    hands = list(state.hands)
    for s in others:
        hands[s], unseen = tuple(unseen[: len(hands[s])]), unseen[len(hands[s]) :]
    changed = replace(state, hands=tuple(hands), stock=tuple(unseen))
    # Then the seat's view is the same, and so is the bot's choice
    assert seat_view(changed, seat) == seat_view(state, seat)
    assert EasyBot().choose(seat_view(changed, seat)) == choice


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


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["classic", "lebanese"]), st.sampled_from([2, 4]), st.text(max_size=6))
def test_bot_at_resumes_a_random_bot_exactly_where_the_running_one_stands(
    ruleset: str, seats: int, seed: str
) -> None:
    # Given a random-bot match whose bots run from its start
    _, state = created(ruleset, seats, seed=seed, bot_kind="random")
    running = bots_for(state)
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        view = seat_view(state, seat)
        # When a bot is made afresh for the seat on turn from the position alone
        fresh = bot_at(state, seat).choose(view)
        # Then it picks what the bot that played every earlier turn picks
        card = running[seat].choose(view)
        assert fresh == card
        state = fold(decide(state, PlayCard(seat, card)), state)


def test_plays_made_counts_every_card_a_seat_has_played() -> None:
    # Given a 4-seat Lebanese match (6 cards a deal, 2 deals a round), played to its end
    _, state = created("lebanese", 4, seed="count", bot_kind="random")
    bots = bots_for(state)
    counted = [0, 0, 0, 0]
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        # Then before every play, each seat's count is the plays it was seen to make
        assert [plays_made(state, s) for s in range(4)] == counted
        card = bots[seat].choose(seat_view(state, seat))
        state = fold(decide(state, PlayCard(seat, card)), state)
        counted[seat] += 1


def test_a_simulated_match_repeats_exactly_from_its_seed() -> None:
    command = CreateMatch(
        "m", "yemeni", 4, secret_from_text_seed("again"), bots=(0, 1, 2, 3), bot_kind="random"
    )
    assert play_match(command)[0] == play_match(command)[0]
