"""Commands as transactions: load → decide → append with the expected version.

Every command (create a match, take a seat, play a card, leave) loads the match, lets the rules
decide, lets every bot that is then on turn reply (app.service.turns), and appends all of it in
one transaction at the seq it read. Another writer that got there first makes the append fail as
a whole (ConflictError): nothing is half-written. Each event records who caused it and the
request id. States come from app.service.states; listeners hear of every append.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from app.config import resolve_store
from app.errors import ConflictError, MatchNotFoundError
from app.service.chain_heads import NO_HEAD, ChainHeads, StreamHead
from app.service.listeners import Listener, Listeners
from app.service.states import SNAPSHOT_EVERY, MatchStates
from app.service.turns import Steps, apply, bot_turns, recorded
from app.store.cache import StateCache
from app.store.match_store import MatchStore
from domain.cards import Card
from domain.chain import chained
from domain.clock import turn_ran_out
from domain.commands import (
    AbandonTable,
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
    ) -> tuple[str, list[RecordedEvent]]:
        """Create a match; a table of bots only is dealt and played through at once.

        ``turn_seconds`` runs the turn clock (R25; None: none), ``private`` keeps the table out
        of the lobby, ``spectators=False`` shows it to seated players only, ``rematch_of`` links
        it to the ended match it follows. Without ``turn_seconds`` the server's turn time applies:
        ``server_turn_seconds``, else the service's own (R25: 1-600, where a table's own is
        5-600). ``reserved`` keeps a rematch's seats for players (player id by seat).
        """
        at = self.clock()
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
            now_us=utc_micros(at),
        )
        steps: Steps = []
        state = apply(INITIAL_STATE, command, caused_by, steps)
        state = bot_turns(state, steps, utc_micros(at))
        return match_id, self._commit(match_id, INITIAL_STATE, state, steps, request_id, at)

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
    ) -> list[RecordedEvent]:
        """Seat a person (``player_id``: a registered player) with their ``client_seed``; the
        last seat taken deals round 1 (its key made with every seat's seed), and bots on turn
        then play."""
        before = self.load(match_id)
        at = self._record_time(match_id, before, self.clock())
        steps: Steps = []
        command = TakeSeat(
            seat=seat,
            name=name,
            token_id=token_id,
            token_hash=token_hash,
            player_id=player_id,
            now_us=utc_micros(at),
            client_seed=client_seed,
        )
        state = bot_turns(apply(before, command, caused_by, steps), steps, utc_micros(at))
        return self._commit(match_id, before, state, steps, request_id, at)

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
    ) -> list[RecordedEvent]:
        """Play a card (R13), then every bot reply; ``expected_seq`` must be the last seq.

        ``card`` is a card as ``domain.cards.parse_card`` returns it (callers parse text once).
        ``arrived`` is when the play reached the server (now if not given): the deadline is
        judged at it, however often the play is decided again, and a play that arrived at or
        after the seat's deadline is refused (``TurnExpiredError``, R25), also when it names by
        ``expected_seq`` a turn the clock has since played. It is recorded at the later of its
        arrival and the stream's last record time, so a stream's times never go backwards.
        ``guard`` is called with the very state the play is decided on (and appended after, or
        not at all), each time it is decided: a check that raises refuses the play.

        The play is decided on the state this process cached, without reading the store first,
        when that state is at the client's ``expected_seq`` (or none is given): the append is at
        the next seq, so if another process moved the stream on meanwhile the store refuses it
        (ConflictError) and nothing is stored. Any refusal decided on that unchecked state is
        decided again on the state read from the store, so every answer is the one a read first
        would have given (docs/architecture.md, "Commands on the cached state").
        """
        arrived = arrived or self.clock()
        cached = self.states.cache.get(match_id)
        if cached is not None and expected_seq in (None, cached.events):
            try:
                return self._play(
                    match_id,
                    cached,
                    seat,
                    card,
                    expected_seq,
                    auto,
                    caused_by,
                    request_id,
                    arrived,
                    guard,
                )
            except (ConflictError, RulesRefusalError):
                pass  # maybe only stale: decided again below on what the store holds
        before = self.load(match_id)
        return self._play(
            match_id, before, seat, card, expected_seq, auto, caused_by, request_id, arrived, guard
        )

    def _play(
        self,
        match_id: str,
        before: MatchState,
        seat: int,
        card: Card,
        expected_seq: int | None,
        auto: bool,
        caused_by: str,
        request_id: str | None,
        arrived: str,
        guard: Callable[[MatchState], None] | None = None,
    ) -> list[RecordedEvent]:
        """``play_card`` decided on ``before`` and stored after its last seq."""
        if expected_seq is not None and expected_seq != before.events:
            self._refuse_stale_play(match_id, before, seat, expected_seq, arrived)
        if guard is not None:
            guard(before)
        at = self._record_time(match_id, before, arrived)
        steps: Steps = []
        command = PlayCard(
            seat=seat,
            card=card,
            auto=auto,
            now_us=utc_micros(at),
            arrived_us=utc_micros(arrived),
        )
        state = bot_turns(apply(before, command, caused_by, steps), steps, utc_micros(at))
        return self._commit(match_id, before, state, steps, request_id, at)

    def _refuse_stale_play(
        self, match_id: str, before: MatchState, seat: int, expected_seq: int, arrived: str
    ) -> None:
        """Refuse a play that names ``expected_seq`` when the stream is elsewhere.

        A play naming an earlier seq where it was ``seat``'s turn and that turn's deadline had
        passed when the play arrived is late, not stale: ``turn_expired`` (R25), whether or not
        the clock has played for the seat since. Any other is a conflict.
        """
        if 0 < expected_seq < before.events:
            named = fold(r.event for r in self.store.read(match_id, upto_seq=expected_seq))
            deadline = named.deadline
            if (
                named.turn == seat
                and deadline is not None
                and reached(utc_micros(arrived), deadline)
            ):
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
    ) -> list[RecordedEvent]:
        """A seat leaves: its side forfeits (R26), or a waiting table is abandoned."""
        before = self.load(match_id)
        steps: Steps = []
        state = apply(before, LeaveMatch(seat=seat, reason=reason), caused_by, steps)
        return self._commit(match_id, before, state, steps, request_id)

    def expire_turn(
        self, match_id: str, seat: int, deadline: str, *, caused_by: str = "clock"
    ) -> list[RecordedEvent]:
        """The clock fires (R25): ``seat``'s turn ran out at ``deadline``; bots then reply.

        Refused as stale when that deadline is no longer in force, and as early before it.
        """
        at, before, state, steps = self._expiry(match_id, seat, deadline, caused_by)
        return self._commit(match_id, before, state, steps, None, at)

    def _expiry(
        self, match_id: str, seat: int, deadline: str, caused_by: str
    ) -> tuple[str, MatchState, MatchState, Steps]:
        """The clock's reading, the match before, after the expiry (and the bots' replies), and
        the steps between: what ``expire_turn`` and ``expire_turns`` store."""
        before = self.load(match_id)
        at = self._record_time(match_id, before, self.clock())
        steps: Steps = []
        command = ExpireTurn(seat=seat, deadline=deadline, now_us=utc_micros(at))
        state = bot_turns(apply(before, command, caused_by, steps), steps, utc_micros(at))
        return at, before, state, steps

    def expire_turns(
        self, due: Sequence[tuple[str, int, str]], *, caused_by: str = "clock"
    ) -> list[list[RecordedEvent] | Exception]:
        """``expire_turn`` for several matches whose deadlines fell together, their appends
        sharing transactions: for each (match id, seat, deadline) the events stored, or the
        error that refused it alone (stale, early, a conflict), as ``expire_turn`` raises it."""
        outcomes: list[list[RecordedEvent] | Exception] = [[] for _ in due]
        ready: list[tuple[int, str, MatchState, MatchState, list[RecordedEvent]]] = []
        for n, (match_id, seat, deadline) in enumerate(due):
            try:
                at, before, state, steps = self._expiry(match_id, seat, deadline, caused_by)
                entries = self._recorded(match_id, before, state, steps, None, at)
            except Exception as refused:  # handed back for this match alone
                outcomes[n] = refused
                continue
            ready.append((n, match_id, before, state, entries))
        stored = self.store.append_many([(m, entries) for _, m, _, _, entries in ready])
        for (n, match_id, before, state, entries), outcome in zip(ready, stored, strict=True):
            if isinstance(outcome, Exception):
                if isinstance(outcome, ConflictError):
                    self._lost_race(match_id)
                outcomes[n] = outcome
                continue
            self._stored(match_id, before, state, entries)
            outcomes[n] = entries
        return outcomes

    def abandon_table(self, match_id: str, *, caused_by: str = "clock") -> list[RecordedEvent]:
        """Close a table still waiting for players (``match_ended``, reason ``abandoned``)."""
        before = self.load(match_id)
        at = self._record_time(match_id, before, self.clock())
        steps: Steps = []
        state = apply(before, AbandonTable(now_us=utc_micros(at)), caused_by, steps)
        return self._commit(match_id, before, state, steps, None, at)

    def record_rematch(
        self,
        match_id: str,
        rematch_id: str,
        *,
        caused_by: str = "server",
        request_id: str | None = None,
    ) -> list[RecordedEvent]:
        """Link the ended match ``match_id`` to its rematch ``rematch_id`` (``rematch_created``)."""
        before = self.load(match_id)
        steps: Steps = []
        state = apply(before, RecordRematch(match_id=rematch_id), caused_by, steps)
        return self._commit(match_id, before, state, steps, request_id)

    def append_imported(self, match_id: str, recorded: list[RecordedEvent]) -> None:
        """Store a whole validated stream as a new match in one transaction, as given."""
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
        if self.store.last_seq(match_id):
            raise MatchAlreadyCreatedError(f"match {match_id} already exists")
        self.store.append(match_id, recorded)
        self.states.remember(match_id, fold(r.event for r in recorded), previous=0)
        self.listeners.notify(match_id, list(recorded))

    # -- reading ------------------------------------------------------------------------------

    def load(self, match_id: str) -> MatchState:
        """The match's state after its last event (``state.events`` == last seq)."""
        return self.states.load(match_id)

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

    def _record_time(self, match_id: str, before: MatchState, now: str) -> str:
        """When a command decided on ``before`` at ``now`` is recorded: ``now``, or the stream's
        last record time if that is later (another process's clock, or a race this command lost
        and decides again), so the stream's times never go backwards (docs/replay-format.md)."""
        return later(now, self._head(match_id, before.events).at)

    def _commit(
        self,
        match_id: str,
        before: MatchState,
        after: MatchState,
        steps: Steps,
        request_id: str | None,
        at: str | None = None,
    ) -> list[RecordedEvent]:
        """Append ``steps`` after ``before``'s last seq in one transaction, recorded at ``at``
        (the clock's reading the command was decided with; now if not given), then cache and
        tell."""
        entries = self._recorded(match_id, before, after, steps, request_id, at)
        try:
            self.store.append(match_id, entries)
        except ConflictError:
            self._lost_race(match_id)
            raise
        self._stored(match_id, before, after, entries)
        return entries

    def _lost_race(self, match_id: str) -> None:
        """Another writer moved the stream on: what this process cached of it is stale."""
        self.states.forget(match_id)
        self.heads.discard(match_id)

    def _recorded(
        self,
        match_id: str,
        before: MatchState,
        after: MatchState,
        steps: Steps,
        request_id: str | None,
        at: str | None,
    ) -> list[RecordedEvent]:
        """``steps`` as the events to store after ``before``'s last seq, chained, recorded no
        earlier than the event before them."""
        head = self._head(match_id, before.events)
        entries = recorded(steps, before.events, later(at or self.clock(), head.at), request_id)
        # The chain is computed where events are recorded: each link follows the last stored.
        secret = after.setup.secret if after.setup is not None else None
        return chained(entries, head.chain, secret)

    def _stored(
        self, match_id: str, before: MatchState, after: MatchState, entries: list[RecordedEvent]
    ) -> None:
        """After ``entries`` were stored: the chain head, the cached state, the listeners."""
        if entries:
            self.heads.put(match_id, entries[-1].seq, entries[-1].chain, entries[-1].at)
        self.states.remember(match_id, after, previous=before.events)
        self.listeners.notify(match_id, entries)
