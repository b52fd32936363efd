"""Redacting events for a viewer (R23): no other seat's cards, no secret before the end."""

from __future__ import annotations

from typing import Final, assert_never

from msgspec.structs import replace

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

SUPPORT: Final = -1
"""The viewer number of support staff, who see every hand but not the secret before the end."""

EVERYONE: Final = -2
"""The viewer number of the public (a spectator or an export before the end): no hand at all."""


def redact_event(event: Event, viewer: int, revealed: bool = False) -> Event:
    """The event as ``viewer`` (a seat, SUPPORT or EVERYONE) may see it.

    ``revealed`` is true once the match has ended: then everything is open (R23).
    """
    known = tagged(event)
    match known:
        case SeatTaken():
            # The token hash never leaves the server; support sees which token (its id) was used.
            if known.token_hash is None:
                return event
            token_id = known.token_id if viewer == SUPPORT else None
            return replace(known, token_hash=None, token_id=token_id)
        case MatchCreated():
            # R23: the secret stays hidden until the end.
            if revealed or known.secret is None:
                return event
            return replace(known, secret=None)
        case CardsDealt():
            # R23: a seat sees its own hand only; support sees every hand.
            if revealed or viewer == SUPPORT:
                return event
            hands = tuple(h if seat == viewer else None for seat, h in enumerate(known.hands))
            return replace(known, hands=hands)
        case (
            RoundStarted()
            | FloorDealt()
            | CardPlayed()
            | RoundScored()
            | MatchEnded()
            | RematchCreated()
        ):
            return event  # public facts
        case unknown:
            assert_never(unknown)


def redact_stream(events: list[Event], viewer: int, revealed: bool = False) -> list[Event]:
    """Every event of a stream as ``viewer`` may see it."""
    return [redact_event(e, viewer, revealed) for e in events]
