"""Dealing (R3-R6): a round's deck from the match key, the hands dealt from its top, and the
first floor turned."""

from __future__ import annotations

from functools import lru_cache

from domain.cards import DECK, Card
from domain.events import CardsDealt, Event, FloorDealt, RoundStarted
from domain.fairness import shuffled_deck
from domain.rulesets import Classic


@lru_cache(maxsize=4096)
def round_deck(key: bytes | None, round_number: int) -> tuple[Card, ...]:
    """The stock of a round, top first (R6); for an unseeded import, the deck in index order."""
    if key is None:
        return DECK
    return shuffled_deck(key, round_number)


def first_to_play(dealer: int, seats: int) -> int:
    """R3: the seat after the dealer is dealt to first and plays first."""
    return (dealer + 1) % seats


def deal_hands(
    stock: tuple[Card, ...], seats: int, dealer: int, hand_size: int
) -> tuple[tuple[Card, ...], ...]:
    """R4, R5 (docs/fairness.md step 7): one card at a time from the top, from the seat after the
    dealer round the table."""
    count = seats * hand_size
    top = stock[:count]
    first = first_to_play(dealer, seats)
    return tuple([top[(seat - first) % seats :: seats] for seat in range(seats)])


def turn_first_floor(
    stock: tuple[Card, ...], rules: Classic
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """R4: turn cards for the first floor, sending Jacks (and a powered 7♦) to the bottom."""
    floor: list[Card] = []
    reburied: list[Card] = []
    for card in stock:
        if len(floor) == 4:
            break
        if rules.sent_back_from_first_floor(card):
            reburied.append(card)
        else:
            floor.append(card)
    return tuple(floor), tuple(reburied)


def open_round(
    rules: Classic, seats: int, key: bytes, round_number: int, dealer: int
) -> tuple[Event, ...]:
    """R3, R4: a round's opening events: its dealer, the first hands and the first floor."""
    deck = round_deck(key, round_number)
    hands = deal_hands(deck, seats, dealer, rules.hand_size)
    floor, reburied = turn_first_floor(deck[seats * rules.hand_size :], rules)
    return (
        RoundStarted(round=round_number, dealer=dealer),
        CardsDealt(round=round_number, deal=1, hands=hands),
        FloorDealt(round=round_number, cards=floor, reburied=reburied),
    )


def deal_again(
    stock: tuple[Card, ...], seats: int, dealer: int, rules: Classic, round_number: int, deal: int
) -> CardsDealt:
    """R5: every hand is empty and the stock is not: the next deal of the round, ``deal``."""
    hands = deal_hands(stock, seats, dealer, rules.hand_size)
    return CardsDealt(round=round_number, deal=deal, hands=hands)
