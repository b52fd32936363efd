"""What the turn clock waits for, read from the store, and firing it (R25, waiting tables).

Two things fall due on a server: the deadline of a person on turn (recorded in the stream on
the ``card_played`` or ``floor_dealt`` that passed the turn, and held as ``MatchState.deadline``)
and the end of a waiting table's waiting time (its ``match_created`` time plus the server's
waiting period). Both are read from the store, never kept only in memory: ``open_matches`` finds
every match not ended through the global log at start, ``due_of`` reads one match's state.

Firing goes through ``MatchService`` like any command, caused by ``clock``; the store's optimistic
concurrency and the rules' stale check make it happen once whichever process fires first: a
conflict, a stale deadline, an early timer or a table no longer waiting is reported as such and
changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final, Literal

from app.errors import ConflictError, MatchNotFoundError
from app.service.match_service import MatchService
from app.store.decoding import TOPICS
from app.store.match_store import LogEntry
from domain.errors import (
    DeadlineNotReachedError,
    MatchNotWaitingError,
    StaleDeadlineError,
)
from domain.events import MatchCreated, MatchEnded
from domain.state import MatchState
from domain.times import utc_micros

log = logging.getLogger("basra.clock")

CLOCK_CAUSE: Final = "clock"
"""The cause recorded on everything the clock appends (docs/replay-format.md)."""

LOG_PAGE: Final = 10_000
"""Entries of the global log read per query when the open matches are looked up at start."""

Kind = Literal["turn", "waiting"]
Fired = Literal["fired", "stale", "early", "conflict", "failed"]


@dataclass(frozen=True, order=True)
class Due:
    """One thing the clock must do at ``due_ms`` (Unix epoch ms) for a match.

    ``turn``: ``seat``'s turn runs out at ``deadline`` (the recorded text). ``waiting``: the
    table has waited for players since its creation for the server's whole waiting period.
    """

    due_ms: int
    match_id: str
    kind: Kind
    seat: int | None = None
    deadline: str | None = None


def deadline_ms(deadline: str) -> int:
    """The first whole millisecond at or after a recorded deadline (when it has been reached)."""
    return -(-utc_micros(deadline) // 1000)


def due_of(
    match_id: str, state: MatchState, created_at: str | None, waiting_ms: int | None
) -> Due | None:
    """What is due next for the match in ``state``, or None (ended, a bot on turn, no clock).

    ``created_at`` is the ``at`` of its ``match_created`` (needed for a waiting table only);
    ``waiting_ms`` the server's waiting period (None: waiting tables stay open).
    """
    if state.status == "playing" and state.deadline is not None and state.turn is not None:
        due = deadline_ms(state.deadline)
        return Due(due, match_id, "turn", state.turn, state.deadline)
    if state.status == "waiting" and created_at is not None and waiting_ms is not None:
        # Rounded up to the next whole millisecond, as a turn's deadline is: a table is never
        # closed a fraction of a millisecond before its full waiting time.
        return Due(deadline_ms(created_at) + waiting_ms, match_id, "waiting")
    return None


def open_matches(service: MatchService) -> dict[str, str]:
    """Every stored match without a ``match_ended``, with its creation time, from the log.

    One pass over the log's ``match_created`` and ``match_ended`` entries (on SQLite from the
    store's topic index, not a walk over every play): how the clock recovers what is pending when
    a server process starts (nothing is taken from memory). Only the matches still open are
    decoded, for their creation time.
    """
    store = service.store
    created_topic, ended_topic = TOPICS[MatchCreated], TOPICS[MatchEnded]
    created: dict[str, LogEntry] = {}
    position = 0
    while True:
        page = store.log_after(position, LOG_PAGE, (created_topic, ended_topic))
        for entry in page:
            if entry.topic == created_topic:
                created[entry.match_id] = entry
            else:
                created.pop(entry.match_id, None)
        if len(page) < LOG_PAGE:
            return {match_id: store.to_recorded(e).at for match_id, e in created.items()}
        position = page[-1].position


Looked = tuple[bool, str | None, Due | None]
"""What ``look_up`` says of one match: (gone or ended, its creation time if known, what is due)."""


def look_up(
    service: MatchService, known: dict[str, str | None], waiting_ms: int | None
) -> dict[str, Looked]:
    """What each match of ``known`` (match id -> creation time, if known) has due now, from its
    state in the store; in one call for many matches that changed together."""
    looked: dict[str, Looked] = {}
    for match_id, created in known.items():
        try:
            state = service.load(match_id)
        except MatchNotFoundError:
            looked[match_id] = (True, None, None)
            continue
        if state.status == "waiting" and created is None:
            created = created_at(service, match_id)
        due = due_of(match_id, state, created, waiting_ms)
        looked[match_id] = (state.status == "ended", created, due)
    return looked


def created_at(service: MatchService, match_id: str) -> str:
    """The ``at`` of the match's ``match_created``."""
    return service.store.read(match_id, upto_seq=1)[0].at


def fire_many(service: MatchService, due: list[Due]) -> list[Fired]:
    """``fire`` for turns that ran out together, their appends sharing transactions
    (``MatchService.expire_turns``); each one's outcome as ``fire`` reports it, or ``failed``
    when something else went wrong for it (the others stand). A waiting table's end is fired
    alone."""
    turns = [d for d in due if d.kind == "turn"]
    expired = service.expire_turns(
        [(d.match_id, d.seat or 0, d.deadline or "") for d in turns], caused_by=CLOCK_CAUSE
    )
    outcomes = iter([_outcome(d, done.refused) for d, done in zip(turns, expired, strict=True)])
    return [next(outcomes) if d.kind == "turn" else _fire_alone(service, d) for d in due]


def _fire_alone(service: MatchService, due: Due) -> Fired:
    """``fire``, an unexpected error reported as ``failed`` for this match alone."""
    try:
        return fire(service, due)
    except Exception as error:
        return _outcome(due, error)


def _outcome(due: Due, result: object) -> Fired:
    """What one expiry of ``fire_many`` came to. Any other error (the store failing, a stream
    it cannot read) is logged and reported as ``failed`` for this match alone: the clock tries
    it again a little later while the rest of the batch stands."""
    if not isinstance(result, Exception):
        return "fired"
    if isinstance(result, StaleDeadlineError | MatchNotWaitingError):
        log.debug("clock: %s %s no longer due: %s", due.kind, due.match_id, result)
        return "stale"
    if isinstance(result, DeadlineNotReachedError):
        log.debug("clock: %s %s not due yet: %s", due.kind, due.match_id, result)
        return "early"
    if isinstance(result, ConflictError):
        log.debug("clock: %s %s lost a race with another writer", due.kind, due.match_id)
        return "conflict"
    log.error("the turn clock failed to fire %s %s: %r", due.kind, due.match_id, result)
    return "failed"


def fire(service: MatchService, due: Due) -> Fired:
    """Do what is due, caused by ``clock``; the rules and the store decide whether it still is.

    ``fired``: appended (with the bots' replies, in the same transaction). ``stale``: the turn
    passed or the table filled or ended meanwhile (another process may have fired it).
    ``early``: the deadline is not reached by this process's clock yet. ``conflict``: another
    writer appended first; the caller looks again.
    """
    try:
        if due.kind == "turn":
            assert due.seat is not None and due.deadline is not None
            service.expire_turn(due.match_id, due.seat, due.deadline, caused_by=CLOCK_CAUSE)
        else:
            service.abandon_table(due.match_id, caused_by=CLOCK_CAUSE)
    except (
        StaleDeadlineError,
        MatchNotWaitingError,
        DeadlineNotReachedError,
        ConflictError,
    ) as refused:
        return _outcome(due, refused)
    return "fired"
