"""R2-R5: seats and sides, dealer and turn, the opening deal with reburial, later deals."""

from __future__ import annotations

import itertools

import pytest

from domain.commands import CreateMatch, PlayCard, TakeSeat
from domain.dealing import deal_hands, turn_first_floor
from domain.decide import decide
from domain.errors import InvalidSeatCountError, InvalidSeatError, SeatTakenError
from domain.events import CardPlayed, CardsDealt, FloorDealt, RoundStarted, SeatTaken
from domain.evolve import fold
from domain.fairness import deal_key, first_dealer, secret_from_text_seed, shuffled_deck
from domain.rulesets import RULESETS
from domain.selfplay import play_match
from domain.state import INITIAL_STATE, side_of
from tests.domain.builders import apply, created


@pytest.mark.parametrize("seats", [0, 1, 3, 5, 6])
def test_r2_only_two_or_four_seats(seats: int) -> None:
    with pytest.raises(InvalidSeatCountError):
        decide(INITIAL_STATE, CreateMatch("m", "classic", seats, secret_from_text_seed("s")))


def test_r2_partners_sit_opposite() -> None:
    assert [side_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_r3_first_dealer_comes_from_the_dealer_stream_and_the_next_seat_leads() -> None:
    # Given a full table created from a text seed
    events, state = created("classic", 4, seed="dealer-test")
    key = deal_key(secret_from_text_seed("dealer-test"), [""] * 4)
    started = next(e for e in events if isinstance(e, RoundStarted))
    # Then the dealer is uniform(4) on "dealer" and the seat after it is on turn
    assert started.dealer == first_dealer(key, 4)
    assert state.turn == (started.dealer + 1) % 4


def test_r3_deal_passes_to_the_next_seat_each_round_and_turn_follows_each_play() -> None:
    events, _ = play_match(
        CreateMatch("m", "classic", 2, secret_from_text_seed("r3"), bots=(0, 1), bot_kind="random")
    )
    dealers = [e.dealer for e in events if isinstance(e, RoundStarted)]
    assert len(dealers) >= 2
    assert all(b == (a + 1) % 2 for a, b in itertools.pairwise(dealers))
    state = INITIAL_STATE
    for event in events:
        before = state
        state = apply(state, [event])
        if isinstance(event, CardPlayed):
            assert event.seat == before.turn  # R3: the turn passes to the next seat


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@pytest.mark.parametrize("seats", [2, 4])
def test_r4_opening_deal_one_card_at_a_time_from_the_seat_after_the_dealer(
    ruleset: str, seats: int
) -> None:
    events, state = created(ruleset, seats, seed=f"r4-{ruleset}")
    rules = RULESETS[ruleset]
    started = next(e for e in events if isinstance(e, RoundStarted))
    dealt = next(e for e in events if isinstance(e, CardsDealt))
    floor = next(e for e in events if isinstance(e, FloorDealt))
    deck = shuffled_deck(deal_key(secret_from_text_seed(f"r4-{ruleset}"), [""] * seats), 1)
    first = (started.dealer + 1) % seats
    for i in range(seats * rules.hand_size):
        seat = (first + i) % seats
        assert dealt.hands[seat] is not None
        assert dealt.hands[seat][i // seats] == deck[i]
    assert all(h is not None and len(h) == rules.hand_size for h in dealt.hands)
    assert len(floor.cards) == 4
    # R4: no Jack (nor a powered 7♦) lies on the first floor; the floor keeps the turned order.
    assert not any(rules.sweeps(c) for c in floor.cards)
    turned = [c for c in deck[seats * rules.hand_size :] if c in floor.cards or c in floor.reburied]
    assert tuple(c for c in turned if c in floor.cards) == floor.cards
    # The stock left: the rest of the deck after the turned cards, then the cards sent back.
    rest = deck[seats * rules.hand_size + len(floor.cards) + len(floor.reburied) :]
    assert state.stock == rest + floor.reburied


def test_r4_jacks_and_the_komi_go_to_the_bottom_in_order() -> None:
    rules = RULESETS["classic"]
    stock = ("JH", "3C", "7D", "4S", "JC", "KD", "9H", "2C", "5S")
    floor, reburied = turn_first_floor(stock, rules)
    assert floor == ("3C", "4S", "KD", "9H")
    assert reburied == ("JH", "7D", "JC")


def test_r4_r16_lebanese_sends_back_only_jacks() -> None:
    floor, reburied = turn_first_floor(("7D", "JS", "2H", "3H", "4H"), RULESETS["lebanese"])
    assert floor == ("7D", "2H", "3H", "4H")
    assert reburied == ("JS",)


def test_r4_reburied_cards_come_after_the_rest_of_the_stock() -> None:
    # Given a seed whose first floor sends cards back (found by scanning seeds)
    for k in range(200):
        events, state = created("classic", 2, seed=f"rebury-{k}")
        floor = next(e for e in events if isinstance(e, FloorDealt))
        if floor.reburied:
            assert state.stock[-len(floor.reburied) :] == floor.reburied
            assert len(state.stock) == 52 - 8 - 4
            return
    pytest.fail("no seed with a reburial in 200 tries")


@pytest.mark.parametrize(
    ("ruleset", "seats", "deals"),
    [("classic", 2, 6), ("classic", 4, 3), ("lebanese", 2, 4), ("lebanese", 4, 2)],
)
def test_r5_a_round_is_six_deals_at_two_and_three_at_four(
    ruleset: str, seats: int, deals: int
) -> None:
    events, _ = play_match(
        CreateMatch("m", ruleset, seats, secret_from_text_seed("r5"), bots=tuple(range(seats)))
    )
    per_round: dict[int, int] = {}
    for e in events:
        if isinstance(e, CardsDealt):
            per_round[e.round] = max(per_round.get(e.round, 0), e.deal)
            assert e.deal <= deals
    assert set(per_round.values()) == {deals}


def test_r5_later_deals_put_nothing_on_the_floor_and_deal_from_the_top() -> None:
    events, _ = play_match(
        CreateMatch("m", "classic", 2, secret_from_text_seed("r5b"), bots=(0, 1), bot_kind="random")
    )
    state = INITIAL_STATE
    for event in events:
        if isinstance(event, CardsDealt) and event.deal > 1:
            expected = deal_hands(state.stock, 2, state.dealer or 0, 4)
            assert event.hands == expected
            floor_before = state.floor
            state = apply(state, [event])
            assert state.floor == floor_before
        else:
            state = apply(state, [event])


def test_seats_are_taken_once_and_the_match_deals_when_the_last_one_is_taken() -> None:
    # Given a 2-seat table with one bot
    state = fold(
        decide(INITIAL_STATE, CreateMatch("m", "classic", 2, secret_from_text_seed("s"), bots=(1,)))
    )
    assert state.status == "waiting"
    with pytest.raises(InvalidSeatError):
        decide(state, TakeSeat(2, "ann"))
    with pytest.raises(SeatTakenError):
        decide(state, TakeSeat(1, "ann"))
    # When the last human seat is taken
    events = decide(state, TakeSeat(0, "ann"))
    # Then round 1 is dealt in the same decision
    assert isinstance(events[0], SeatTaken)
    assert [type(e).__name__ for e in events[1:]] == ["RoundStarted", "CardsDealt", "FloorDealt"]
    state = apply(state, events)
    assert state.status == "playing" and state.names == ("ann", "easy bot")
    assert decide(state, PlayCard(state.turn or 0, state.hands[state.turn or 0][0]))
