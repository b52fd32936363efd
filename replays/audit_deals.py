"""Re-adjudicating a round's dealing (R3-R6): the dealer, every hand and the first floor.

With the match secret every card must be the one it deals; without it (a match recorded
elsewhere) the deals are taken as recorded, as long as they are possible: full hands and a
first floor of distinct cards still in the stock.
"""

from __future__ import annotations

from domain.cards import Card
from domain.events import CardsDealt, FloorDealt, RoundStarted
from domain.rulesets import Classic
from domain.state import MatchState
from replays.audit_text import Diverged, card_name
from replays.words import cards_text


def compare_round_started(
    event: RoundStarted, wanted: RoundStarted, state: MatchState, *, seeded: bool
) -> RoundStarted:
    """R3: rounds in order; the first dealer from the seed, then the deal passes on."""
    if event.round != wanted.round:
        raise Diverged("deal", f"round {event.round} starts where round {wanted.round} belongs")
    if event.round == 1 and not seeded:
        if not 0 <= event.dealer < state.seat_count():
            raise Diverged("deal", f"seat {event.dealer} is not a seat of this table")
        return event  # without the secret the first dealer is taken as recorded
    if event.dealer != wanted.dealer:
        why = "the seed draws" if event.round == 1 else "the deal passes to (R3)"
        raise Diverged(
            "deal",
            f"round {event.round} is dealt by seat {event.dealer}; {why} seat {wanted.dealer}",
        )
    return event


def compare_deal(
    event: CardsDealt, wanted: CardsDealt, state: MatchState, rules: Classic, *, seeded: bool
) -> CardsDealt:
    """R4-R6: the seed's deal exactly; without a seed, full hands of unseen cards."""
    where = f"deal {event.deal} of round {event.round}"
    if (event.round, event.deal) != (wanted.round, wanted.deal):
        raise Diverged(
            "deal", f"{where} is where deal {wanted.deal} of round {wanted.round} belongs"
        )
    seats = state.seat_count()
    if len(event.hands) != seats:
        raise Diverged("deal", f"{where} has {len(event.hands)} hands for {seats} seats")
    hands: list[tuple[Card, ...]] = []
    for seat, hand in enumerate(event.hands):
        if hand is None:
            raise Diverged(
                "deal", f"{where}: seat {seat}'s hand is hidden, so the deal cannot be checked"
            )
        hands.append(hand)
    if seeded:
        for seat, (hand, should) in enumerate(zip(hands, wanted.hands, strict=True)):
            if hand != should:
                raise Diverged(
                    "deal",
                    f"{where}: the stream deals seat {seat} {cards_text(hand)}; the seed deals"
                    f" {cards_text(should or ())} (R6, docs/fairness.md)",
                )
        return event
    dealt: list[Card] = []
    for seat, hand in enumerate(hands):
        if len(hand) != rules.hand_size:
            raise Diverged(
                "deal",
                f"{where}: seat {seat} gets {len(hand)} cards; a deal is {rules.hand_size}"
                " each (R4, R5)",
            )
        dealt.extend(hand)
    _unseen(where, dealt, state)
    return event


def compare_floor(
    event: FloorDealt, wanted: FloorDealt, state: MatchState, rules: Classic, *, seeded: bool
) -> FloorDealt:
    """R4: the first floor turned from the stock, Jacks (and a powered 7♦) sent back."""
    where = f"the first floor of round {event.round}"
    if event.round != wanted.round:
        raise Diverged("deal", f"{where} is where round {wanted.round}'s belongs")
    if seeded:
        if event.cards != wanted.cards:
            raise Diverged(
                "deal",
                f"{where} is {cards_text(event.cards)}; the seed turns"
                f" {cards_text(wanted.cards)} (R4, docs/fairness.md)",
            )
        if event.reburied != wanted.reburied:
            raise Diverged(
                "deal",
                f"{where} sends back {cards_text(event.reburied)}; the seed sends back"
                f" {cards_text(wanted.reburied)} (R4)",
            )
        return event
    if len(event.cards) != 4:
        raise Diverged("deal", f"{where} has {len(event.cards)} cards; it has 4 (R4)")
    for card in event.cards:
        if rules.sent_back_from_first_floor(card):
            raise Diverged("deal", f"{where} holds {card_name(card)}, which is sent back (R4)")
    for card in event.reburied:
        if not rules.sent_back_from_first_floor(card):
            raise Diverged("deal", f"{where} sends back {card_name(card)}, which stays (R4)")
    _unseen(where, [*event.cards, *event.reburied], state)
    return event


def _unseen(where: str, cards: list[Card], state: MatchState) -> None:
    """Cards dealt without a seed must be distinct cards still in the stock."""
    stock = set(state.stock)
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise Diverged("deal", f"{where} deals {card_name(card)} twice")
        if card not in stock:
            raise Diverged("deal", f"{where} deals {card_name(card)}, which is not in the stock")
        seen.add(card)
