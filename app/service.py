"""Commands as transactions: load → decide → append with the expected version.

Every command (create a match, take a seat, play a card, leave) loads the match, lets the rules
decide, lets every bot that is then on turn reply, and appends all of it in one transaction at
the seq it read. Another writer that got there first makes the append fail as a whole
(ConflictError): nothing is half-written. Each event records who caused it and the request id.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from app.config import resolve_store
from app.errors import ConflictError, MatchNotFoundError, StoreFaultError
from app.store import MatchStore
from app.store_cache import StateCache
from domain.bots import Bot, bot_at
from domain.cards import Card
from domain.commands import Command, CreateMatch, LeaveMatch, PlayCard, TakeSeat
from domain.decide import decide
from domain.errors import MatchAlreadyCreatedError
from domain.events import Event, MatchCreated
from domain.evolve import evolve, fold
from domain.state import INITIAL_STATE, MatchState
from domain.views import seat_view
from replays.errors import StreamError
from replays.recorded import RecordedEvent

log = logging.getLogger(__name__)

Listener = Callable[[str, list[RecordedEvent]], None]
"""Called with (match id, the events just appended) after every successful append."""

SNAPSHOT_EVERY = 50
"""A snapshot is kept each time a stream passes a multiple of this many events."""


def utc_now() -> str:
    """The record time of an event: UTC, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_match_id() -> str:
    """A fresh random match id."""
    return f"m-{secrets.token_hex(8)}"


def bot_for(state: MatchState, seat: int) -> Bot:
    """The bot of ``seat`` as it stands now (a random bot resumes its seeded stream)."""
    return bot_at(state, seat)


class MatchService:
    """Commands as transactions: load → decide → append with the expected version."""

    def __init__(
        self,
        store: MatchStore,
        *,
        snapshot_every: int = SNAPSHOT_EVERY,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        self.clock = clock  # the record time of each commit (a seeded simulation fixes it)
        self.cache = StateCache()
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()

    @classmethod
    def open(cls, db: Path | None = None, database_url: str | None = None) -> MatchService:
        """SQLite file at `db` (created on first use) unless a PostgreSQL URL / POSTGRES_* env
        selects PostgreSQL (app.config.resolve_store)."""
        return cls(MatchStore.open(resolve_store(db, database_url)))

    def close(self) -> None:
        """Release the store's connections."""
        self.store.close()

    # -- commands -----------------------------------------------------------------------------

    def create_match(
        self,
        *,
        ruleset: str,
        seats: int,
        target: int | None = None,
        bots: Sequence[int] = (),
        bot_kind: str = "easy",
        secret: bytes | None = None,
        client_seeds: Sequence[str] | None = None,
        match_id: str | None = None,
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> tuple[str, list[RecordedEvent]]:
        """Create a match; a table of bots only is dealt and played through at once."""
        match_id = match_id or new_match_id()
        if self.store.last_seq(match_id):
            raise MatchAlreadyCreatedError(f"match {match_id} already exists")
        command = CreateMatch(
            match_id=match_id,
            ruleset=ruleset,
            seats=seats,
            secret=secrets.token_bytes(32) if secret is None else secret,
            target=target,
            bots=tuple(bots),
            bot_kind=bot_kind,
            client_seeds=tuple(client_seeds) if client_seeds is not None else None,
        )
        steps: list[tuple[Event, str]] = []
        state = self._decide(INITIAL_STATE, command, caused_by, steps)
        state = self._bot_turns(state, steps)
        return match_id, self._commit(match_id, INITIAL_STATE, state, steps, request_id)

    def take_seat(
        self,
        match_id: str,
        seat: int,
        name: str,
        *,
        token_id: str | None = None,
        token_hash: str | None = None,
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> list[RecordedEvent]:
        """Seat a person; the last seat taken deals round 1, and bots on turn then play."""
        before = self.load(match_id)
        steps: list[tuple[Event, str]] = []
        command = TakeSeat(seat=seat, name=name, token_id=token_id, token_hash=token_hash)
        state = self._decide(before, command, caused_by, steps)
        state = self._bot_turns(state, steps)
        return self._commit(match_id, before, state, steps, request_id)

    def play_card(
        self,
        match_id: str,
        seat: int,
        card: Card,
        *,
        expected_seq: int | None = None,
        auto: bool = False,
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> list[RecordedEvent]:
        """Play a card (R13), then every bot reply; ``expected_seq`` must be the last seq.

        ``card`` is a card as ``domain.cards.parse_card`` returns it (callers parse text once).
        """
        before = self.load(match_id)
        if expected_seq is not None and expected_seq != before.events:
            raise ConflictError(
                f"match {match_id} is at seq {before.events}, not {expected_seq}",
                match_id=match_id,
            )
        steps: list[tuple[Event, str]] = []
        command = PlayCard(seat=seat, card=card, auto=auto)
        state = self._decide(before, command, caused_by, steps)
        state = self._bot_turns(state, steps)
        return self._commit(match_id, before, state, steps, request_id)

    def leave(
        self,
        match_id: str,
        seat: int,
        *,
        reason: str = "forfeit",
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> list[RecordedEvent]:
        """A seat leaves: its side forfeits (R26), or a waiting table is abandoned."""
        before = self.load(match_id)
        steps: list[tuple[Event, str]] = []
        state = self._decide(before, LeaveMatch(seat=seat, reason=reason), caused_by, steps)
        return self._commit(match_id, before, state, steps, request_id)

    def append_imported(self, match_id: str, recorded: list[RecordedEvent]) -> None:
        """Store a whole validated stream as a new match in one transaction, as given."""
        if not recorded or not isinstance(recorded[0].event, MatchCreated):
            raise StreamError("an imported stream starts with match_created")
        if recorded[0].event.match_id != match_id:
            raise StreamError(
                f"the stream's match_created names {recorded[0].event.match_id!r}, not {match_id!r}"
            )
        for expected, item in enumerate(recorded, 1):
            if item.seq != expected:
                raise StreamError(
                    f"an imported stream's seqs run 1, 2, …; found {item.seq} at {expected}"
                )
        if self.store.last_seq(match_id):
            raise MatchAlreadyCreatedError(f"match {match_id} already exists")
        self.store.append(match_id, recorded)
        state = fold(r.event for r in recorded)
        self._remember(match_id, state, previous=0)
        self._notify(match_id, list(recorded))

    # -- reading ------------------------------------------------------------------------------

    def load(self, match_id: str) -> MatchState:
        """The match's state after its last event (``state.events`` == last seq).

        The common case is a cached state plus one indexed read of anything newer (another
        process may have appended); a cold load starts from the latest snapshot.
        """
        cached = self.cache.get(match_id)
        if cached is not None:
            newer = self.store.read(match_id, after_seq=cached.events)
            if not newer:
                return cached
            state = fold((r.event for r in newer), cached)
            self.cache.put(match_id, state)
            return state
        base = self.store.latest_snapshot(match_id) or INITIAL_STATE
        newer = self.store.read(match_id, after_seq=base.events)
        if not newer and base.setup is None:
            raise MatchNotFoundError(match_id)
        state = fold((r.event for r in newer), base)
        self.cache.put(match_id, state)
        return state

    def load_from_stream(self, match_id: str) -> MatchState:
        """The match's state folded from its first event, bypassing cache and snapshots."""
        events = self.events(match_id)
        return fold(r.event for r in events)

    def events(self, match_id: str, after_seq: int = 0) -> list[RecordedEvent]:
        """The stream after ``after_seq``: full, unredacted, for the server's own use."""
        recorded = self.store.read(match_id, after_seq=after_seq)
        if not recorded and (after_seq <= 0 or not self.store.last_seq(match_id)):
            raise MatchNotFoundError(match_id)
        return recorded

    def match_ids(self) -> list[str]:
        """Every stored match id, oldest first."""
        return self.store.match_ids()

    def notifications_after(self, position: int, limit: int) -> list[tuple[int, str, int]]:
        """(global log position, match id, seq) of appends after ``position``, any process."""
        return [(e.position, e.match_id, e.seq) for e in self.store.log_after(position, limit)]

    def add_listener(self, callback: Listener) -> None:
        """Call ``callback(match_id, events)`` after every successful append in this process."""
        with self._listeners_lock:
            self._listeners.append(callback)

    def remove_listener(self, callback: Listener) -> None:
        """Stop calling ``callback``."""
        with self._listeners_lock:
            if callback in self._listeners:
                self._listeners.remove(callback)

    # -- inside a command ---------------------------------------------------------------------

    def _decide(
        self, state: MatchState, command: Command, cause: str, steps: list[tuple[Event, str]]
    ) -> MatchState:
        for event in decide(state, command):
            state = evolve(state, event)
            steps.append((event, cause))
        return state

    def _bot_turns(self, state: MatchState, steps: list[tuple[Event, str]]) -> MatchState:
        """Every bot on turn plays until a person is on turn or the match ends."""
        bots: dict[int, Bot] = {}
        while state.status == "playing" and state.turn is not None and state.is_bot(state.turn):
            seat = state.turn
            if state.setup is None or state.setup.key is None:
                break  # an imported match without its secret has no bot streams
            bot = bots.get(seat)
            if bot is None:
                bot = bots[seat] = bot_for(state, seat)
            card = bot.choose(seat_view(state, seat))
            state = self._decide(state, PlayCard(seat=seat, card=card), f"bot:{seat}", steps)
        return state

    def _commit(
        self,
        match_id: str,
        before: MatchState,
        after: MatchState,
        steps: list[tuple[Event, str]],
        request_id: str | None,
    ) -> list[RecordedEvent]:
        at = self.clock()
        recorded = [
            RecordedEvent(
                seq=before.events + i, at=at, event=event, caused_by=cause, request_id=request_id
            )
            for i, (event, cause) in enumerate(steps, 1)
        ]
        try:
            self.store.append(match_id, recorded)
        except ConflictError:
            self.cache.discard(match_id)
            raise
        self._remember(match_id, after, previous=before.events)
        self._notify(match_id, recorded)
        return recorded

    def _remember(self, match_id: str, state: MatchState, previous: int) -> None:
        self.cache.put(match_id, state)
        every = self.snapshot_every
        if every > 0 and state.events // every > previous // every:
            try:
                self.store.save_snapshot(match_id, state)
            except StoreFaultError as error:  # a snapshot is only a cache: the append stands
                log.warning("snapshot of %s at %d not kept: %s", match_id, state.events, error)

    def _notify(self, match_id: str, recorded: list[RecordedEvent]) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(match_id, recorded)
            except Exception:  # a listener's failure must not undo a stored command
                log.exception("listener %r failed for match %s", listener, match_id)
