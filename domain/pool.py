"""The rated pool: players waiting for a rated 2-seat match, paired by rating (docs/api.md,
"Rated pool").

Each rule set has one pool stream: ``pool_joined``, ``pool_left`` and ``pool_paired`` facts,
appended at an expected seq, so the pool as folded here is the same in every process, and a
pairing (one append) happens once. Two waiting players are paired when each one's rating lies
within the other's window; a window starts at ±``start`` points and widens by ``step`` every
``every_seconds`` of waiting, up to ±``widest`` (the longer a player waits, the further their
opponent may be, as in lichess's pools).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from typing import Final, TypeAlias

import msgspec

HEARTBEAT_SECONDS: Final = 30
"""A player whose page has not asked where they stand for this long has left the pool."""


class PoolWindow(msgspec.Struct, frozen=True):
    """How far apart two ratings may be, by how long a player has waited."""

    start: int = 100
    step: int = 50
    every_seconds: float = 5.0
    widest: int = 500

    def at(self, waited_us: int) -> int:
        """The window (± points) after ``waited_us`` microseconds of waiting."""
        steps = int(max(0, waited_us) // int(self.every_seconds * 1_000_000))
        return min(self.widest, self.start + self.step * steps)


class PoolEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=False):
    """Base of every fact of a pool stream."""


class PoolJoined(PoolEvent, frozen=True, tag="pool_joined"):
    """``player_id`` (rated ``rating`` then) began waiting at ``at_us``."""

    player_id: str
    rating: float
    at_us: int


class PoolLeft(PoolEvent, frozen=True, tag="pool_left"):
    """``player_id`` stopped waiting: ``cancelled``, ``timeout`` (no heartbeat for 30 s) or
    ``moved`` (to another rule set's pool)."""

    player_id: str
    reason: str
    at_us: int


class PoolPaired(PoolEvent, frozen=True, tag="pool_paired"):
    """Two waiting players were paired into ``match_id`` (seats in the order of ``players``):
    the record support reads (who, when, at what window, after how long)."""

    pairing_id: str
    match_id: str
    players: tuple[str, str]
    ratings: tuple[float, float]
    waited_us: tuple[int, int]
    window: int
    at_us: int


class PoolHeartbeat(PoolEvent, frozen=True, tag="pool_heartbeat"):
    """The player's page asked where they stand at ``at_us`` (a stream of the player's own,
    ``beat:PLAYER``, at most one fact every ``BEAT_SECONDS``)."""

    at_us: int


BEAT_SECONDS: Final = 5
"""How often at most a player's heartbeat is written (their seq is the 5-second slot)."""

AnyPoolEvent: TypeAlias = PoolJoined | PoolLeft | PoolPaired | PoolHeartbeat
"""Every fact of the pool streams."""

POOL_EVENT_TYPES: tuple[type[PoolEvent], ...] = (PoolJoined, PoolLeft, PoolPaired, PoolHeartbeat)
"""Every pool fact class, for the store's topics."""

POOL_EVENT_DECODER: Final = msgspec.json.Decoder(AnyPoolEvent)
"""Decodes one JSON pool fact by its ``type`` tag."""


class Waiting(msgspec.Struct, frozen=True):
    """A player waiting in the pool: their rating when they joined, and since when."""

    player_id: str
    rating: float
    joined_us: int


class Seat(msgspec.Struct, frozen=True):
    """Where a paired player is to sit: the match and the seat kept for them."""

    match_id: str
    seat: int
    pairing_id: str


class PoolState:
    """One pool folded from its stream: who waits, and each paired player's last seat.

    Mutable on purpose: a process keeps one per pool and folds only the facts appended since
    (``seq``), under its own lock.
    """

    def __init__(self) -> None:
        self.seq = 0
        self.waiting: dict[str, Waiting] = {}
        self.seats: dict[str, Seat] = {}

    def copy(self) -> PoolState:
        """A copy another thread may read while this one folds on."""
        copied = PoolState()
        copied.seq = self.seq
        copied.waiting = dict(self.waiting)
        copied.seats = dict(self.seats)
        return copied

    def apply(self, seq: int, event: PoolEvent) -> None:
        """Fold the fact at ``seq``."""
        match event:
            case PoolJoined(player_id=pid, rating=rating, at_us=at):
                self.waiting[pid] = Waiting(pid, rating, at)
                self.seats.pop(pid, None)
            case PoolLeft(player_id=pid):
                self.waiting.pop(pid, None)
            case PoolPaired(pairing_id=pairing, match_id=match_id, players=players):
                for seat, pid in enumerate(players):
                    self.waiting.pop(pid, None)
                    self.seats[pid] = Seat(match_id, seat, pairing)
        self.seq = seq


def partners(
    state: PoolState, player_id: str, now_us: int, window: PoolWindow
) -> Iterator[Waiting]:
    """The waiting players ``player_id`` may be paired with now, closest rating first: each
    rating within the other player's window."""
    me = state.waiting.get(player_id)
    if me is None:
        return
    mine = window.at(now_us - me.joined_us)
    close = [
        other
        for other in state.waiting.values()
        if other.player_id != player_id
        and abs(other.rating - me.rating) <= min(mine, window.at(now_us - other.joined_us))
    ]
    close.sort(key=lambda other: (abs(other.rating - me.rating), other.joined_us))
    yield from close


def pairable(state: PoolState, now_us: int, window: PoolWindow) -> list[str]:
    """The waiting players who have at least one partner now (each rating within the other's
    window), longest waiting first: what a sweep of the pool tries to pair.

    Sorted by rating, each player looks only at the players within their own window of them
    (at most ``window.widest`` points), so a sweep of a large pool whose ratings lie apart
    costs a sort and a short look per player.
    """
    ranked = sorted(state.waiting.values(), key=lambda w: w.rating)
    ratings = [w.rating for w in ranked]
    found = []
    for me in ranked:
        mine = window.at(now_us - me.joined_us)
        low = bisect_left(ratings, me.rating - mine)
        high = bisect_right(ratings, me.rating + mine)
        if any(
            other.player_id != me.player_id
            and abs(other.rating - me.rating) <= window.at(now_us - other.joined_us)
            for other in ranked[low:high]
        ):
            found.append(me)
    found.sort(key=lambda w: (w.joined_us, w.player_id))
    return [w.player_id for w in found]


def pairing(
    state: PoolState,
    me: str,
    other: str,
    now_us: int,
    window: PoolWindow,
    ids: Callable[[], tuple[str, str]],
) -> PoolPaired:
    """The fact of pairing ``me`` with ``other`` (the one who waited longer sits first);
    ``ids`` gives a fresh pairing id and match id."""
    a, b = sorted((state.waiting[me], state.waiting[other]), key=lambda w: w.joined_us)
    pairing_id, match_id = ids()
    return PoolPaired(
        pairing_id=pairing_id,
        match_id=match_id,
        players=(a.player_id, b.player_id),
        ratings=(a.rating, b.rating),
        waited_us=(now_us - a.joined_us, now_us - b.joined_us),
        window=min(window.at(now_us - a.joined_us), window.at(now_us - b.joined_us)),
        at_us=now_us,
    )
