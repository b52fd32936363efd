"""Events in words for people: "seat 1 plays 7♦: sweeps 3♠ 4♥ 2♣, Basra +10"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

import msgspec

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
    tagged,
)
from domain.redaction import SUPPORT


def card_text(card: Card) -> str:
    """One card with its suit symbol (``7♦``)."""
    return display(card)


def cards_text(cards: Sequence[Card]) -> str:
    """Cards with suit symbols, space separated (R1: symbols are for people only)."""
    return " ".join(display(c) for c in cards) if cards else "nothing"


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def describe_play(event: CardPlayed) -> str:
    """One play in words: what the card took, by group, and its Basra."""
    text = f"seat {event.seat} plays {display(event.card)}"
    if event.auto:
        text += " (played for it: its clock ran out, R25)"
    if not event.captured:
        # R12: a card that takes nothing joins the floor
        return text + ": trails" + _until(event.deadline)
    if event.sweep:
        text += ": sweeps " + cards_text(event.captured)  # R10, R11
    elif event.groups:
        text += ": takes " + _join(["+".join(display(c) for c in g) for g in event.groups])
    else:
        text += ": takes " + cards_text(event.captured)
    if event.basra:
        text += f", Basra +{event.basra}"
    return text + _until(event.deadline)


def _until(deadline: str | msgspec.UnsetType) -> str:
    """R25: the deadline the next turn passed with, in words (nothing when no clock runs)."""
    if not isinstance(deadline, str):
        return ""
    return f"; the next seat has until {deadline} to play (R25)"


def _describe_deal(event: CardsDealt, viewer: int) -> str:
    size = max((len(h) for h in event.hands if h is not None), default=0)
    text = f"deal {event.deal} of round {event.round}, {size} cards to each seat"
    shown = [
        f"seat {seat} {cards_text(hand)}"
        for seat, hand in enumerate(event.hands)
        if hand is not None and viewer in (SUPPORT, seat)
    ]
    return text + (": " + "; ".join(shown) if shown else "")


def _describe_scored(event: RoundScored) -> str:
    parts = []
    for side, score in enumerate(event.sides):
        parts.append(
            f"side {side} {score.cards} cards, {score.total} points"
            f" ({score.majority} most cards, {score.points} point cards, {score.basra} Basra)"
        )
    text = f"round {event.round} scored: " + "; ".join(parts)
    if event.last_pickup is not None:
        # R19: the last pickup is never a Basra.
        pickup = event.last_pickup
        text += f"; side {pickup.side} picks up the last floor, {cards_text(pickup.cards)}"
    text += f"; totals {'–'.join(str(t) for t in event.totals)}"
    if event.carry:
        text += f"; {event.carry} carried to the next round (R20)"
    return text


def _describe_ended(event: MatchEnded) -> str:
    totals = "–".join(str(t) for t in event.totals)
    if event.reason == "abandoned" and event.seat is None:
        return f"the clock closes the table: nobody came in time, no winner, {totals}"
    if event.reason in ("forfeit", "timeout", "abandoned") and event.seat is not None:
        who = f"seat {event.seat}"
        verb = {"forfeit": "leaves", "timeout": "runs out of time", "abandoned": "abandons"}
        head = f"{who} {verb[event.reason]}"
        if event.winner is None:
            return f"{head}: the match ends with no winner, {totals}"
        if event.reason == "timeout":
            return f"{head}: side {event.winner} wins by timeout (R25), {totals}"
        return f"{head}: side {event.winner} wins by forfeit, {totals}"  # R26
    reason = {"target": "reaching the target", "round_limit": "the round limit"}.get(
        event.reason, event.reason
    )
    if event.winner is None:
        return f"the match is drawn ({reason}), {totals}"  # R22
    return f"side {event.winner} wins by {reason}, {totals}"


def _describe_created(event: MatchCreated) -> str:
    text = (
        f"match {event.match_id} created: {event.ruleset}, {event.seats} seats,"
        f" target {event.target}"
    )
    if event.bots:
        seats = ", ".join(str(s) for s in event.bots)
        text += f"; {event.bot_kind} bots at seats {seats}"
    if event.origin is not None:
        text += f"; imported from match {event.origin}"
    return text


def describe(event: Event, viewer: int = SUPPORT) -> str:
    """An event in words, showing only the hands ``viewer`` may see (R23)."""
    match tagged(event):
        case CardPlayed() as played:
            return describe_play(played)
        case CardsDealt() as dealt:
            return _describe_deal(dealt, viewer)
        case FloorDealt(round=number, cards=cards, reburied=reburied, deadline=deadline):
            text = f"the floor is turned for round {number}: {cards_text(cards)}"
            if reburied:
                text += f"; {cards_text(reburied)} sent back to the stock (R4)"
            return text + _until(deadline)
        case RoundStarted(round=number, dealer=dealer):
            return f"round {number} begins; seat {dealer} deals"
        case RoundScored() as scored:
            return _describe_scored(scored)
        case MatchEnded() as ended:
            return _describe_ended(ended)
        case SeatTaken(seat=seat, name=name):
            return f"{name} takes seat {seat}"
        case MatchCreated() as created:
            return _describe_created(created)
        case RematchCreated(match_id=rematch):
            return f"the rematch is created as match {rematch}"
        case unknown:
            assert_never(unknown)


def describe_cause(caused_by: str | None) -> str:
    """Who caused an event, in words: a seat through its token, a bot, the server, the clock or an
    import."""
    if caused_by is None:
        return "not recorded"
    kind, _, rest = caused_by.partition(":")
    if kind == "seat":
        seat, _, token = rest.partition("/token:")
        if token:
            return f"seat {seat} through token {token}"
        return f"seat {seat}"
    if kind == "bot":
        return f"the bot at seat {rest}"
    if caused_by == "server":
        return "the server"
    if caused_by == "clock":
        return "the turn clock (R25)"
    if caused_by == "import":
        return "an import"
    if caused_by == "import:synthesised":
        return "the import (the file left it out)"
    return caused_by
