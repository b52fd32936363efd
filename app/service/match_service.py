"""Commands as transactions: one pipeline, load → decide → chain → append → cache → notify.

Every command (create a match, take a seat, play a card, leave, the clock's expiries and
closures, a rematch link) loads the match, lets the rules decide, lets every bot that is then on
turn reply (app.service.turns), and appends all of it in one transaction at the seq it read.
Another writer that got there first makes the append fail as a whole (ConflictError): nothing is
half-written. Each event records who caused it and the request id. Every command returns its
``Outcome`` (app.service.outcome): the states before and after, the events stored, or what
refused it; listeners hear of every append, observers of every outcome.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from app.config import resolve_store
from app.errors import ConflictError, MatchNotFoundError
from app.service.chain_heads import NO_HEAD, ChainHeads, StreamHead
from app.service.listeners import Listener, Listeners, Observers
from app.service.outcome import CommandKind, Observer, Outcome
from app.service.states import SNAPSHOT_EVERY, MatchStates
from app.service.turns import Steps, apply, bot_turns, recorded
from app.store.cache import StateCache
from app.store.match_store import MatchStore
from domain.cards import Card
from domain.chain import chained
from domain.clock import turn_ran_out
from domain.commands import (
    AbandonTable,
    Command,
    CreateMatch,
    ExpireTurn,
    LeaveMatch,
    PlayCard,
    RecordRematch,
    TakeSeat,
)
from domain.errors import MatchAlreadyCreatedError, RulesRefusalError
from domain.events import MatchCreated
from domain.evolve import fold
from domain.recorded import RecordedEvent, misnumbered
from domain.state import INITIAL_STATE, MatchState
from domain.times import later, reached, utc_micros, utc_text, utc_text_us
from replays.errors import StreamError


def utc_now() -> str:
    """The record time of an event: UTC, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    return utc_text_us(time.time_ns() // 1000)


def fast_clock(anchor_ms: int, speed: float) -> Callable[[], str]:
    """A test clock that runs ``speed`` times faster than the wall clock after ``anchor_ms``.

    For end-to-end tests of the turn clock only (``BASRA_TEST_CLOCK``, docs/api.md "The turn
    clock"): at 5x a 5-second turn, the shortest the rules allow, passes in one real second.
    Every process given the same anchor reads the same time, across restarts.
    """

    def read() -> str:
        now_ms = time.time_ns() // 1_000_000
        return utc_text(anchor_ms + round((now_ms - anchor_ms) * speed))

    return read


def epoch_ms(at: str) -> int:
    """The Unix epoch milliseconds of a record time (the turn clock's schedule counts in ms)."""
    return utc_micros(at) // 1000


def new_match_id() -> str:
    """A fresh random match id."""
    return f"m-{secrets.token_hex(8)}"


class MatchService:
    """Commands as transactions: load → decide → append with the expected version."""

    def __init__(
        self,
        store: MatchStore,
        *,
        snapshot_every: int = SNAPSHOT_EVERY,
        clock: Callable[[], str] = utc_now,
        turn_seconds: int | None = None,
    ) -> None:
        self.store = store
        self.states = MatchStates(store, snapshot_every=snapshot_every)
        # The one clock of this service: read once per command, it is both the record time of
        # the commit and the command's ``now_us`` (R25), so a deadline counts from the ``at`` of
        # the event that passed the turn. A seeded simulation fixes it; tests drive it.
        self.clock = clock
        # R25: the turn time of tables created without one (``basra serve --turn-seconds``);
        # None runs no clock (tools without a server).
        self.turn_seconds = turn_seconds
        self.listeners = Listeners()
        self.observers = Observers()  # told every command's outcome, stored or refused
        self.heads = ChainHeads()  # the last chain link stored per match (app.service.chain_heads)

    @classmethod
    def open(cls, db: Path | None = None, database_url: str | None = None) -> MatchService:
        """SQLite file at `db` (created on first use) unless a PostgreSQL URL / POSTGRES_* env
        selects PostgreSQL (app.config.resolve_store)."""
        return cls(MatchStore.open(resolve_store(db, database_url)))

    def close(self) -> None:
        """Release the store's connections."""
        self.store.close()

    @property
    def cache(self) -> StateCache:
        """The folded states this process keeps (the state a command just stored, if current)."""
        return self.states.cache

    # -- commands -----------------------------------------------------------------------------

    def create_match(
        self,
        *,
        ruleset: str,
        seats: int,
        target: int | None = None,
        bots: Sequence[int] = (),
        bot_kind: str = "easy",
        bot_kinds: dict[int, str] | None = None,
        bot_budget: int | None = None,
        secret: bytes | None = None,
        client_seeds: Sequence[str] | None = None,
        match_id: str | None = None,
        caused_by: str = "server",
        request_id: str | None = None,
        turn_seconds: int | None = None,
        private: bool = False,
        spectators: bool = True,
        rematch_of: str | None = None,
        server_turn_seconds: int | None = None,
        reserved: Sequence[str | None] | None = None,
    ) -> Outcome:
        """Create a match; a table of bots only is dealt and played through at once.

        ``turn_seconds`` runs the turn clock (R25; None: none), ``private`` keeps the table out
        of the lobby, ``spectators=False`` shows it to seated players only, ``rematch_of`` links
        it to the ended match it follows. Without ``turn_seconds`` the server's turn time applies:
        ``server_turn_seconds``, else the service's own (R25: 1-600, where a table's own is
        5-600). ``reserved`` keeps a rematch's seats for players (player id by seat).
        """
        match_id = match_id or new_match_id()
        secret = secrets.token_bytes(32) if secret is None else secret

        def command(now_us: int) -> CreateMatch:
            return CreateMatch(
                match_id=match_id,
                ruleset=ruleset,
                seats=seats,
                secret=secret,
                target=target,
                bots=tuple(bots),
                bot_kind=bot_kind,
                bot_kinds=bot_kinds,
                bot_budget=bot_budget,
                client_seeds=tuple(client_seeds) if client_seeds is not None else None,
                turn_seconds=turn_seconds,
                server_turn_seconds=(
                    self.turn_seconds if server_turn_seconds is None else server_turn_seconds
                ),
                private=private,
                spectators=spectators,
                rematch_of=rematch_of,
                reserved=None if reserved is None else tuple(reserved),
                now_us=now_us,
            )

        return self._run(
            "create",
            match_id,
            command,
            caused_by=caused_by,
            request_id=request_id,
            new=True,
        )

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
        player_id: str | None = None,
        client_seed: str = "",
    ) -> Outcome:
        """Seat a person (``player_id``: a registered player) with their ``client_seed``; the
        last seat taken deals round 1 (its key made with every seat's seed), and bots on turn
        then play."""

        def command(now_us: int) -> TakeSeat:
            return TakeSeat(
                seat=seat,
                name=name,
                token_id=token_id,
                token_hash=token_hash,
                player_id=player_id,
                now_us=now_us,
                client_seed=client_seed,
            )

        return self._run("seat", match_id, command, caused_by=caused_by, request_id=request_id)

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
        arrived: str | None = None,
        guard: Callable[[MatchState], None] | None = None,
    ) -> Outcome:
        """Play a card (R13), then every bot reply; ``expected_seq`` must be the last seq.

        ``card`` is a card as ``domain.cards.parse_card`` returns it (callers parse text once).
        ``arrived`` is when the play reached the server (now if not given): the deadline is
        judged at it, however often the play is decided again, and a play that arrived at or
        after the seat's deadline is refused (``TurnExpiredError``, R25), also when it names by
        ``expected_seq`` a turn the clock has since played. It is recorded at the later of its
        arrival and the stream's last record time, so a stream's times never go backwards.
        ``guard`` is called with the very state the play is decided on (and appended after, or
        not at all), each time it is decided, before anything else: a check that raises refuses
        the play.

        The play is decided first on the state this process cached, without reading the store,
        when that state is at the client's ``expected_seq`` (or none is given); a play without
        ``expected_seq`` that loses a race is decided again on the new state (``CONFLICT_RETRIES``).
        See ``_run`` for what is retried and how (docs/architecture.md, "Commands on the cached
        state").
        """
        arrived = arrived or self.clock()
        arrived_us = utc_micros(arrived)

        def check(before: MatchState) -> None:
            if guard is not None:
                guard(before)
            if expected_seq is not None and expected_seq != before.events:
                self._refuse_stale_play(match_id, before, seat, expected_seq, arrived_us)

        def command(now_us: int) -> PlayCard:
            return PlayCard(seat=seat, card=card, auto=auto, now_us=now_us, arrived_us=arrived_us)

        return self._run(
            "play",
            match_id,
            command,
            caused_by=caused_by,
            request_id=request_id,
            now=arrived,
            check=check,
            cached=True,
            expected_seq=expected_seq,
            conflict_retries=CONFLICT_RETRIES if expected_seq is None else 0,
        )

    def _refuse_stale_play(
        self, match_id: str, before: MatchState, seat: int, expected_seq: int, arrived_us: int
    ) -> None:
        """Refuse a play that names ``expected_seq`` when the stream is elsewhere.

        A play naming an earlier seq where it was ``seat``'s turn and that turn's deadline had
        passed when the play arrived is late, not stale: ``turn_expired`` (R25), whether or not
        the clock has played for the seat since. Any other is a conflict.
        """
        if 0 < expected_seq < before.events:
            named = fold(r.event for r in self.store.read(match_id, upto_seq=expected_seq))
            deadline = named.deadline
            if named.turn == seat and deadline is not None and reached(arrived_us, deadline):
                raise turn_ran_out(seat, deadline)
        raise ConflictError(
            f"match {match_id} is at seq {before.events}, not {expected_seq}",
            match_id=match_id,
        )

    def leave(
        self,
        match_id: str,
        seat: int,
        *,
        reason: str = "forfeit",
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> Outcome:
        """A seat leaves: its side forfeits (R26), or a waiting table is abandoned."""
        leave = LeaveMatch(seat=seat, reason=reason)
        return self._run(
            "leave", match_id, lambda _: leave, caused_by=caused_by, request_id=request_id
        )

    def expire_turn(
        self, match_id: str, seat: int, deadline: str, *, caused_by: str = "clock"
    ) -> Outcome:
        """The clock fires (R25): ``seat``'s turn ran out at ``deadline``; bots then reply.

        Refused as stale when that deadline is no longer in force, and as early before it.
        """
        return self._run("expire", match_id, _expiry(seat, deadline), caused_by=caused_by)

    def expire_turns(
        self, due: Sequence[tuple[str, int, str]], *, caused_by: str = "clock"
    ) -> list[Outcome]:
        """``expire_turn`` for several matches whose deadlines fell together, their appends
        sharing transactions: for each (match id, seat, deadline) its outcome, refused alone
        (stale, early, a conflict) as ``expire_turn`` would raise it."""
        outcomes: list[Outcome] = []
        for match_id, seat, deadline in due:
            command = _expiry(seat, deadline)
            try:
                before = self.load(match_id)
                outcomes.append(self._decided("expire", match_id, before, command, caused_by))
            except Exception as refused:  # handed back for this match alone
                outcomes.append(_refusal("expire", match_id, INITIAL_STATE, refused))
        ready = [o for o in outcomes if o.refused is None]
        stored = self.store.append_many([(o.match_id, list(o.recorded)) for o in ready])
        done = dict(zip((id(o) for o in ready), stored, strict=True))
        results: list[Outcome] = []
        for outcome in outcomes:
            fault = done.get(id(outcome))
            if isinstance(fault, Exception):
                if isinstance(fault, ConflictError):
                    self._lost_race(outcome.match_id)
                outcome = replace(outcome, after=outcome.before, recorded=(), refused=fault)
            elif outcome.refused is None:
                self._stored(outcome)
            self.observers.notify(outcome)
            results.append(outcome)
        return results

    def abandon_table(self, match_id: str, *, caused_by: str = "clock") -> Outcome:
        """Close a table still waiting for players (``match_ended``, reason ``abandoned``)."""
        return self._run("abandon", match_id, lambda now_us: AbandonTable(now_us=now_us), caused_by)

    def record_rematch(
        self,
        match_id: str,
        rematch_id: str,
        *,
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> Outcome:
        """Link the ended match ``match_id`` to its rematch ``rematch_id`` (``rematch_created``)."""
        link = RecordRematch(match_id=rematch_id)
        return self._run(
            "rematch", match_id, lambda _: link, caused_by=caused_by, request_id=request_id
        )

    def append_imported(self, match_id: str, recorded: list[RecordedEvent]) -> Outcome:
        """Store a whole validated stream as a new match in one transaction, as given."""
        try:
            _check_imported(match_id, recorded)
            if self.store.last_seq(match_id):
                raise MatchAlreadyCreatedError(f"match {match_id} already exists")
            self.store.append(match_id, recorded)
        except Exception as refused:
            self.observers.notify(_refusal("import", match_id, INITIAL_STATE, refused))
            raise
        outcome = Outcome(
            "import", match_id, INITIAL_STATE, fold(r.event for r in recorded), tuple(recorded)
        )
        self._stored(outcome)
        self.observers.notify(outcome)
        return outcome

    # -- reading ------------------------------------------------------------------------------

    def load(self, match_id: str) -> MatchState:
        """The match's state after its last event (``state.events`` == last seq)."""
        return self.states.load(match_id)

    def state_at(self, match_id: str, seq: int) -> MatchState:
        """The match's state right after ``seq``: the latest (cached or loaded) while the match
        is still there, else folded from its first event up to ``seq``."""
        state = self.cache.get(match_id)
        if state is None or state.events != seq:
            state = self.load(match_id)
        if state.events != seq:
            state = fold(r.event for r in self.store.read(match_id, upto_seq=seq))
        return state

    def load_from_stream(self, match_id: str) -> MatchState:
        """The match's state folded from its first event, bypassing cache and snapshots."""
        events = self.events(match_id)
        return fold(r.event for r in events)

    def events(self, match_id: str, after_seq: int = 0) -> list[RecordedEvent]:
        """The stream after ``after_seq``: full, unredacted, for the server's own use."""
        stream = self.store.read(match_id, after_seq=after_seq)
        if not stream and (after_seq <= 0 or not self.store.last_seq(match_id)):
            raise MatchNotFoundError(match_id)
        return stream

    def match_ids(self) -> list[str]:
        """Every stored match id, oldest first."""
        return self.store.match_ids()

    def notifications_after(self, position: int, limit: int) -> list[tuple[int, str, int]]:
        """(global log position, match id, seq) of appends after ``position``, any process."""
        return [(e.position, e.match_id, e.seq) for e in self.store.log_after(position, limit)]

    def add_listener(self, callback: Listener) -> None:
        """Call ``callback(match_id, events)`` after every successful append in this process."""
        self.listeners.add(callback)

    def add_observer(self, callback: Observer) -> None:
        """Call ``callback(outcome)`` after every command in this process, stored or refused."""
        self.observers.add(callback)

    # -- storing a command's outcome ----------------------------------------------------------

    def chain_head(self, match_id: str, seq: int) -> str | None:
        """The chain link of the stored event at ``seq`` (None before seq 1, or unchained)."""
        return self._head(match_id, seq).chain

    def _head(self, match_id: str, seq: int) -> StreamHead:
        """The stored event at ``seq``'s chain link and record time: the ones this process last
        stored when it is at that seq, else read from the store."""
        if seq <= 0:
            return NO_HEAD
        known = self.heads.get(match_id, seq)
        if known is not None:
            return known
        last = self.store.read(match_id, after_seq=seq - 1, upto_seq=seq)
        if not last:
            return NO_HEAD
        self.heads.put(match_id, seq, last[0].chain, last[0].at)
        return StreamHead(last[0].chain, last[0].at)

    # -- the pipeline: load → decide → chain → append → cache → notify ------------------------

    def _run(
        self,
        kind: CommandKind,
        match_id: str,
        command: CommandAt,
        caused_by: str,
        request_id: str | None = None,
        *,
        now: str | None = None,
        check: Callable[[MatchState], None] | None = None,
        new: bool = False,
        cached: bool = False,
        expected_seq: int | None = None,
        conflict_retries: int = 0,
    ) -> Outcome:
        """Run one command through the pipeline; its outcome, or its refusal raised.

        The one retry policy. With ``cached`` the command is decided first on the state this
        process cached, without reading the store, when that state is at ``expected_seq`` (or
        none is given): the append is at the next seq, so if another process moved the stream
        on meanwhile the store refuses it (ConflictError) and nothing is stored. A refusal or a
        conflict decided on that unchecked state is decided again on the state the store holds,
        so every answer is the one a read first would have given. A command decided on the
        stored state that loses the append to another writer is decided again at most
        ``conflict_retries`` times. ``check`` runs first on each state decided on.
        """
        now = now or self.clock()
        before = INITIAL_STATE
        try:
            if new and self.store.last_seq(match_id):
                raise MatchAlreadyCreatedError(f"match {match_id} already exists")
            unchecked = self.cache.get(match_id) if cached else None
            if unchecked is not None and expected_seq not in (None, unchecked.events):
                unchecked = None
            while True:
                checked = unchecked is None
                if unchecked is not None:
                    before, unchecked = unchecked, None
                else:
                    before = INITIAL_STATE if new else self.load(match_id)
                try:
                    if check is not None:
                        check(before)
                    outcome = self._decided(
                        kind, match_id, before, command, caused_by, now, request_id
                    )
                    self._append(outcome)
                    break
                except ConflictError:
                    if checked and conflict_retries <= 0:
                        raise
                    conflict_retries -= checked  # a stale cache's loss costs no retry
                except RulesRefusalError:
                    if checked:
                        raise
        except Exception as refused:
            self.observers.notify(_refusal(kind, match_id, before, refused))
            raise
        self._stored(outcome)
        self.observers.notify(outcome)
        return outcome

    def _decided(
        self,
        kind: CommandKind,
        match_id: str,
        before: MatchState,
        command: CommandAt,
        caused_by: str,
        now: str | None = None,
        request_id: str | None = None,
    ) -> Outcome:
        """``command`` decided on ``before``, every bot on turn after it replying, as the
        chained events to store after ``before``'s last seq, recorded no earlier than the event
        before them. Nothing is stored."""
        head = self._head(match_id, before.events)
        at = later(now or self.clock(), head.at)
        now_us = utc_micros(at)
        decided = command(now_us)
        steps: Steps = []
        after = bot_turns(apply(before, decided, caused_by, steps), steps, now_us)
        entries = recorded(steps, before.events, at, request_id)
        # The chain is computed where events are recorded: each link follows the last stored.
        secret = after.setup.secret if after.setup is not None else None
        entries = chained(entries, head.chain, secret)
        return Outcome(kind, match_id, before, after, tuple(entries), decided)

    def _append(self, outcome: Outcome) -> None:
        """Append the outcome's events after its ``before``'s last seq, in one transaction."""
        try:
            self.store.append(outcome.match_id, outcome.recorded)
        except ConflictError:
            self._lost_race(outcome.match_id)
            raise

    def _lost_race(self, match_id: str) -> None:
        """Another writer moved the stream on: what this process cached of it is stale."""
        self.states.forget(match_id)
        self.heads.discard(match_id)

    def _stored(self, outcome: Outcome) -> None:
        """After the outcome's events were stored: the chain head, the cached state, the
        listeners."""
        entries = outcome.events
        if entries:
            last = entries[-1]
            self.heads.put(outcome.match_id, last.seq, last.chain, last.at)
        self.states.remember(outcome.match_id, outcome.after, previous=outcome.before.events)
        self.listeners.notify(outcome.match_id, entries)


CommandAt = Callable[[int], Command]
"""A command as made at its record time (Unix µs, the ``now_us`` the rules judge it at)."""

CONFLICT_RETRIES = 3
"""How often a play without ``expected_seq`` is decided again after losing a race."""


def _expiry(seat: int, deadline: str) -> CommandAt:
    """The clock's command for ``seat``'s turn that ran out at ``deadline`` (R25)."""
    return lambda now_us: ExpireTurn(seat=seat, deadline=deadline, now_us=now_us)


def _refusal(kind: CommandKind, match_id: str, before: MatchState, refused: Exception) -> Outcome:
    """The outcome of a command that stored nothing: ``refused`` says why."""
    return Outcome(kind, match_id, before, before, refused=refused)


def _check_imported(match_id: str, recorded: Sequence[RecordedEvent]) -> None:
    """An imported stream starts with ``match_id``'s ``match_created`` and runs 1, 2, …"""
    if not recorded or not isinstance(recorded[0].event, MatchCreated):
        raise StreamError("an imported stream starts with match_created")
    if recorded[0].event.match_id != match_id:
        raise StreamError(
            f"the stream's match_created names {recorded[0].event.match_id!r}, not {match_id!r}"
        )
    wrong = misnumbered(r.seq for r in recorded)
    if wrong is not None:
        found, expected = wrong
        raise StreamError(f"an imported stream's seqs run 1, 2, …; found {found} at {expected}")
