"""The turn clock (R25, R25a): when a seat's turn runs out, the refusal of a play that came too
late, and which person seats have run out. ``decide`` sets deadlines with it and ``evolve``
keeps the run-out seats with it, so both read the rulings the same way."""

from __future__ import annotations

from typing import Final

import msgspec

from domain.dealing import first_to_play
from domain.errors import TurnExpiredError
from domain.events import Event, FloorDealt, RoundStarted
from domain.state import MatchSetup, MatchState
from domain.times import after_seconds

EMPTY_TABLE_SECONDS: Final = 5
"""R25a: the turn time of a seat whose person has run out, once every person has."""


def turn_ran_out(seat: int, deadline: str, arrived_us: int | None = None) -> TurnExpiredError:
    """The refusal of a play by ``seat`` that came at or after its ``deadline`` (R25), carrying
    the deadline and when the play arrived (support's record of the refusal shows both)."""
    error = TurnExpiredError(
        f"seat {seat}'s turn ran out at {deadline}; the clock plays for it (R25)"
    )
    error.deadline = deadline
    error.arrived_us = arrived_us
    return error


def timed_out_after(timed_out: tuple[int, ...], seat: int, auto: bool) -> tuple[int, ...]:
    """R25a: the seats run out after ``seat`` plays: a play the clock made for it (``auto``)
    marks the seat as run out; the seat's own play clears the mark."""
    if auto:
        return timed_out if seat in timed_out else tuple(sorted((*timed_out, seat)))
    return tuple([s for s in timed_out if s != seat])


def turn_deadline(
    setup: MatchSetup, timed_out: tuple[int, ...], seat: int, now_us: int | None
) -> str | None:
    """R25, R25a: when ``seat``'s turn runs out if its turn starts at ``now_us``; None for a
    bot, or a table with no clock.

    A person's seat has the table's turn time; once every person's seat has run out on its
    latest turn, those seats have 5 seconds each, so a table everyone has left still ends.
    """
    if now_us is None or setup.turn_seconds is None or seat in setup.bots:
        return None
    if all(s in timed_out or s in setup.bots for s in range(setup.seats)):
        return after_seconds(now_us, EMPTY_TABLE_SECONDS)
    return after_seconds(now_us, setup.turn_seconds)


def with_first_deadline(
    state: MatchState, opened: tuple[Event, ...], now_us: int | None
) -> tuple[Event, ...]:
    """A round's opening events, its floor carrying the first seat's deadline (R25)."""
    started = opened[0]
    assert isinstance(started, RoundStarted)
    assert state.setup is not None
    first = first_to_play(started.dealer, state.setup.seats)
    deadline = turn_deadline(state.setup, state.timed_out, first, now_us)
    if deadline is None:
        return opened
    floor = opened[-1]
    assert isinstance(floor, FloorDealt)
    return (*opened[:-1], msgspec.structs.replace(floor, deadline=deadline))
