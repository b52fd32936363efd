"""The live turn (docs/api.md, "Live turns"): the table right after an event.

Every view and every SSE message carries it as ``after``, so a client knows whose turn it is
and until when without asking again. It holds counts only, never a card of any hand (R23).
"""

from __future__ import annotations

from collections.abc import Set

import msgspec

from domain.state import MatchState

AFTER_ENCODER = msgspec.json.Encoder()
"""Encodes ``After`` for an SSE message."""


class After(msgspec.Struct, frozen=True, kw_only=True):
    """The table after an event: whose turn, until when, the server's now and the banner.

    ``stock`` is the cards left to deal, ``carry`` the carry pending (R20); ``deadline`` is UTC
    text (R25) or null (a bot on turn, no clock, no turn); ``now`` is the server's clock when the
    message was written, so a client counts down by ``deadline - now`` whatever its own clock.
    """

    seq: int
    status: str
    turn: int | None
    deadline: str | None
    now: str
    stock: int
    carry: int
    # The receipt: the stream's hash chain link after ``seq`` (docs/fairness.md); a client that
    # keeps {seq, chain} can show, after the end, that the stored stream passes through it.
    # None for a stream recorded without a chain.
    chain: str | None = None
    # Connected now (docs/api.md): per seat, whether a feed of that seat is open on any server
    # process when the message was written. True or false only: nothing else about anyone.
    connected: tuple[bool, ...] = ()


class PresenceLine(msgspec.Struct, frozen=True, kw_only=True):
    """The ``data`` of an ``event: presence`` SSE message: who is connected now, at ``now``."""

    connected: tuple[bool, ...]
    now: str


def connected_flags(state: MatchState, seats: Set[int]) -> tuple[bool, ...]:
    """One flag per seat of the match: whether that seat is in ``seats`` (connected now)."""
    count = state.setup.seats if state.setup is not None else 0
    return tuple(seat in seats for seat in range(count))


def presence_line(state: MatchState, seats: Set[int], now: str) -> bytes:
    """The ``data`` of a presence message (no ``id``: it is not an event of the match)."""
    return AFTER_ENCODER.encode(PresenceLine(connected=connected_flags(state, seats), now=now))


def after_of(
    state: MatchState, now: str, chain: str | None = None, connected: Set[int] = frozenset()
) -> After:
    """The live turn and banner of ``state`` at the server's ``now``: counts only (R23), with
    ``chain``, the chain link after the state's last event (the receipt), and which seats
    are ``connected`` now."""
    return After(
        seq=state.events,
        status=state.status,
        turn=state.turn,
        deadline=state.deadline,
        now=now,
        stock=len(state.stock) if state.status == "playing" else 0,
        carry=state.carry,
        chain=chain,
        connected=connected_flags(state, connected),
    )


def with_after(line: bytes, after: After) -> bytes:
    """An event line (a JSON object) with one more field, ``after``, at its end."""
    return line[:-1] + b',"after":' + AFTER_ENCODER.encode(after) + b"}"
