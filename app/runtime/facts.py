"""What the API needs to know about a match beyond its state: seat token hashes and requests.

``MatchState`` holds neither the token hashes (they live in ``seat_taken`` events) nor which
request caused which events, so each API process keeps these facts per match, built once from
the stream, kept current by the service's append listener, and topped up from the store when
another process may have appended (several workers on PostgreSQL).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, assert_never

from domain.events import (
    CardPlayed,
    CardsDealt,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    tagged,
)
from domain.recorded import RecordedEvent

IDEMPOTENT_PREFIX = "idem-"
"""Request ids of plays sent with an ``Idempotency-Key`` start with this."""


class EventSource(Protocol):
    """The part of the service the facts are read from."""

    def events(self, match_id: str, after_seq: int = 0) -> list[RecordedEvent]:
        """The match's events after ``after_seq``."""
        ...


def request_scope(request_id: str) -> str:
    """The key part of an idempotent request id ``idem-KEY-BODY`` (without the body part)."""
    return request_id.rsplit("-", 1)[0]


@dataclass(frozen=True)
class RequestRecord:
    """The events one idempotent play caused: ``first_seq``..``last_seq``, and what it played."""

    request_id: str
    first_seq: int
    last_seq: int
    seat: int | None
    card: str | None


@dataclass
class MatchFacts:
    """Per-match facts up to ``upto`` (the last seq absorbed)."""

    upto: int = 0
    token_hashes: dict[int, str] = field(default_factory=dict)
    token_ids: dict[int, str] = field(default_factory=dict)
    player_seats: dict[str, int] = field(default_factory=dict)  # seats never change hands
    requests: dict[str, RequestRecord] = field(default_factory=dict)  # by request_scope
    ended: bool = False

    def absorb(self, events: Sequence[RecordedEvent]) -> bool:
        """Take in events that follow ``upto``; False (nothing taken) if they leave a gap."""
        fresh = [r for r in events if r.seq > self.upto]
        if not fresh:
            return True
        if fresh[0].seq != self.upto + 1:
            return False
        for recorded in fresh:
            match tagged(recorded.event):
                case SeatTaken() as event:
                    if event.token_hash is not None:
                        self.token_hashes[event.seat] = event.token_hash
                        if event.token_id is not None:
                            self.token_ids[event.seat] = event.token_id
                    if isinstance(event.player_id, str):
                        self.player_seats[event.player_id] = event.seat
                case MatchEnded():
                    self.ended = True
                case (
                    MatchCreated()
                    | RoundStarted()
                    | CardsDealt()
                    | FloorDealt()
                    | CardPlayed()
                    | RoundScored()
                    | RematchCreated()
                ):
                    pass  # no token, no end
                case unreachable:
                    assert_never(unreachable)
            rid = recorded.request_id
            if rid is not None and rid.startswith(IDEMPOTENT_PREFIX):
                self._note_request(rid, recorded)
            self.upto = recorded.seq
        return True

    def _note_request(self, rid: str, recorded: RecordedEvent) -> None:
        scope = request_scope(rid)
        known = self.requests.get(scope)
        event = recorded.event
        if known is None or known.request_id != rid:
            played = event if isinstance(event, CardPlayed) else None
            self.requests[scope] = RequestRecord(
                rid,
                recorded.seq,
                recorded.seq,
                played.seat if played else None,
                played.card if played else None,
            )
        else:
            self.requests[scope] = RequestRecord(
                rid, known.first_seq, recorded.seq, known.seat, known.card
            )


class FactsCache:
    """The facts of recently used matches, least recently used dropped past ``capacity``."""

    def __init__(self, source: EventSource, capacity: int = 4096) -> None:
        self._source = source
        self._capacity = capacity
        self._facts: OrderedDict[str, MatchFacts] = OrderedDict()
        self._lock = threading.Lock()

    def on_append(self, match_id: str, events: list[RecordedEvent]) -> None:
        """The service's listener: absorb what this process appended (any thread)."""
        with self._lock:
            facts = self._facts.get(match_id)
            if facts is not None and not facts.absorb(events):
                # A gap: another process appended in between; read it all again when needed.
                del self._facts[match_id]

    def cached(self, match_id: str) -> MatchFacts | None:
        """The facts this process holds, without reading the store (safe on the event loop)."""
        with self._lock:
            return self._facts.get(match_id)

    def refresh(self, match_id: str) -> MatchFacts:
        """The facts with everything any process appended so far (one read of the store)."""
        facts = self.cached(match_id)
        return self.get(match_id, known_seq=(facts.upto + 1) if facts is not None else None)

    def get(self, match_id: str, *, known_seq: int | None = None) -> MatchFacts:
        """The match's facts, read from the store when unknown or older than ``known_seq``.

        Blocking: call it from a worker thread. Raises the service's MatchNotFoundError.
        """
        with self._lock:
            facts = self._facts.get(match_id)
            if facts is not None:
                self._facts.move_to_end(match_id)
                if known_seq is None or facts.upto >= known_seq:
                    return facts
        if facts is None:
            facts = MatchFacts()
            facts.absorb(self._source.events(match_id))
        else:
            more = self._source.events(match_id, facts.upto)
            with self._lock:
                fits = facts.absorb(more)
            if not fits:
                facts = MatchFacts()
                facts.absorb(self._source.events(match_id))
        if facts.upto == 0:
            return facts  # no such match (yet): nothing worth keeping
        with self._lock:
            current = self._facts.get(match_id)
            if current is None or current.upto < facts.upto:
                self._facts[match_id] = facts
            else:
                facts = current
            while len(self._facts) > self._capacity:
                self._facts.popitem(last=False)
        return facts
