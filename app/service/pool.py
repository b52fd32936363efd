"""The rated pool's service: joining, the heartbeat, leaving, and pairing exactly once.

Every process keeps each pool folded (``PoolState``) and reads only the facts appended since;
every change is one append at the pool stream's next seq, so a process that read a stale pool
loses the append (ConflictError), reads again and decides again. A pairing is made by the
process serving either player's request (joining, or the page's heartbeat), or by any process's
sweep of the pools (``sweep``, every ``SWEEP_SECONDS`` from app.runtime.pool_sweep), so two
players whose windows came to overlap are paired though neither page asks at that moment: the
pool stream records the pairing once whichever process appends first, and whoever reads it first
creates its match (the match id is in the record, so it is created once), with both seats kept
for the pair.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

import msgspec

from app.errors import ConflictError
from app.service.match_service import MatchService, new_match_id
from app.store.pool_store import PoolStore
from domain.errors import MatchAlreadyCreatedError
from domain.pool import (
    BEAT_SECONDS,
    HEARTBEAT_SECONDS,
    PoolHeartbeat,
    PoolJoined,
    PoolLeft,
    PoolPaired,
    PoolState,
    PoolWindow,
    Seat,
    pairable,
    pairing,
    partners,
)
from domain.rulesets import RULESETS, ruleset

APPEND_TRIES: Final = 50
"""How many times a pool change is decided again when another process appended first."""

SWEEP_SECONDS: Final = 0.5
"""How often each server process sweeps the pools for players whose windows came to overlap."""

POOL_SEATS: Final = 2
"""The pool makes rated matches of two people."""

Micros = Callable[[], int]
"""Tells the time in microseconds since the Unix epoch (UTC); tests give their own."""


def now_micros() -> int:
    """The wall clock in microseconds since the Unix epoch."""
    return int(datetime.now(UTC).timestamp() * 1_000_000)


class PoolStanding(msgspec.Struct, frozen=True):
    """Where a player stands: ``waiting`` in ``ruleset`` (since, at what window), ``paired``
    (the match and the seat kept for them), or ``none``."""

    status: str
    ruleset: str | None = None
    waited_seconds: float | None = None
    window: int | None = None
    match_id: str | None = None
    seat: int | None = None


def pool_stream(name: str) -> str:
    """The stream of the pool of the rule set ``name``."""
    return f"pool:{name}"


def beat_stream(player_id: str) -> str:
    """The stream of a player's heartbeats."""
    return f"beat:{player_id}"


class PoolService:
    """The rated pools of every rule set over the shared store."""

    def __init__(
        self,
        service: MatchService,
        window: PoolWindow | None = None,
        clock: Micros = now_micros,
    ) -> None:
        self.service = service
        self.streams = PoolStore(service.store)
        self.window = window or PoolWindow()
        self.clock = clock
        self._pools = {name: PoolState() for name in RULESETS}
        self._lock = threading.Lock()
        self._beats: dict[str, int] = {}

    # -- reading ----------------------------------------------------------------------------

    def pool(self, name: str) -> PoolState:
        """A copy of the pool of ``name`` as its stream is now (the process keeps one copy,
        brought up to the stream by the facts appended since it last looked)."""
        with self._lock:
            state = self._pools[name]
            for seq, event in self.streams.read_after(pool_stream(name), state.seq):
                state.apply(seq, event)
            return state.copy()

    def standing(self, player_id: str) -> PoolStanding:
        """Where the player stands, from the pools as stored now."""
        now = self.clock()
        for name in RULESETS:
            state = self.pool(name)
            waiting = state.waiting.get(player_id)
            if waiting is not None:
                waited = now - waiting.joined_us
                return PoolStanding("waiting", name, round(waited / 1e6, 1), self.window.at(waited))
        for name in RULESETS:
            seat = self.pool(name).seats.get(player_id)
            if seat is not None and self._still_open(seat):
                return PoolStanding("paired", name, match_id=seat.match_id, seat=seat.seat)
        return PoolStanding("none")

    def pairings(self, name: str) -> list[PoolPaired]:
        """Every pairing of the pool of ``name``, oldest first (for support)."""
        return [
            e for _, e in self.streams.read_after(pool_stream(name), 0) if isinstance(e, PoolPaired)
        ]

    # -- changing ---------------------------------------------------------------------------

    def join(self, player_id: str, name: str, rating: float) -> PoolStanding:
        """The player asks for a rated match in ``name``: waiting (the same answer when asked
        again), or paired at once when a close player waits. Leaves any other pool first."""
        ruleset(name)  # UnknownRulesetError for a name that is not a rule set
        self.beat(player_id)
        for other in RULESETS:
            if other != name and player_id in self.pool(other).waiting:
                self._leave(other, player_id, "moved")
        state = self.pool(name)
        seat = state.seats.get(player_id)
        if player_id not in state.waiting and not (seat and self._still_open(seat)):
            self._change(
                name,
                lambda s: (
                    None if player_id in s.waiting else PoolJoined(player_id, rating, self.clock())
                ),
            )
        return self.try_pair(name, player_id)

    def heartbeat(self, player_id: str) -> PoolStanding:
        """The page asks where the player stands: the heartbeat, and a try at pairing."""
        for name in RULESETS:
            if player_id in self.pool(name).waiting:
                if self._stale(player_id):
                    self._leave(name, player_id, "timeout")
                    return self.standing(player_id)
                self.beat(player_id)
                return self.try_pair(name, player_id)
        return self.standing(player_id)

    def leave(self, player_id: str) -> PoolStanding:
        """The player stops waiting (nothing happens when they were not waiting)."""
        for name in RULESETS:
            if player_id in self.pool(name).waiting:
                self._leave(name, player_id, "cancelled")
        return self.standing(player_id)

    def beat(self, player_id: str) -> None:
        """Note the player's heartbeat: at most one fact every ``BEAT_SECONDS``, whichever
        process writes it (the seq is the slot)."""
        now = self.clock()
        slot = now // (BEAT_SECONDS * 1_000_000)
        with self._lock:
            if self._beats.get(player_id) == slot:
                return
            self._beats[player_id] = slot
        try:
            self.streams.append(beat_stream(player_id), slot, PoolHeartbeat(now))
        except ConflictError:
            return  # another process noted this slot

    def try_pair(self, name: str, player_id: str) -> PoolStanding:
        """Pair the player with the closest fresh partner in both windows, if one waits.

        A partner whose page stopped asking is first recorded as gone (``timeout``). Every
        append is at the pool's next seq: when another process appended first, the pool is
        read again and the choice made again, so no player is ever paired twice.
        """
        for _ in range(APPEND_TRIES):
            state = self.pool(name)
            if player_id not in state.waiting:
                break
            now = self.clock()
            chosen = None
            for other in partners(state, player_id, now, self.window):
                if not self._stale(other.player_id):
                    chosen = other
                    break
                if not self._append(name, state.seq, PoolLeft(other.player_id, "timeout", now)):
                    break  # the pool moved on: read it again
                state = self.pool(name)
            else:
                if chosen is None:
                    break  # nobody close enough waits
            if chosen is None:
                continue
            paired = pairing(state, player_id, chosen.player_id, now, self.window, _ids)
            if self._append(name, state.seq, paired):
                self._open(name, paired)
                break
        seat = self.pool(name).seats.get(player_id)
        if seat is not None:
            self._open_from(name, seat)
        return self.standing(player_id)

    def sweep(self, name: str) -> int:
        """Pair, in the pool of ``name``, every waiting player who has a partner now, longest
        waiting first; returns how many of them are paired after it.

        A player whose page stopped asking is recorded as gone (``timeout``) instead. Each
        pairing is the same one append at the pool's next seq as a request's, so sweeps of
        several processes and the players' own requests pair nobody twice.
        """
        made = 0
        state = self.pool(name)
        for player_id in pairable(state, self.clock(), self.window):
            if player_id not in self.pool(name).waiting:
                continue  # paired meanwhile, as a partner or by another process
            if self._stale(player_id):
                self._leave(name, player_id, "timeout")
                continue
            if self.try_pair(name, player_id).status == "paired":
                made += 1
        return made

    def sweep_all(self) -> int:
        """Sweep the pool of every rule set where someone waits; returns how many swept players
        are paired after it."""
        return sum(self.sweep(name) for name in RULESETS if self.pool(name).waiting)

    # -- helpers ----------------------------------------------------------------------------

    def _stale(self, player_id: str) -> bool:
        """True when the player's page has not asked for ``HEARTBEAT_SECONDS``."""
        _, last = self.streams.last(beat_stream(player_id))
        at = last.at_us if isinstance(last, PoolHeartbeat) else 0
        return self.clock() - at > HEARTBEAT_SECONDS * 1_000_000

    def _still_open(self, seat: Seat) -> bool:
        """True while the paired match still waits for its players."""
        state = (
            self.service.load(seat.match_id) if self.service.store.last_seq(seat.match_id) else None
        )
        return state is None or state.status == "waiting"

    def _leave(self, name: str, player_id: str, reason: str) -> None:
        self._change(
            name,
            lambda s: PoolLeft(player_id, reason, self.clock()) if player_id in s.waiting else None,
        )

    def _change(
        self, name: str, decide: Callable[[PoolState], PoolJoined | PoolLeft | None]
    ) -> None:
        """Append what ``decide`` makes of the pool as stored now, again while another
        process appends first."""
        for _ in range(APPEND_TRIES):
            state = self.pool(name)
            event = decide(state)
            if event is None or self._append(name, state.seq, event):
                return
        raise ConflictError("the pool is too busy; try again")

    def _append(self, name: str, seq: int, event: PoolJoined | PoolLeft | PoolPaired) -> bool:
        """Append at ``seq + 1``; False when another process appended there first."""
        try:
            self.streams.append(pool_stream(name), seq + 1, event)
        except ConflictError:
            return False
        return True

    def _open(self, name: str, paired: PoolPaired) -> None:
        """Create the pairing's match (once, whoever gets here first) with both seats kept."""
        if self.service.store.last_seq(paired.match_id):
            return
        try:
            self.service.create_match(
                ruleset=name,
                seats=POOL_SEATS,
                match_id=paired.match_id,
                caused_by="pool",
                reserved=paired.players,
                paired=paired.pairing_id,
            )
        except (ConflictError, MatchAlreadyCreatedError):
            return  # another process created it first

    def _open_from(self, name: str, seat: Seat) -> None:
        """Make sure the match of the pairing that seated the player exists."""
        if self.service.store.last_seq(seat.match_id):
            return
        for paired in reversed(self.pairings(name)):
            if paired.pairing_id == seat.pairing_id:
                self._open(name, paired)
                return


def _ids() -> tuple[str, str]:
    """A fresh pairing id and match id."""
    return f"pair-{secrets.token_hex(8)}", new_match_id()
