"""The client of ``python -m bench tables``: live tables as the web table plays them.

Each seat holds its own keep-alive connection and its own SSE feed. It asks ``/view`` once when
it loads (and again only after a gap its feed cannot fill), then folds every feed line into the
state it holds: its own hand from ``cards_dealt`` (redacted for it, R23) less the cards it
played, and whose turn it is from each line's ``after``. When its turn begins it waits a think
time, then plays a card of the hand it folded. Spectators only read their feed.

Every feed notes when each event id arrived; a play notes when it was sent and answered, so the
push latency of a play is (arrival of its ``card_played`` on each other viewer's feed − sent).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from bench.client import HOST, Connection


class LineAfter(msgspec.Struct):
    """The parts of a feed line's ``after`` the client uses."""

    seq: int
    status: str
    turn: int | None = None


class FeedLine(msgspec.Struct):
    """The parts of a feed line the client uses."""

    seq: int
    type: str
    after: LineAfter
    seat: int | None = None
    card: str | None = None
    hands: list[list[str] | None] | None = None


class SeatLoad(msgspec.Struct):
    """The parts of ``/view`` the client uses when it loads."""

    seq: int
    status: str
    hand: list[str]
    after: LineAfter


STEP_FULL_THRESHOLD = 1_000_000
"""The client's threshold for full collections during a step: none come within one."""


@contextlib.contextmanager
def collector_between_steps() -> Iterator[None]:
    """Keep the client's full collections out of a step: collect and freeze what it holds before,
    start none within, collect after.

    The client holds every latency, arrival time and table of a step; Python's full collection
    walked all of it every 15-25 s at 2,500 tables, pausing the client 50-143 ms. A paused client
    reads answers and feed lines late (counted as the server's latency) and then sends the plays
    that fell due meanwhile all at once, a burst no room of people makes. Young collections go on.
    """
    old = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(old[0], old[1], STEP_FULL_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()
        gc.collect()


FIRST_RETRY_SECONDS = 0.5
"""How long a feed that failed to open waits before it asks again, doubled at each failure in a
row up to ``LAST_RETRY_SECONDS`` and back to this once it opens: the web table's own backoff
(app/web/static/js/api.js, ``follow``)."""

LAST_RETRY_SECONDS = 8.0
"""The longest wait between two attempts to open a feed."""

LINE = msgspec.json.Decoder(FeedLine)
VIEW = msgspec.json.Decoder(SeatLoad)


@dataclass
class Tally:
    """What one run counted, over every table."""

    plays_sent: list[float] = field(default_factory=list)  # monotonic send times
    play_ms: list[tuple[float, float]] = field(default_factory=list)  # (sent, ms)
    pushes: list[tuple[float, float]] = field(default_factory=list)  # (sent, ms)
    # (sent, ms): plays a spectator's feed received once it opened, having been refused (shed)
    caught_up_shed: list[tuple[float, float]] = field(default_factory=list)
    errors: int = 0
    refused: int = 0  # 503 answers
    views: int = 0  # /view fetched after loading (a gap the feed could not fill)
    out_of_order: int = 0  # feed ids that were not the previous id + 1
    feed_reopened: int = 0  # feeds the server closed that the client resumed
    missing: int = 0  # plays some other viewer's feed never received
    missing_shed: int = 0  # the same, to a spectator's feed the server refused (shed) meanwhile
    tables_started: int = 0
    tables_refused: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        """Count one error by kind (an HTTP status, or what broke)."""
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


class Feed:
    """One SSE feed read with a bare socket, resumed with ``Last-Event-ID`` when it closes."""

    def __init__(self, port: int, path: str, auth: str | None, on_line: Callable[[bytes], None]):
        self.port = port
        self.path = path
        self.auth = auth
        self.on_line = on_line
        self.last = 0
        self.arrived: dict[int, float] = {}
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.stopped = False
        self.shed = False  # refused at least once (503 overloaded): a spectator's feed
        # (from, to): kept out by the server's shedding, from the first refused attempt in a
        # row to the attempt that opened; what was played meanwhile came as a catch-up.
        self.kept_out: list[tuple[float, float]] = []
        self._refused_since: float | None = None
        self.was_open = False  # the last attempt opened (200): its end was the server's close
        self.retry = FIRST_RETRY_SECONDS  # the wait before the next attempt, as the web table's

    def start(self, after: int, tally: Tally) -> None:
        """Open the feed after seq ``after`` in a task of its own."""
        self.last = after
        self.task = asyncio.create_task(self._run(tally))

    async def _run(self, tally: Tally) -> None:
        while not self.stopped:
            try:
                ended = await self._read(tally)
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                ended = False
                tally.error(f"feed {type(error).__name__}")
                await self._back_off()
            if ended or self.stopped:
                return
            if self.was_open:  # an open feed the server closed, resumed (not a refusal retried)
                tally.feed_reopened += 1

    async def _back_off(self) -> None:
        """Wait before the next attempt, longer after each failure in a row."""
        await asyncio.sleep(self.retry)
        self.retry = min(self.retry * 2, LAST_RETRY_SECONDS)

    async def _read(self, tally: Tally) -> bool:
        """Read until the server closes; True when the feed refuses to open (do not retry)."""
        self.was_open = False
        attempted = time.monotonic()
        reader, writer = await asyncio.open_connection(HOST, self.port, limit=1 << 20)
        try:
            head = [f"GET {self.path}?after={self.last} HTTP/1.1", f"Host: {HOST}:{self.port}"]
            head.append("Accept: text/event-stream")
            if self.auth is not None:
                head.append(f"Authorization: {self.auth}")
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
            status = await reader.readuntil(b"\r\n\r\n")
            if status[9:12] != b"200":
                if status[9:12] == b"503":
                    tally.refused += 1
                    self.shed = True
                    if self._refused_since is None:
                        self._refused_since = attempted
                else:
                    tally.error(f"feed {status[9:12].decode()}")
                self.ready.set()
                await self._back_off()
                return False
            self.ready.set()
            if self._refused_since is not None:
                self.kept_out.append((self._refused_since, attempted))
                self._refused_since = None
            self.was_open = True
            self.retry = FIRST_RETRY_SECONDS
            named = False  # a named message (``event: presence``): not an event of the match
            while True:
                line = await reader.readline()
                if not line:
                    return False
                now = time.monotonic()
                if line in (b"\n", b"\r\n"):
                    named = False
                elif line.startswith(b"event:"):
                    named = True
                elif named:
                    continue
                elif line.startswith(b"id:"):
                    seq = int(line[3:])
                    if seq != self.last + 1:
                        tally.out_of_order += 1
                    self.last = seq
                    self.arrived.setdefault(seq, now)
                elif line.startswith(b"data:"):
                    self.on_line(line[5:])
        finally:
            writer.close()

    def kept_out_at(self, moment: float) -> bool:
        """Whether the server's shedding kept this feed out at ``moment`` (it opened later)."""
        return any(start <= moment < end for start, end in self.kept_out)

    async def stop(self) -> None:
        """Stop reading."""
        self.stopped = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


class Seat:
    """One person at a table: a connection, a feed, the state folded from it."""

    def __init__(self, table: Table, seat: int, token: str) -> None:
        self.table = table
        self.seat = seat
        self.auth = f"Bearer {token}"
        self.conn = Connection(table.port)
        self.hand: list[str] = []
        self.seq = 0
        self.turn: int | None = None
        self.status = "playing"
        self.planned_for = -1  # the seq a play was planned at
        self.feed = Feed(table.port, f"{table.path}/events", self.auth, self.on_line)

    async def load(self) -> None:
        """``/view`` once (as the web table does when it loads), then the feed after it."""
        status, body = await self.conn.request(
            "GET", f"{self.table.path}/view", headers={"Authorization": self.auth}
        )
        if status != 200:
            raise RuntimeError(f"view: {status} {body[:200]!r}")
        view = VIEW.decode(body)
        self.hand, self.seq, self.status = list(view.hand), view.seq, view.status
        self.turn = view.after.turn
        self.feed.start(self.seq, self.table.tally)
        self.maybe_plan()

    def on_line(self, data: bytes) -> None:
        """Fold one feed line into the seat's state."""
        line = LINE.decode(data)
        if line.seq <= self.seq:
            return
        if line.seq != self.seq + 1:
            self.table.spawn(self.refetch())
            return
        if line.type == "cards_dealt" and line.hands is not None:
            mine = line.hands[self.seat] if self.seat < len(line.hands) else None
            self.hand = list(mine or [])
        elif line.type == "card_played" and line.seat == self.seat and line.card in self.hand:
            self.hand.remove(line.card)
        self.seq, self.status, self.turn = line.after.seq, line.after.status, line.after.turn
        self.maybe_plan()

    async def refetch(self) -> None:
        """A gap the feed did not fill: ask ``/view`` again."""
        self.table.tally.views += 1
        status, body = await self.conn.request(
            "GET", f"{self.table.path}/view", headers={"Authorization": self.auth}
        )
        if status == 200:
            view = VIEW.decode(body)
            self.hand, self.seq, self.status = list(view.hand), view.seq, view.status
            self.turn = view.after.turn
            self.maybe_plan()

    def maybe_plan(self) -> None:
        """Plan a play a think time after the turn begins (once per turn)."""
        if self.status != "playing":
            self.table.ended.set()
            return
        if self.turn == self.seat and self.planned_for != self.seq and self.hand:
            seq = self.planned_for = self.seq
            delay = self.table.think()
            asyncio.get_running_loop().call_later(delay, lambda: self.table.spawn(self.play(seq)))

    async def play(self, seq: int) -> None:
        """Play a random card of the folded hand at ``seq``."""
        tally = self.table.tally
        if seq != self.seq or not self.hand or self.table.stopped:
            return
        card = self.table.rng.choice(self.hand)
        body = msgspec.json.encode({"card": card, "seq": seq})
        headers = {"Authorization": self.auth, "Idempotency-Key": f"p{seq}"}
        sent = time.monotonic()
        tally.plays_sent.append(sent)
        try:
            status, answer = await self.conn.request(
                "POST", f"{self.table.path}/plays", body, headers
            )
        except (OSError, asyncio.IncompleteReadError) as error:
            tally.error(f"play {type(error).__name__}")
            await self.conn.close()
            return
        if status != 200:
            if status == 503:
                tally.refused += 1
            else:
                tally.error(f"play {status} {_code(answer)}")
            return
        tally.play_ms.append((sent, (time.monotonic() - sent) * 1000))
        self.table.played.append((self, seq + 1, sent))


class Table:
    """One live table: its seats and spectators."""

    def __init__(
        self, port: int, seats: int, spectators: int, think: Callable[[], float], tally: Tally
    ) -> None:
        self.port = port
        self.seats_count = seats
        self.spectator_count = spectators
        self.think = think
        self.tally = tally
        self.rng = random.Random()
        self.path = ""
        self.seats: list[Seat] = []
        self.spectators: list[Feed] = []
        self.played: list[tuple[Seat, int, float]] = []  # (who, card_played seq, sent)
        self.ended = asyncio.Event()
        self.stopped = False
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self, conn: Connection) -> bool:
        """Create the table, take every seat, open every feed; False when refused (503)."""
        body = msgspec.json.encode({"ruleset": "classic", "seats": self.seats_count})
        status, created = await conn.request("POST", "/matches", body)
        if status == 503:
            self.tally.tables_refused += 1
            return False
        if status != 201:
            raise RuntimeError(f"create: {status} {created[:200]!r}")
        self.path = f"/matches/{msgspec.json.decode(created)['match_id']}"
        tokens = []
        for seat in range(self.seats_count):
            status, taken = await conn.request(
                "POST", f"{self.path}/seats/{seat}", b'{"name":"bench"}'
            )
            if status != 201:
                raise RuntimeError(f"seat: {status} {taken[:200]!r}")
            tokens.append(msgspec.json.decode(taken)["token"])
        self.seats = [Seat(self, seat, token) for seat, token in enumerate(tokens)]
        for _ in range(self.spectator_count):
            feed = Feed(self.port, f"{self.path}/events", None, _ignore)
            feed.start(0, self.tally)
            self.spectators.append(feed)
        for person in self.seats:
            await person.load()
        self.tally.tables_started += 1
        return True

    def viewers(self, player: Seat) -> list[Feed]:
        """Every feed at the table but the player's own."""
        return [s.feed for s in self.seats if s is not player] + self.spectators

    def settle(self, since: float) -> None:
        """Push latencies of the plays sent since ``since``."""
        for player, seq, sent in self.played:
            if sent < since:
                continue
            for feed in self.viewers(player):
                arrived = feed.arrived.get(seq)
                if arrived is None and feed.shed:
                    self.tally.missing_shed += 1  # a spectator kept out while the server shed
                elif arrived is None:
                    self.tally.missing += 1
                elif feed.kept_out_at(sent):
                    # Played while the server refused this spectator's feed (shedding): it came
                    # as history when the feed opened, not as a push to an open feed.
                    self.tally.caught_up_shed.append((sent, (arrived - sent) * 1000))
                else:
                    self.tally.pushes.append((sent, (arrived - sent) * 1000))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task kept until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def stop(self) -> None:
        """Close every feed and connection."""
        self.stopped = True
        for feed in [s.feed for s in self.seats] + self.spectators:
            await feed.stop()
        for seat in self.seats:
            await seat.conn.close()


def _code(body: bytes) -> str:
    """The error code of an error body, or ``?``."""
    try:
        return str(msgspec.json.decode(body)["error"]["code"])
    except (msgspec.DecodeError, KeyError, TypeError):
        return "?"


def _ignore(_data: bytes) -> None:
    """A spectator folds nothing."""


def think_time(spec: str, rng: random.Random) -> Callable[[], float]:
    """``uniform:LO-HI`` or ``exp:MEAN`` (seconds) as a function drawing one think time."""
    kind, _, rest = spec.partition(":")
    if kind == "uniform":
        low, _, high = rest.partition("-")
        lo, hi = float(low), float(high)
        return lambda: rng.uniform(lo, hi)
    if kind == "exp":
        mean = float(rest)
        return lambda: min(rng.expovariate(1 / mean), 10 * mean)
    raise ValueError(f"think time {spec!r}: uniform:LO-HI or exp:MEAN")


def mean_think(spec: str) -> float:
    """The mean of a think-time spec, in seconds."""
    kind, _, rest = spec.partition(":")
    if kind == "uniform":
        low, _, high = rest.partition("-")
        return (float(low) + float(high)) / 2
    return float(rest)


def figures_of(found: dict[str, Any]) -> dict[str, Any]:
    """Rounded figures (helper for printing)."""
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in found.items()}
