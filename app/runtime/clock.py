"""The turn clock of one server process: fires deadlines (R25) and closes waiting tables.

An asyncio task started and stopped with the app's lifespan. At start it reads from the store
every match not ended (``app.service.deadlines.open_matches``) and what each has due; then it
keeps an in-memory heap of what falls due next, refreshed for every match that this process
appends to (the service's listener) or that any process appends to (a follower of the global
log). The heap only says when to look: firing is a command through the service, decided on the
state in the store, so a stale entry does nothing, and on PostgreSQL with several processes each
deadline is appended once (the store's optimistic concurrency picks the one writer). The clock
reads time from the service's own clock, the one every command reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from app.service import MatchService
from app.service.clocks import epoch_ms
from app.service.deadlines import Due, Fired, Looked, due_of, fire_many, look_up, open_matches
from domain.events import MatchCreated
from domain.recorded import RecordedEvent

log = logging.getLogger("basra.clock")

Call = Callable[..., Awaitable[Any]]
"""Runs a store call the way the API runs it: ``await call(func, *args)``."""

LockFor = Callable[[str], asyncio.Lock]
"""The per-match lock of this process, shared with the request handlers."""

EARLY_RETRY_MS = 20
"""When this process's clock says a deadline is not reached yet, look again this much later."""

FAILED_RETRY_MS = 500
"""When a fire failed (the store unavailable, say), try it again this much later: a store that
is down is not asked in a tight loop."""

FIRE_BATCH = 64
"""Deadlines fired by one store call, their appends sharing transactions (group commit)."""

FIRE_AT_ONCE = 4
"""The most such calls one process runs side by side."""

REFRESH_BATCH = 256
"""Changed matches looked at again by one store call."""


class TurnClock:
    """Wakes at the next due deadline or waiting time and sends it through the service."""

    def __init__(
        self,
        service: MatchService,
        *,
        call: Call,
        offload: Call,
        lock_for: LockFor,
        waiting_seconds: float | None,
        follow_every: float = 0.5,
    ) -> None:
        self.service = service
        self._call = call
        self._offload = offload
        self._lock_for = lock_for
        self._waiting_ms = None if waiting_seconds is None else round(waiting_seconds * 1000)
        self._follow_every = follow_every
        self._heap: list[Due] = []
        self._current: dict[str, Due] = {}  # the one live entry per match; others are stale
        self._created: dict[str, str] = {}  # creation times of matches not ended
        self._dirty: set[str] = set()
        self._seen: dict[str, int] = {}  # the last seq heard of per match (appends, the log)
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._position = 0
        self.fired = 0

    # -- lifespan -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Recover what is pending from the store and start the loop."""
        self._loop = asyncio.get_running_loop()
        self.service.add_listener(self._on_append)
        # The log's end first, then the scan: an append in between is followed, never missed.
        self._position = await self._offload(self.service.store.max_position)
        opened = await self._offload(open_matches, self.service)
        self._created.update(opened)
        self._dirty.update(opened)
        self._task = asyncio.create_task(self._run(), name="basra-clock")

    async def stop(self) -> None:
        """Stop the loop (a fire in progress finishes or is cancelled before its commit)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    @property
    def pending(self) -> int:
        """How many matches have something due."""
        return len(self._current)

    # -- news of appends ----------------------------------------------------------------------

    def _on_append(self, match_id: str, events: list[RecordedEvent]) -> None:
        """The service's listener (on the committing thread): look at the match again."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        at = next((r.at for r in events if isinstance(r.event, MatchCreated)), None)
        seq = events[-1].seq if events else 0
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._mark, match_id, at, seq)

    def _mark(self, match_id: str, created: str | None = None, seq: int = 0) -> None:
        if created is not None:
            self._created[match_id] = created
        self._heard(match_id, seq)
        self._dirty.add(match_id)
        self._wake.set()

    def _heard(self, match_id: str, seq: int) -> None:
        """``match_id`` has an event at ``seq`` (an append here or in the global log)."""
        if seq > self._seen.get(match_id, 0):
            self._seen[match_id] = seq

    async def _follow(self) -> None:
        """Matches other processes appended to (several servers on PostgreSQL, an import)."""
        while True:
            rows = await self._offload(self.service.notifications_after, self._position, 1000)
            for position, match_id, seq in rows:
                self._position = max(self._position, position)
                self._heard(match_id, seq)
                self._dirty.add(match_id)
            if len(rows) < 1000:
                return

    # -- the loop -----------------------------------------------------------------------------

    async def _run(self) -> None:
        followed = 0.0
        loop = asyncio.get_running_loop()
        while True:
            try:
                if loop.time() - followed >= self._follow_every:
                    await self._follow()
                    followed = loop.time()
                await self._refresh()
                await self._fire_due()
                self._wake.clear()
                if self._dirty:
                    continue
                wait = self._follow_every
                if self._heap:
                    left = (self._heap[0].due_ms - self._now_ms()) / 1000
                    wait = max(0.0, min(wait, left))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the turn clock failed a round; retrying")
                await asyncio.sleep(max(self._follow_every, 1.0))

    def _now_ms(self) -> int:
        return epoch_ms(self.service.clock())

    async def _refresh(self) -> None:
        """Read what each changed match has due now, from its state in the store (many
        matches per store call).

        A match whose state this process cached is at least at the last seq heard of for it
        (its own appends, or the global log's entries from any process) is looked at in that
        state, without a store call: nothing newer has been heard of, and when something is,
        the log's follower marks the match again with that seq."""
        while self._dirty:
            ids = sorted(self._dirty)[:REFRESH_BATCH]
            self._dirty.difference_update(ids)
            known: dict[str, str | None] = {}
            for match_id in ids:
                created = self._created.get(match_id)
                looked_here = self._cached_look(match_id, created)
                if looked_here is None:
                    known[match_id] = created
                else:
                    self._apply_look(match_id, looked_here)
            if not known:
                continue
            looked = await self._call(look_up, self.service, known, self._waiting_ms)
            for match_id, answer in looked.items():
                self._apply_look(match_id, answer)

    def _cached_look(self, match_id: str, created: str | None) -> Looked | None:
        """What ``look_up`` would say of the match from its cached state, or None when that
        state is not known to be current (or a waiting table's creation time must be read)."""
        seen = self._seen.get(match_id)
        state = self.service.cache.get(match_id)
        if seen is None or state is None or state.events < seen:
            return None
        if state.status == "waiting" and created is None:
            return None
        return (
            state.status == "ended",
            created,
            due_of(match_id, state, created, self._waiting_ms),
        )

    def _apply_look(self, match_id: str, looked: Looked) -> None:
        gone, created, due = looked
        if gone:
            self._created.pop(match_id, None)
            self._seen.pop(match_id, None)
        elif created is not None:
            self._created[match_id] = created
        self._put(match_id, due)

    def _put(self, match_id: str, due: Due | None) -> None:
        if due is None:
            self._current.pop(match_id, None)
        elif self._current.get(match_id) != due:
            self._current[match_id] = due
            heapq.heappush(self._heap, due)

    async def _fire_due(self) -> None:
        """Fire every entry whose time has come, in batches, each under its matches' locks.

        Many deadlines can fall due together (tables seated at the same moment): up to
        ``FIRE_BATCH`` of them go through one store call whose appends share transactions, and
        up to ``FIRE_AT_ONCE`` such calls run side by side. A fire that fails (for one match or
        the whole batch) is tried again ``FAILED_RETRY_MS`` later."""
        now = self._now_ms()
        due: list[Due] = []
        taken: set[str] = set()
        while self._heap and self._heap[0].due_ms <= now:
            entry = heapq.heappop(self._heap)
            # Superseded (the match moved on since it was made), or a copy of one taken: the
            # same entry is pushed again when a match comes back to it.
            if self._current.get(entry.match_id) == entry and entry.match_id not in taken:
                taken.add(entry.match_id)
                due.append(entry)
        if not due:
            return
        gate = asyncio.Semaphore(FIRE_AT_ONCE)

        async def batch(entries: list[Due]) -> list[Fired]:
            async with gate, contextlib.AsyncExitStack() as held:
                for entry in entries:  # one lock per match; a batch never holds a match twice
                    await held.enter_async_context(self._lock_for(entry.match_id))
                outcomes: list[Fired] = await self._call(fire_many, self.service, entries)
                return outcomes

        batches = [due[k : k + FIRE_BATCH] for k in range(0, len(due), FIRE_BATCH)]
        answers = await asyncio.gather(*(batch(b) for b in batches), return_exceptions=True)
        for entries, answer in zip(batches, answers, strict=True):
            if isinstance(answer, BaseException):
                if isinstance(answer, asyncio.CancelledError):
                    raise answer
                log.error("the turn clock failed to fire %d deadlines: %r", len(entries), answer)
                answer = ["failed"] * len(entries)
            for entry, outcome in zip(entries, answer, strict=True):
                self._after_fire(entry, outcome)

    def _after_fire(self, entry: Due, outcome: Fired) -> None:
        if outcome == "fired":
            self.fired += 1
        if outcome == "early":
            self._put(entry.match_id, replace(entry, due_ms=self._now_ms() + EARLY_RETRY_MS))
            return
        self._current.pop(entry.match_id, None)
        if outcome == "failed" and self._loop is not None:  # look again later, by real time
            self._loop.call_later(FAILED_RETRY_MS / 1000, self._mark, entry.match_id)
        else:
            self._dirty.add(entry.match_id)  # look again: what is due after it, if anything
