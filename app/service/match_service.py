"""The commands of a match and the reads of its stream, over one pipeline.

Every command (create a match, take a seat, play a card, leave, the clock's expiries and
closures, a rematch link) is made here and run by the pipeline (app.service.pipeline): load →
decide (with the bots' replies) → chain → append → cache → notify, all of it in one transaction
at the seq it read. Another writer that got there first makes the append fail as a whole
(ConflictError): nothing is half-written. Each event records who caused it and the request id.
Every command returns its ``Outcome`` (app.service.outcome): the states before and after, the
events stored, or what refused it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from app.config import resolve_store
from app.errors import ConflictError, MatchNotFoundError
from app.service.clocks import utc_now
from app.service.outcome import Outcome
from app.service.pipeline import CONFLICT_RETRIES, CommandAt, CommandPipeline, refusal
from app.service.states import SNAPSHOT_EVERY
from app.store.match_store import MatchStore
from domain.cards import Card
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
from domain.errors import MatchAlreadyCreatedError
from domain.events import MatchCreated
from domain.evolve import fold
from domain.recorded import RecordedEvent, misnumbered
from domain.state import INITIAL_STATE, MatchState
from domain.times import reached, utc_micros
from replays.errors import StreamError


def new_match_id() -> str:
    """A fresh random match id."""
    return f"m-{secrets.token_hex(8)}"


class MatchService(CommandPipeline):
    """The commands of a match (each run by the pipeline) and the reads of its stream."""

    def __init__(
        self,
        store: MatchStore,
        *,
        snapshot_every: int = SNAPSHOT_EVERY,
        clock: Callable[[], str] = utc_now,
        turn_seconds: int | None = None,
    ) -> None:
        super().__init__(store, snapshot_every=snapshot_every, clock=clock)
        # R25: the turn time of tables created without one (``basra serve --turn-seconds``);
        # None runs no clock (tools without a server).
        self.turn_seconds = turn_seconds

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
        paired: str | None = None,
    ) -> Outcome:
        """Create a match; a table of bots only is dealt and played through at once.

        ``turn_seconds`` runs the turn clock (R25; None: none), ``private`` keeps the table out
        of the lobby, ``spectators=False`` shows it to seated players only, ``rematch_of`` links
        it to the ended match it follows. Without ``turn_seconds`` the server's turn time applies:
        ``server_turn_seconds``, else the service's own (R25: 1-600, where a table's own is
        5-600). ``reserved`` keeps a rematch's or a pairing's seats for players (player id by
        seat); ``paired`` names the rated pool's pairing that made the table.
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
                paired=paired,
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
                raise turn_ran_out(seat, deadline, arrived_us)
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
                outcomes.append(refusal("expire", match_id, INITIAL_STATE, refused))
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
            self.observers.notify(refusal("import", match_id, INITIAL_STATE, refused))
            raise
        outcome = Outcome(
            "import", match_id, INITIAL_STATE, fold(r.event for r in recorded), tuple(recorded)
        )
        self._stored(outcome)
        self.observers.notify(outcome)
        return outcome

    # -- reading ------------------------------------------------------------------------------

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


def _expiry(seat: int, deadline: str) -> CommandAt:
    """The clock's command for ``seat``'s turn that ran out at ``deadline`` (R25)."""
    return lambda now_us: ExpireTurn(seat=seat, deadline=deadline, now_us=now_us)


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
