"""Re-adjudicating the turn clock (R25, R25a): deadlines as recorded, and what the clock did.

A deadline is recorded on the event that passes the turn to a person (``card_played``,
``floor_dealt``). The rules give it from the time the turn passed, so a recorded deadline must be
within a second of the event's own ``at`` plus the turn time (``TOLERANCE_MS``: the server reads
its clock once per request and records right after). The clock, and only the clock, plays for a
seat whose deadline passed (an ``auto`` play), ends a 2-seat match by ``timeout`` and closes an
abandoned waiting table; each must be recorded at or after the deadline in force.
"""

from __future__ import annotations

from typing import Final

import msgspec
from msgspec.structs import replace

from domain.events import CardPlayed, Event, FloorDealt, MatchEnded, SeatTaken, optional
from domain.times import utc_micros
from replays.audit_text import Diverged

CLOCK: Final = "clock"
"""The cause the server records for what its clock did."""

_UNKNOWN_CAUSES: Final = frozenset({None, "import", "import:synthesised"})
"""A file that does not say who caused an event (a public replay, an import) is no evidence."""

TOLERANCE_MS: Final = 1000
"""How far a recorded deadline may be from the event's ``at`` plus the turn time."""


def at_us(at: str) -> int | None:
    """The recorded time in Unix epoch microseconds, or None if unreadable."""
    try:
        return utc_micros(at)
    except ValueError:
        return None


def deadline_of(event: Event) -> str | None:
    """The deadline an event records (None if it records none)."""
    if isinstance(event, CardPlayed | FloorDealt):
        return optional(event.deadline)
    return None


def without_deadline(event: Event) -> Event:
    """``event`` without its deadline, to be compared with the rules' own."""
    if isinstance(event, CardPlayed | FloorDealt) and isinstance(event.deadline, str):
        return replace(event, deadline=msgspec.UNSET)
    return event


def settle_deadline(
    judged: Event, recorded: str | None, wanted: str | None, now_us: int | None
) -> Event:
    """``judged`` carrying its recorded deadline, once checked against the rules' ``wanted``."""
    if recorded is None and wanted is None:
        return judged
    if now_us is None:
        if recorded is not None:
            _check_text(recorded)
        return _with_deadline(judged, recorded)  # an unreadable ``at`` is no evidence
    if recorded is None:
        raise Diverged(
            "clock",
            f"the turn passes to a person at a table with a clock, but no deadline is recorded;"
            f" the rules give {wanted} (R25)",
        )
    if wanted is None:
        raise Diverged(
            "clock",
            f"a deadline ({recorded}) is recorded, but no clock runs on this turn: a bot is on"
            " turn, the table has no turn time, or the turn does not pass (R25)",
        )
    off = abs(_check_text(recorded) - utc_micros(wanted)) // 1000
    if off > TOLERANCE_MS:
        raise Diverged(
            "clock",
            f"the recorded deadline {recorded} is {off} ms from the {wanted} the rules give from"
            " the time the turn passed (R25, R25a)",
        )
    return _with_deadline(judged, recorded)


def _check_text(deadline: str) -> int:
    try:
        return utc_micros(deadline)
    except ValueError:
        raise Diverged("clock", f"the deadline {deadline!r} is not a UTC time") from None


def _with_deadline(event: Event, deadline: str | None) -> Event:
    if deadline is not None and isinstance(event, CardPlayed | FloorDealt):
        return replace(event, deadline=deadline)
    return event


def is_clock_act(event: Event, deadline_in_force: str | None) -> bool:
    """True for what only the clock does: an auto play or a timeout while a deadline is in force,
    or closing a waiting table."""
    if isinstance(event, MatchEnded):
        if event.reason == "abandoned" and event.seat is None:
            return True
        return event.reason == "timeout" and deadline_in_force is not None
    return isinstance(event, CardPlayed) and event.auto and deadline_in_force is not None


def check_clock_cause(event: Event, caused_by: str | None, clock_act: bool) -> None:
    """Raise when the clock's act is caused by anyone else, or the clock causes anything else."""
    if clock_act:
        if caused_by == CLOCK or caused_by in _UNKNOWN_CAUSES:
            return
        what = "plays for a seat whose turn ran out" if isinstance(event, CardPlayed) else "ends it"
        raise Diverged(
            "trail",
            f"the cause is {caused_by}, but only the clock {what} (R25): an auto play or a"
            " timeout, or closing an abandoned table, is caused by clock",
        )
    if caused_by != CLOCK:
        return
    if isinstance(event, SeatTaken) or (isinstance(event, CardPlayed) and not event.auto):
        raise Diverged(
            "trail",
            f"{'a seat taken' if isinstance(event, SeatTaken) else 'a play'} is caused by the"
            " clock, which only plays for a seat whose turn ran out (R25)",
        )
    if isinstance(event, MatchEnded) and event.reason == "forfeit":
        raise Diverged("trail", "a forfeit is caused by the clock: only a seat leaves (R26)")
