"""Who is at the table now: which seats of a match have a live feed open, on any process.

A seat is *connected* while a feed opened as that seat (its token, the player holding it, a
ticket redeemed for it) is open on any server process; spectators' and support's feeds never
connect a seat. The flag is public and says nothing else: no history, no address, no process.

Each process counts its own open seat feeds (``PresenceRegistry``) and keeps one row per (match,
seat) it holds in the store's presence table, written only when its count goes 0 → 1 (an
upsert) or 1 → 0 (a delete). One writer per process writes them: every row that changed while
its last transaction ran goes in its next one, so a crowd of tables set up or ending at once
costs a few transactions, not one (a flush on SQLite) per seat. It refreshes the ``beat`` of
all its rows in one statement every ``beat_every`` seconds; a row whose beat is older than
``expiry`` seconds counts as gone (its process crashed) and is swept. A process that stops
cleanly deletes its rows.

One loop per process (not per feed) reads the other processes' live rows of the matches it has
feeds open on every ``follow_every`` seconds, and wakes the feeds of a match whose flags
changed; a change made here wakes them at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

from app.store.backend import Backend

log = logging.getLogger("basra.api.presence")

Call = Callable[..., Awaitable[Any]]
"""Runs a store call: ``await call(func, *args)`` (the runtime's ``call``)."""

Wake = Callable[[str], None]
"""Wakes the open feeds of a match (on the event loop)."""

_RECENT_LIMIT: Final = 10_000  # matches whose flags a view read lately, kept for follow_every

WRITE_BATCH: Final = 500
"""At most this many rows in one presence transaction."""


class PresenceRegistry:
    """How many feeds of each seat of each match this process holds open; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, dict[int, int]] = {}

    def join(self, match_id: str, seat: int) -> bool:
        """One more feed of the seat; True when it is the seat's first here (0 → 1)."""
        with self._lock:
            seats = self._counts.setdefault(match_id, {})
            seats[seat] = seats.get(seat, 0) + 1
            return seats[seat] == 1

    def leave(self, match_id: str, seat: int) -> bool:
        """One feed of the seat fewer; True when it was the seat's last here (1 → 0)."""
        with self._lock:
            seats = self._counts.get(match_id, {})
            count = seats.get(seat, 0)
            if count <= 0:
                raise ValueError(f"no feed of seat {seat} of match {match_id} is open here")
            if count > 1:
                seats[seat] = count - 1
                return False
            del seats[seat]
            if not seats:
                del self._counts[match_id]
            return True

    def count(self, match_id: str, seat: int) -> int:
        """How many feeds of the seat are open here."""
        with self._lock:
            return self._counts.get(match_id, {}).get(seat, 0)

    def seats(self, match_id: str) -> frozenset[int]:
        """The seats of the match with a feed open here."""
        with self._lock:
            return frozenset(self._counts.get(match_id, ()))

    def held(self) -> list[tuple[str, int]]:
        """Every (match, seat) with a feed open here."""
        with self._lock:
            return [(m, s) for m, seats in self._counts.items() for s in seats]


class Presence:
    """This process's registry, its rows in the store, and the other processes' rows it follows.

    Call its methods on the event loop; only the registry is shared with other threads.
    """

    def __init__(
        self,
        backend: Backend,
        call: Call,
        wake: Wake,
        *,
        follow_every: float = 1.0,
        beat_every: float = 5.0,
        expiry: float = 30.0,
    ) -> None:
        if not 0 < beat_every < expiry:
            raise ValueError(
                f"the presence heartbeat ({beat_every} s) must be shorter than its expiry"
                f" ({expiry} s)"
            )
        self.process = uuid.uuid4().hex  # this process's rows (never shown to anyone)
        self.registry = PresenceRegistry()
        self.follow_every = follow_every
        self.beat_every = beat_every
        self.expiry = expiry
        self._backend = backend
        self._call = call
        self._wake = wake
        self._watched: dict[str, int] = {}  # match -> feeds of any viewer open here
        self._remote: dict[str, frozenset[int]] = {}  # watched match -> other processes' seats
        self._recent: dict[str, tuple[float, frozenset[int]]] = {}  # unwatched, read lately
        self._written: set[tuple[str, int]] = set()  # rows this process has in the store
        self._pending: set[tuple[str, int]] = set()  # rows to make match their counts
        self._writing: set[tuple[str, int]] = set()  # the rows of the transaction under way
        self._writer: asyncio.Task[None] | None = None
        # Whether another process held any seat at the last look: while none does, a view of a
        # match with no feed here needs no store read (one server process, the common case).
        self._elsewhere = True
        self._loop_task: asyncio.Task[None] | None = None
        self._stopped = False

    # -- feeds ------------------------------------------------------------------------------

    def feed_opened(self, match_id: str, viewer: int) -> None:
        """A feed of the match opened here; ``viewer`` a seat (0, 1, …) connects that seat,
        anything else (a spectator, support) only makes this process follow the match."""
        self._watched[match_id] = self._watched.get(match_id, 0) + 1
        if viewer >= 0 and self.registry.join(match_id, viewer):
            self._changed(match_id, viewer)

    def feed_closed(self, match_id: str, viewer: int) -> None:
        """A feed opened with ``feed_opened`` ended (however it ended)."""
        left = self._watched.get(match_id, 0) - 1
        if left > 0:
            self._watched[match_id] = left
        else:
            self._watched.pop(match_id, None)
            self._remote.pop(match_id, None)
        if viewer >= 0 and self.registry.leave(match_id, viewer):
            self._changed(match_id, viewer)

    def known(self, match_id: str) -> frozenset[int]:
        """The connected seats of a match this process follows, as last seen (no store call)."""
        return self.registry.seats(match_id) | self._remote.get(match_id, frozenset())

    async def seats(self, match_id: str) -> frozenset[int]:
        """The connected seats of any match: followed ones as last seen, others read from the
        store (at most once per ``follow_every`` seconds, and only while another process holds
        any seat)."""
        local = self.registry.seats(match_id)
        remote = self._remote.get(match_id)
        if remote is not None:
            return local | remote
        now = time.monotonic()
        if not self._elsewhere:
            return local
        recent = self._recent.get(match_id)
        if recent is not None and now - recent[0] < self.follow_every:
            return local | recent[1]
        try:
            found: dict[str, frozenset[int]] = await self._call(
                self._backend.presence_seats, [match_id], self.process, time.time() - self.expiry
            )
        except Exception:
            log.exception("reading the presence table failed")
            return local
        remote = found.get(match_id, frozenset())
        if match_id in self._watched:
            self._remote.setdefault(match_id, remote)
        else:
            if len(self._recent) >= _RECENT_LIMIT:
                self._recent.clear()
            self._recent[match_id] = (now, remote)
        return self.registry.seats(match_id) | remote

    # -- starting and stopping --------------------------------------------------------------

    async def start(self) -> None:
        """Start following the other processes and beating (call on the event loop)."""
        self._stopped = False
        self._loop_task = asyncio.create_task(self._run(), name="basra-presence")

    async def stop(self) -> None:
        """Stop following and beating, finish the writes under way, delete this process's rows."""
        self._stopped = True
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._loop_task
            self._loop_task = None
        if self._writer is not None:
            await asyncio.wait([self._writer], timeout=5)
        try:
            await self._call(self._backend.presence_release_all, self.process)
        except Exception:
            log.exception("deleting this process's presence rows failed (they expire)")
        self._written.clear()

    # -- writes -----------------------------------------------------------------------------

    def _changed(self, match_id: str, seat: int) -> None:
        """The seat's count here went 0 → 1 or 1 → 0: wake the match's feeds, write its row."""
        self._recent.pop(match_id, None)
        self._wake(match_id)
        if not self._stopped:
            self._write_soon((match_id, seat))

    def _write_soon(self, key: tuple[str, int]) -> None:
        """Queue the (match, seat)'s row to be made to match its count. One writer per process:
        what changes while it writes is written in its next transaction, so the stored row
        always ends as the count does, and however many seats open and close at once, the
        process has one presence transaction under way at a time."""
        self._pending.add(key)
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write_pending())

    async def _write_pending(self) -> None:
        try:
            while self._pending and not self._stopped:
                batch = sorted(self._pending)[:WRITE_BATCH]
                self._pending.difference_update(batch)
                self._writing = set(batch)
                await self._store_rows(batch)
        finally:
            self._writing = set()
            self._writer = None

    async def _store_rows(self, keys: list[tuple[str, int]]) -> None:
        """Make the stored rows match the counts, in one transaction: written while ≥ 1 feed,
        deleted at 0. A failed write is retried by the next heartbeat."""
        holds: list[tuple[str, int]] = []
        releases: list[tuple[str, int]] = []
        for key in keys:
            (holds if self.registry.count(*key) > 0 else releases).append(key)
        try:
            await self._call(
                self._backend.presence_write, self.process, holds, releases, time.time()
            )
            self._written.update(holds)
            self._written.difference_update(releases)
        except Exception:
            log.exception("writing presence rows failed; the heartbeat retries them")
            self._written.update(keys)  # unknown now: the next heartbeat writes them again

    # -- the loop: the other processes' rows, the heartbeat -----------------------------------

    async def _run(self) -> None:
        """One loop per process: follow every ``follow_every`` s, beat every ``beat_every`` s."""
        next_beat = time.monotonic()
        while True:
            try:
                await self._follow()
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + self.beat_every
                    await self._beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("following the presence table failed; retrying")
            await asyncio.sleep(self.follow_every)

    async def _follow(self) -> None:
        """Look whether any other process holds a seat; read the other processes' live rows of
        the matches with feeds here, and wake those whose flags changed."""
        live_since = time.time() - self.expiry
        self._elsewhere = await self._call(
            self._backend.presence_elsewhere, self.process, live_since
        )
        watched = list(self._watched)
        if not watched:
            return
        found: dict[str, frozenset[int]] = await self._call(
            self._backend.presence_seats, watched, self.process, live_since
        )
        for match_id in watched:
            if match_id not in self._watched:
                continue  # its last feed closed meanwhile
            seats = found.get(match_id, frozenset())
            if self._remote.get(match_id) != seats:
                before = self.known(match_id)
                self._remote[match_id] = seats
                if self.known(match_id) != before:
                    self._wake(match_id)

    async def _beat(self) -> None:
        """Refresh this process's rows, then write again only the rows that differ from the
        feeds open here: a row missing (a failed write, or swept while this process could not
        beat) or left over (a failed delete). A row being written now is left to its writer,
        which makes it match the count when it ends.

        Rewriting every row at each beat because some write was under way (as this did until
        2026-12-06, one transaction, a flush on SQLite, per row) stalled every table of a busy
        process for a second (docs/performance.md, "Capacity at human pace")."""
        now = time.time()
        stored = await self._call(self._backend.presence_beat, self.process, now, now - self.expiry)
        held = set(self.registry.held())
        for key in (held ^ set(stored)) | (held ^ self._written):
            if key not in self._writing:
                self._write_soon(key)
