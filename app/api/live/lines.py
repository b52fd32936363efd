"""The SSE messages of a match's events, made once per viewer class and shared by its feeds.

Every feed of a match sends the same event to its client at about the same moment. Folding the
event into the table, working out ``after`` and encoding the message once per feed made a play
at a table with three feeds cost three folds and three encodings (docs/performance.md, "the
profile"). Here the state after each recent event of a match and its encoded messages are kept
once per process: a public event (a card played, a round scored) is one message for every
viewer, a private one (``cards_dealt``, R23) one per seat, and the table after it one for all.

Used on the event loop only (feeds run there), so no lock. Bounded: the last ``KEPT_SEQS``
events of at most ``KEPT_MATCHES`` matches.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from litestar.response import ServerSentEventMessage

from app.api.table.after import After, with_after
from domain.events import (
    CardPlayed,
    FloorDealt,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
)
from domain.recorded import RecordedEvent, event_line
from domain.redaction import EVERYONE, SUPPORT
from domain.state import MatchState

PUBLIC_EVENTS = (CardPlayed, FloorDealt, MatchEnded, RematchCreated, RoundScored, RoundStarted)
"""Events every viewer sees alike (domain.redaction): one message for all of them."""

KEPT_SEQS = 4
"""Recent events kept per match: its feeds send an event within moments of each other."""

KEPT_MATCHES = 20_000
"""Matches kept, least recently sent first out."""


class EncodedMessage(ServerSentEventMessage):
    """A message whose bytes were made already (Litestar asks each message to ``encode``)."""

    def __init__(self, seq: int, raw: bytes) -> None:
        super().__init__(data=None, id=seq)
        self.raw = raw

    def encode(self) -> bytes:
        """The bytes as made once."""
        return self.raw


@dataclass
class _Match:
    """One match's recent events: the state after each, and its messages by viewer class."""

    states: dict[int, tuple[MatchState, After]] = field(default_factory=dict)
    messages: dict[tuple[int, int, bool], EncodedMessage] = field(default_factory=dict)


class MessageCache:
    """The shared messages of every match a feed of this process follows."""

    def __init__(self) -> None:
        self._matches: OrderedDict[str, _Match] = OrderedDict()
        self.made = 0  # messages encoded
        self.shared = 0  # messages sent from the cache

    def _match(self, match_id: str) -> _Match:
        found = self._matches.get(match_id)
        if found is None:
            found = self._matches[match_id] = _Match()
            if len(self._matches) > KEPT_MATCHES:
                self._matches.popitem(last=False)
        else:
            self._matches.move_to_end(match_id)
        return found

    def state_after(self, match_id: str, seq: int) -> tuple[MatchState, After] | None:
        """The table after event ``seq``, if a feed of this process worked it out."""
        found = self._matches.get(match_id)
        return None if found is None else found.states.get(seq)

    def keep_state(self, match_id: str, state: MatchState, after: After) -> None:
        """Keep the table after event ``state.events``."""
        kept = self._match(match_id).states
        kept[state.events] = (state, after)
        for old in [s for s in kept if s <= state.events - KEPT_SEQS]:
            del kept[old]

    def message(
        self, match_id: str, recorded: RecordedEvent, viewer: int, ended: bool, after: After
    ) -> EncodedMessage:
        """The SSE message of ``recorded`` for ``viewer``, made once per viewer class."""
        # Support's lines carry more (what caused the event): never shared with the others.
        public = isinstance(recorded.event, PUBLIC_EVENTS) and viewer != SUPPORT
        key = (recorded.seq, EVERYONE, False) if public else (recorded.seq, viewer, ended)
        entry = self._match(match_id)
        found = entry.messages.get(key)
        if found is not None:
            self.shared += 1
            return found
        line = with_after(event_line(recorded, viewer, ended), after)
        made = EncodedMessage(recorded.seq, b"id: %d\r\ndata: %s\r\n\r\n" % (recorded.seq, line))
        self.made += 1
        entry.messages[key] = made
        for old in [k for k in entry.messages if k[0] <= recorded.seq - KEPT_SEQS]:
            del entry.messages[old]
        return made
