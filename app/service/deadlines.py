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

from app.errors import ConflictError
from app.service.match_service import MatchService, epoch_ms
from app.store.decoding import TOPICS
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

LOG_PAGE: Final = 1000
"""Entries of the global log read per query when the open matches are looked up at start."""

Kind = Literal["turn", "waiting"]
Outcome = Literal["fired", "stale", "early", "conflict"]


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
        return Due(epoch_ms(created_at) + waiting_ms, match_id, "waiting")
    return None


def open_matches(service: MatchService) -> dict[str, str]:
    """Every stored match without a ``match_ended``, with its creation time, from the log.

    One pass over the log's ``match_created`` and ``match_ended`` entries: how the clock
    recovers what is pending when a server process starts (nothing is taken from memory).
    """
    store = service.store
    created_topic, ended_topic = TOPICS[MatchCreated], TOPICS[MatchEnded]
    created: dict[str, str] = {}
    position = 0
    while True:
        page = store.log_after(position, LOG_PAGE, (created_topic, ended_topic))
        for entry in page:
            if entry.topic == created_topic:
                created[entry.match_id] = store.to_recorded(entry).at
            else:
                created.pop(entry.match_id, None)
        if len(page) < LOG_PAGE:
            return created
        position = page[-1].position


def created_at(service: MatchService, match_id: str) -> str:
    """The ``at`` of the match's ``match_created``."""
    return service.store.read(match_id, upto_seq=1)[0].at


def fire(service: MatchService, due: Due) -> Outcome:
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
    except (StaleDeadlineError, MatchNotWaitingError) as refused:
        log.debug("clock: %s %s no longer due: %s", due.kind, due.match_id, refused)
        return "stale"
    except DeadlineNotReachedError as refused:
        log.debug("clock: %s %s not due yet: %s", due.kind, due.match_id, refused)
        return "early"
    except ConflictError:
        log.debug("clock: %s %s lost a race with another writer", due.kind, due.match_id)
        return "conflict"
    return "fired"
