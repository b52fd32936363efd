"""The one path of every command: load → decide → chain → append → cache → notify.

``CommandPipeline._run`` takes a command (made at its record time), the state it is decided on
(this process's cached state first where a command allows it, else the stored one), lets the
rules decide it and every bot then on turn reply (app.service.turns), chains the events after
the last stored link, appends them in one transaction at the seq it read, then caches the state
after, tells the listeners and hands its ``Outcome`` to the observers and the caller. The one
retry policy lives here. ``MatchService`` names the commands on top of it.
"""

from __future__ import annotations

from collections.abc import Callable

from app.errors import ConflictError
from app.service.chain_heads import NO_HEAD, ChainHeads, StreamHead
from app.service.clocks import utc_now
from app.service.listeners import Listener, Listeners, Observers
from app.service.outcome import CommandKind, Observer, Outcome
from app.service.states import SNAPSHOT_EVERY, MatchStates
from app.service.turns import Steps, apply, bot_turns, recorded
from app.store.cache import StateCache
from app.store.match_store import MatchStore
from domain.chain import chained
from domain.commands import AnyCommand
from domain.errors import MatchAlreadyCreatedError, RulesRefusalError
from domain.recorded import RecordedEvent
from domain.state import INITIAL_STATE, MatchState
from domain.times import later, utc_micros

CommandAt = Callable[[int], AnyCommand]
"""A command as made at its record time (Unix µs, the ``now_us`` the rules judge it at)."""

CONFLICT_RETRIES = 3
"""How often a play without ``expected_seq`` is decided again after losing a race."""


class CommandPipeline:
    """A match store's commands run one way, with the states, chain heads and callbacks they
    keep in this process."""

    def __init__(
        self,
        store: MatchStore,
        *,
        snapshot_every: int = SNAPSHOT_EVERY,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.store = store
        self.states = MatchStates(store, snapshot_every=snapshot_every)
        # The one clock of this service: read once per command, it is both the record time of
        # the commit and the command's ``now_us`` (R25), so a deadline counts from the ``at`` of
        # the event that passed the turn. A seeded simulation fixes it; tests drive it.
        self.clock = clock
        self.listeners = Listeners()
        self.observers = Observers()  # told every command's outcome, stored or refused
        self.heads = ChainHeads()  # the last chain link stored per match (app.service.chain_heads)

    @property
    def cache(self) -> StateCache:
        """The folded states this process keeps (the state a command just stored, if current)."""
        return self.states.cache

    def load(self, match_id: str) -> MatchState:
        """The match's state after its last event (``state.events`` == last seq)."""
        return self.states.load(match_id)

    def heard_elsewhere(self, match_id: str, stored: RecordedEvent) -> bool:
        """Another process stored ``stored`` (the database pushed it, in the log's order):
        this process's cached state and chain head of the match move on with it, so its next
        command, load or turn clock look need not read the store. True when the state moved.

        Only a cache moves, and only from the seq right before: a command decided on it is
        appended at the next seq or refused as a conflict and decided again on the stored
        state (``_run``), so a push that came late or never only costs a read."""
        self.heads.put(match_id, stored.seq, stored.chain, stored.at)
        return self.states.advance(match_id, stored)

    def add_listener(self, callback: Listener) -> None:
        """Call ``callback(match_id, events)`` after every successful append in this process."""
        self.listeners.add(callback)

    def add_observer(self, callback: Observer) -> None:
        """Call ``callback(outcome)`` after every command in this process, stored or refused."""
        self.observers.add(callback)

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
            self.observers.notify(refusal(kind, match_id, before, refused))
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


def refusal(kind: CommandKind, match_id: str, before: MatchState, refused: Exception) -> Outcome:
    """The outcome of a command that stored nothing: ``refused`` says why."""
    return Outcome(kind, match_id, before, before, refused=refused)
