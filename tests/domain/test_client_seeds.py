"""Client seeds at the table: each seat's own seed enters the deal key (docs/fairness.md)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.commands import CreateMatch, TakeSeat
from domain.decide import decide
from domain.errors import InvalidClientSeedError
from domain.events import CardsDealt, Event, RoundStarted, SeatTaken
from domain.evolve import evolve, fold
from domain.fairness import deal_key, shuffled_deck
from domain.state import INITIAL_STATE, MatchState
from tests.domain import fairness_reference as ref

SECRET = bytes(range(32))

seed_text = st.text(max_size=16)


def _seated(seats: int, seeds: list[str]) -> tuple[MatchState, list[Event]]:
    """A table of people only, each seat taken with its client seed: the state and events."""
    create = CreateMatch(match_id="m-seeds", ruleset="classic", seats=seats, secret=SECRET)
    events = list(decide(INITIAL_STATE, create))
    state = fold(events)
    for seat, text in enumerate(seeds):
        more = decide(state, TakeSeat(seat, f"p{seat}", client_seed=text))
        for event in more:
            state = evolve(state, event)
        events.extend(more)
    return state, events


def _first_deal(events: list[Event]) -> tuple[int, CardsDealt]:
    dealer = next(e.dealer for e in events if isinstance(e, RoundStarted))
    return dealer, next(e for e in events if isinstance(e, CardsDealt))


def test_the_page_vector_with_client_seeds_given_at_the_seats() -> None:
    # given S = 00..1f and two seats taken with the client seeds "alice" and "bob"
    state, events = _seated(2, ["alice", "bob"])
    # then the deal follows the page's vector: dealer 0, round 1 from 3C QD AS 6S AH AC 5H 10D
    dealer, dealt = _first_deal(events)
    assert state.setup is not None
    assert state.setup.client_seeds == ("alice", "bob")
    assert state.setup.key == deal_key(SECRET, ("alice", "bob"))
    deck = shuffled_deck(state.setup.key, 1)
    assert dealer == 0
    assert list(deck[:10]) == ["3C", "QD", "AS", "6S", "AH", "AC", "5H", "10D", "6H", "JH"]
    # seat 1 (after the dealer) gets the first card, seat 0 the second, …
    assert dealt.hands[1] == (deck[0], deck[2], deck[4], deck[6])
    assert dealt.hands[0] == (deck[1], deck[3], deck[5], deck[7])
    # and the second implementation agrees
    key = ref.deal_key(SECRET, ["alice", "bob"])
    assert ref.round_deck(key, 1)[:10] == list(deck[:10])


@settings(max_examples=40, deadline=None)
@given(seats=st.sampled_from([2, 4]), data=st.data())
def test_changing_any_one_seats_seed_changes_the_deal(seats: int, data: st.DataObject) -> None:
    # given a table whose seats give client seeds, and the same table with one seat's changed
    seeds = data.draw(st.lists(seed_text, min_size=seats, max_size=seats))
    seat = data.draw(st.integers(0, seats - 1))
    other = data.draw(seed_text.filter(lambda text: text != seeds[seat]))
    changed = [*seeds]
    changed[seat] = other
    state_a, _ = _seated(seats, seeds)
    state_b, _ = _seated(seats, changed)
    # then the deal key and round 1's deck differ
    assert state_a.setup is not None and state_b.setup is not None
    key_a, key_b = state_a.setup.key, state_b.setup.key
    assert key_a is not None and key_b is not None and key_a != key_b
    assert shuffled_deck(key_a, 1) != shuffled_deck(key_b, 1)


def test_a_seat_without_a_seed_leaves_its_line_as_before() -> None:
    # given a seat taken with no client seed
    _, events = _seated(2, ["", ""])
    taken = next(e for e in events if isinstance(e, SeatTaken))
    # then its line has no client_seed field: lines recorded before client seeds are the same
    assert b"client_seed" not in msgspec.json.encode(taken)
    # and a seat that gives one records it
    _, with_seed = _seated(2, ["x", ""])
    first = next(e for e in with_seed if isinstance(e, SeatTaken))
    assert isinstance(first, SeatTaken) and first.client_seed == "x"


@pytest.mark.parametrize("text", ["a" * 65, "é" * 33, "🂡" * 17])
def test_a_seed_over_64_bytes_is_refused(text: str) -> None:
    # given a waiting table, when a seat is asked for with a seed over 64 bytes of UTF-8
    create = CreateMatch(match_id="m-long", ruleset="classic", seats=2, secret=SECRET)
    state = fold(decide(INITIAL_STATE, create))
    # then it is refused precisely
    with pytest.raises(InvalidClientSeedError):
        decide(state, TakeSeat(0, "amal", client_seed=text))
