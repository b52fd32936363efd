"""Redacting events for a viewer (R23): no other seat's cards, no secret before the end."""

from __future__ import annotations

from typing import Final

from msgspec.structs import replace

from domain.events import CardsDealt, Event, MatchCreated, SeatTaken

SUPPORT: Final = -1
"""The viewer number of support staff, who see every hand but not the secret before the end."""

EVERYONE: Final = -2
"""The viewer number of the public (a spectator or an export before the end): no hand at all."""


def redact_event(event: Event, viewer: int, revealed: bool = False) -> Event:
    """The event as ``viewer`` (a seat, SUPPORT or EVERYONE) may see it.

    ``revealed`` is true once the match has ended: then everything is open (R23).
    """
    if isinstance(event, SeatTaken):
        # The token hash never leaves the server; support sees which token (its id) was used.
        if event.token_hash is None:
            return event
        return replace(
            event, token_hash=None, token_id=event.token_id if viewer == SUPPORT else None
        )
    if revealed:
        return event
    if isinstance(event, MatchCreated):
        return replace(event, secret=None) if event.secret is not None else event
    if isinstance(event, CardsDealt):
        if viewer == SUPPORT:
            return event
        hands = tuple(h if seat == viewer else None for seat, h in enumerate(event.hands))
        return replace(event, hands=hands)
    return event


def redact_stream(events: list[Event], viewer: int, revealed: bool = False) -> list[Event]:
    """Every event of a stream as ``viewer`` may see it."""
    return [redact_event(e, viewer, revealed) for e in events]
