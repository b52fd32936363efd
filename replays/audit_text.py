"""The words of re-adjudication: the internal divergence signal and how events are named."""

from __future__ import annotations

from typing import assert_never

from domain.cards import Card, display
from domain.events import (
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    event_tag,
    tagged,
)
from replays.words import cards_text


class Diverged(Exception):
    """Raised inside an audit at the first event that does not follow from the rules."""

    def __init__(self, kind: str, explanation: str) -> None:
        super().__init__(explanation)
        self.kind = kind
        self.explanation = explanation


def event_name(event: Event) -> str:
    """The event's type as the replay file writes it."""
    return event_tag(event)


def event_kind(event: Event) -> str:
    """The divergence kind of a fault in this event: setup, seat, deal, play, score or end."""
    match tagged(event):
        case CardPlayed():
            return "play"
        case SeatTaken():
            return "seat"
        case MatchEnded() | RematchCreated():
            return "end"
        case RoundScored():
            return "score"
        case MatchCreated():
            return "setup"
        case RoundStarted() | CardsDealt() | FloorDealt():
            return "deal"
        case unknown:
            assert_never(unknown)


def expected_text(event: Event) -> str:
    """What the rules produce next, in words (for a missing or out-of-order event)."""
    match tagged(event):
        case CardsDealt(round=number, deal=deal):
            return f"deal {deal} of round {number}"
        case FloorDealt(round=number):
            return f"the first floor of round {number}"
        case RoundStarted(round=number, dealer=dealer):
            return f"round {number}, dealt by seat {dealer}"
        case RoundScored(round=number):
            return f"the score of round {number}"
        case MatchEnded(winner=winner, reason=reason):
            return f"the end of the match, {winner_text(winner)} winning by {reason}"
        case MatchCreated() | SeatTaken() | CardPlayed() | RematchCreated():
            return event_name(event)
        case unknown:
            assert_never(unknown)


def card_name(card: Card) -> str:
    """A card with its suit symbol, or as written when it is no card at all."""
    try:
        return display(card)
    except KeyError:
        return repr(card)


def groups_text(groups: tuple[tuple[Card, ...], ...]) -> str:
    """Capture groups as ``8♥+A♥ / 6♦+3♥`` (R8)."""
    if not groups:
        return "nothing"
    return " / ".join("+".join(card_name(c) for c in g) for g in groups)


def totals_text(totals: tuple[int, ...]) -> str:
    """Match totals as ``38–25``."""
    return "–".join(str(t) for t in totals)


def winner_text(winner: int | None) -> str:
    """``side N`` or, for a draw, ``nobody (a draw)``."""
    return "nobody (a draw)" if winner is None else f"side {winner}"


def pickup_text(event: RoundScored) -> str:
    """Who took the last floor of a round (R19), in words."""
    pickup = event.last_pickup
    if pickup is None:
        return "to nobody"
    return f"to side {pickup.side} ({cards_text(pickup.cards)})"
