"""Live events: wake open SSE streams when their match's stream grows, without polling per stream.

Appends made in this process arrive through the service's listener (on a worker thread) and are
handed to the event loop with ``call_soon_threadsafe`` (docs/architecture.md L6). Appends made
by other processes (several workers on PostgreSQL, a CLI import) are found by one follower per
process: on PostgreSQL the database pushes them (LISTEN/NOTIFY, ``app.store.live.LogListener``)
with the rows themselves, so they arrive within milliseconds and are handed to the match's
streams as events, as this process's own are; on other stores the follower reads the global
notification log every ``follow_every`` seconds and wakes the streams of the matches it saw. A
stream handed events that do not follow what it sent, or woken without events, reads what it
has not sent yet from the store, so nothing is lost or repeated whichever way the news came."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from domain.recorded import RecordedEvent

log = logging.getLogger("basra.api.broker")

NotificationReader = Callable[[int, int], Sequence[tuple[int, str, int]]]
"""``notifications_after(position, limit)`` -> (position, match id, seq) rows."""

Offload = Callable[..., Awaitable[Any]]
"""Runs a blocking call on a worker thread: ``await offload(func, *args)``."""


class Listener(Protocol):
    """A push of the log's new entries from the database, on a thread of its own."""

    def start(self) -> None:
        """Start following."""

    def stop(self) -> None:
        """Stop following."""


LoadEvent = Callable[[], RecordedEvent]
"""Decodes a pushed log entry's recorded event (called only for a match a feed here watches)."""

OnEntry = Callable[[int, str, int, LoadEvent], None]
"""Told (position, match id, seq, load) of each log entry a Listener is pushed."""

Listen = Callable[[int, OnEntry], Listener | None]
"""``listen(position, on_entry)``: a Listener calling ``on_entry(position, match id, seq, load)``
for each entry after ``position``, or None when the store cannot push (then the log is polled)."""


MAX_UNSENT_EVENTS = 1000
"""A feed whose client leaves this many events unsent is cut off (it resumes with Last-Event-ID)."""

MAX_UNSENT_BYTES = 1 << 20
"""Or this many bytes of lines (estimated from the feed's own line sizes)."""

OWN_APPENDS_KEPT_SECONDS = 60.0
"""How long an append of this process to a match nobody watched is remembered: far longer than
the log's readers take to pass it (their wake for it is then skipped)."""

LINE_BYTES_GUESS = 400
"""An event line's size before the feed has sent one (a ``card_played`` with its ``after``)."""


class Subscription:
    """One open stream's mailbox: batches of events pushed for its match, and a wake-up.

    The mailbox is bounded: a client that stops reading blocks its feed in the socket's send,
    and events pushed meanwhile wait here. Once ``MAX_UNSENT_EVENTS`` or ``MAX_UNSENT_BYTES``
    wait, the mailbox drops them and is marked ``overflowed``: its feed ends at its next step
    and the client resumes from the store with ``Last-Event-ID``.
    """

    def __init__(self, broker: EventBroker, match_id: str) -> None:
        self.match_id = match_id
        self._broker = broker
        self._batches: list[list[RecordedEvent]] = []
        self._waiter: asyncio.Future[None] | None = None
        self.unsent = 0
        self.line_bytes = LINE_BYTES_GUESS  # the feed sets it from the lines it sends
        self.overflowed = False

    def push(self, events: list[RecordedEvent]) -> None:
        """New events (or an empty list: "look in the store") for this match."""
        if self.overflowed:
            return
        self._batches.append(events)
        self.unsent += len(events)
        if self.unsent >= MAX_UNSENT_EVENTS or self.unsent * self.line_bytes >= MAX_UNSENT_BYTES:
            self.overflowed = True
            self._batches = []
            self.unsent = 0
            self._broker.cut_off += 1
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def nudge(self) -> None:
        """Wake the stream with no events: something else about its match changed (who is
        connected, app.runtime.presence); ``next`` then answers None as after a quiet wait."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next(self, timeout: float) -> list[list[RecordedEvent]] | None:
        """The batches pushed since the last call, or None after ``timeout`` seconds of quiet
        (a future and a timer: no task per wait)."""
        if not self._batches and not self.overflowed:
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            timer = loop.call_later(max(0.0, timeout), _wake, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None
        if not self._batches:
            return None
        batches, self._batches = self._batches, []
        self.unsent = 0
        return batches

    def close(self) -> None:
        """Stop receiving."""
        self._broker.unsubscribe(self)


def _wake(waiter: asyncio.Future[None]) -> None:
    """A wait's timer: end the wait quietly."""
    if not waiter.done():
        waiter.set_result(None)


_BROKERS: weakref.WeakSet[EventBroker] = weakref.WeakSet()


def close_all_feeds() -> None:
    """The server is stopping: end every open feed cleanly (clients resume with Last-Event-ID).

    Call on the event loop, before the server waits for its connections to finish.
    """
    for broker in list(_BROKERS):
        broker.close_feeds()


class EventBroker:
    """Fans appended events out to the open streams of their match."""

    def __init__(
        self,
        notifications: NotificationReader | None = None,
        follow_every: float = 0.5,
        listen: Listen | None = None,
    ):
        self.closing = False
        _BROKERS.add(self)
        self._subs: dict[str, set[Subscription]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._notifications = notifications
        self._follow_every = follow_every
        self._follower: asyncio.Task[None] | None = None
        self._listen = listen
        self._listener: Listener | None = None
        self._position = 0
        # The last seq of each watched match this process pushed with its events: the
        # follower and the listener skip the log's entries up to it (they would only make every
        # feed of the match read the store for what it was already given).
        self._pushed_seq: dict[str, int] = {}
        # The same for matches nobody watched when this process appended to them (a table being
        # set up): a feed opened since read them from the store, so the log's entries for them
        # would only make it read again. Written from the store's threads, oldest first (an
        # update moves a match to the end), forgotten after ``OWN_APPENDS_KEPT_SECONDS``.
        self._appended_unwatched: dict[str, tuple[int, float]] = {}
        self._appended_lock = threading.Lock()  # its writers (store threads) and its pruning
        self.cut_off = 0  # feeds cut off for leaving too many events unsent
        self._open = 0

    @property
    def open_streams(self) -> int:
        """How many streams are listening."""
        return self._open

    async def start(self, offload: Offload) -> None:
        """Bind to the running loop; follow other processes' appends when a reader is given.

        The follower starts from the log's end as it is now, before any stream can open, so an
        append made after a stream read its backlog is always seen.
        """
        self._loop = asyncio.get_running_loop()
        if self._notifications is not None:
            self._position = await self._latest(offload)
            if self._listen is not None:
                self._listener = self._listen(self._position, self._pushed)
            if self._listener is not None:
                self._listener.start()
            else:
                self._follower = asyncio.create_task(self._follow(offload), name="basra-follower")

    async def stop(self) -> None:
        """Stop following, and end every open feed."""
        if self._listener is not None:
            listener, self._listener = self._listener, None
            await asyncio.to_thread(listener.stop)
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follower
            self._follower = None
        self.close_feeds()

    def close_feeds(self) -> None:
        """Mark the broker closing and wake every stream so that it ends."""
        self.closing = True
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub.push([])

    def subscribe(self, match_id: str) -> Subscription:
        """A mailbox for ``match_id``'s new events (call on the event loop)."""
        sub = Subscription(self, match_id)
        self._subs.setdefault(match_id, set()).add(sub)
        self._open += 1
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget a mailbox."""
        subs = self._subs.get(sub.match_id)
        if subs is not None and sub in subs:
            subs.discard(sub)
            self._open -= 1
            if not subs:
                del self._subs[sub.match_id]
                self._pushed_seq.pop(sub.match_id, None)

    def publish(self, match_id: str, events: list[RecordedEvent]) -> None:
        """Hand appended events to the match's streams (call on the event loop)."""
        if events and match_id in self._subs:
            last = events[-1].seq
            if last > self._pushed_seq.get(match_id, 0):
                self._pushed_seq[match_id] = last
        for sub in list(self._subs.get(match_id, ())):
            sub.push(events)

    def nudge(self, match_id: str) -> None:
        """Wake the match's streams without events (call on the event loop)."""
        for sub in list(self._subs.get(match_id, ())):
            sub.nudge()

    def publish_threadsafe(self, match_id: str, events: list[RecordedEvent]) -> None:
        """The service's append listener: runs on a worker thread, hops to the loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if match_id not in self._subs:
            if events:
                unwatched, now = self._appended_unwatched, time.monotonic()
                with self._appended_lock:
                    unwatched.pop(match_id, None)  # to the end: the order is when last appended
                    unwatched[match_id] = (events[-1].seq, now)
                    self._forget_old_appends(now)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self.publish, match_id, list(events))

    def _pushed(self, position: int, match_id: str, seq: int, load: LoadEvent) -> None:
        """The listener's callback (its own thread): when a stream here listens, decode the
        entry's event (the database pushed it whole) and hop to the loop with it."""
        loop = self._loop
        if loop is None or loop.is_closed() or match_id not in self._subs:
            return
        if self._already_given(match_id, seq):
            return  # appended here and already pushed with its events
        try:
            recorded: RecordedEvent | None = load()
        except Exception:  # a row this build cannot read: the feeds read the store, and say so
            recorded = None
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._seen, position, match_id, seq, recorded)

    def _seen(
        self, position: int, match_id: str, seq: int = 0, recorded: RecordedEvent | None = None
    ) -> None:
        """A log entry of another process, on the loop: hand its event to the match's streams
        (or, without it, wake them to read the store), unless they already have it."""
        self._position = max(self._position, position)
        if seq and self._already_given(match_id, seq):
            return
        self.publish(match_id, [recorded] if recorded is not None else [])

    def _already_given(self, match_id: str, seq: int) -> bool:
        """Whether every feed of ``match_id`` has had its event ``seq`` or can read it without
        being woken: this process appended it, and pushed it or nobody watched then."""
        if seq <= self._pushed_seq.get(match_id, 0):
            return True
        appended = self._appended_unwatched.get(match_id)
        return appended is not None and seq <= appended[0]

    def _forget_old_appends(self, now: float) -> None:
        """Drop the remembered appends older than ``OWN_APPENDS_KEPT_SECONDS``, oldest first,
        as each new one is noted (the lock held): the memory stays that of the last minute's
        tables, whether or not any feed ever closes."""
        unwatched = self._appended_unwatched
        while unwatched:
            oldest = next(iter(unwatched))
            if now - unwatched[oldest][1] < OWN_APPENDS_KEPT_SECONDS:
                return
            del unwatched[oldest]

    async def _follow(self, offload: Offload) -> None:
        """One loop per process over the global notification log (not one per stream)."""
        reader = self._notifications
        assert reader is not None
        while True:
            try:
                rows = await offload(reader, self._position, 1000)
                woken: set[str] = set()
                for position, match_id, seq in rows:
                    self._position = max(self._position, position)
                    if match_id in self._subs and not self._already_given(match_id, seq):
                        woken.add(match_id)
                for match_id in woken:
                    self.publish(match_id, [])
                if len(rows) < 1000:
                    await asyncio.sleep(self._follow_every)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("following the notification log failed; retrying")
                await asyncio.sleep(max(self._follow_every, 1.0))

    async def _latest(self, offload: Offload) -> int:
        """The log's current end."""
        reader = self._notifications
        assert reader is not None
        position = 0
        while True:
            rows = await offload(reader, position, 10000)
            if not rows:
                return position
            position = max(p for p, _, _ in rows)
