"""Everything a request handler works with: the service, the facts cache, the broker, threads,
the read models."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, Protocol, TypeVar

from litestar.datastructures import State

from app.readmodels.projections import Projections
from app.runtime.broker import EventBroker, Listen, Listener, LoadEvent, OnEntry
from app.runtime.clock import TurnClock
from app.runtime.facts import FactsCache
from app.runtime.pool_sweep import PoolSweep
from app.runtime.presence import Presence
from app.runtime.waits import StoreWaits
from app.service import MatchService
from app.service.access import AccessService
from app.service.clocks import fast_clock
from app.service.desk_open import open_desk
from app.service.links import LinkService
from app.service.players import PlayerService
from app.service.pool import PoolService
from domain.pool import PoolWindow

P = ParamSpec("P")
T = TypeVar("T")


class RuntimeSettings(Protocol):
    """The settings a runtime is built from and carries for its requests (the API's satisfy it).

    The runtime reads the first six and the presence settings itself; the requests read the
    other four through ``runtime.settings``.
    """

    @property
    def follow_every_seconds(self) -> float:
        """How often the broker and the clock look for other processes' appends."""
        ...

    @property
    def store_threads(self) -> int:
        """How many worker threads call the store."""
        ...

    @property
    def store_calls(self) -> str:
        """``auto``, ``inline`` or ``threads``: where short store calls run."""
        ...

    @property
    def test_clock(self) -> tuple[int, float] | None:
        """A fast clock for end-to-end tests of the turn clock, else None."""
        ...

    @property
    def turn_seconds(self) -> int:
        """R25: the turn time of a table created without one."""
        ...

    @property
    def pool_window(self) -> PoolWindow:
        """The rated pool's rating window."""
        ...

    @property
    def waiting_minutes(self) -> float:
        """How long a table may wait for players before it is closed."""
        ...

    @property
    def support_token(self) -> str | None:
        """The support token, if support may come in with one."""
        ...

    @property
    def test_mode(self) -> bool:
        """Whether clients may choose a match's seed (tests only)."""
        ...

    @property
    def keepalive_seconds(self) -> float:
        """How long a quiet feed waits before a keep-alive comment."""
        ...

    @property
    def rematch_wait_seconds(self) -> float:
        """How long a feed open at a match's end waits for its rematch."""
        ...

    @property
    def presence_follow_seconds(self) -> float:
        """How often the other processes' presence rows are read."""
        ...

    @property
    def presence_beat_seconds(self) -> float:
        """How often this process refreshes its presence rows."""
        ...

    @property
    def presence_expiry_seconds(self) -> float:
        """How old a presence row's beat may be before its process counts as gone."""
        ...


class ApiRuntime:
    """The service and its companions, shared by every request of one API process."""

    def _results_now(self) -> None:
        """Bring the results up to date (after a void or a restore, R28)."""
        self.projections.results.catch_up()

    def __init__(self, service: MatchService, settings: RuntimeSettings) -> None:
        self.service = service
        self.settings = settings
        self.facts = FactsCache(service)
        self.access = AccessService(service.store)
        self.players = PlayerService(service.store)
        self.links = LinkService(service.store, self.players)
        self.pool = PoolService(service, settings.pool_window)
        self.pool_sweep = PoolSweep(self.pool, self.offload)
        # The process's one copy of every read model: the lobby, a player's matches, results.
        self.projections = Projections(service.store)
        # The support desk: refused commands and presence, reports, cases, sanctions, voids.
        self.desk_records, self.desk = open_desk(service.store, self.players, self._results_now)
        notifications = getattr(service, "notifications_after", None)
        # Other processes' appends: pushed by the database where it can (PostgreSQL), else polled.
        store_listen = getattr(service.store, "listen", None)
        listen = None if store_listen is None else functools.partial(self._listen, store_listen)
        self.broker = EventBroker(notifications, settings.follow_every_seconds, listen)
        # Which seats have a feed open on any process (app.runtime.presence).
        self.presence = Presence(
            service.store.backend,
            self.call,
            self.broker.nudge,
            follow_every=settings.presence_follow_seconds,
            beat_every=settings.presence_beat_seconds,
            expiry=settings.presence_expiry_seconds,
        )
        # The store is synchronous (docs/architecture.md L6): a bounded pool of threads calls it.
        self._executor = _store_threads(settings.store_threads)
        self.waits = StoreWaits()  # how long its calls waited for a thread (shedding)
        self.inline = _inline(settings.store_calls, service)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        service.add_listener(self._on_append)
        if settings.test_clock is not None:  # end-to-end tests of the clock only
            service.clock = fast_clock(*settings.test_clock)
        if service.turn_seconds is None:  # R25: tables created without a turn time get this one
            service.turn_seconds = settings.turn_seconds
        self.clock = TurnClock(
            service,
            call=self.call,
            offload=self.offload,
            lock_for=self.match_lock,
            waiting_seconds=settings.waiting_minutes * 60,
            follow_every=settings.follow_every_seconds,
        )

    def _on_append(self, match_id: str, events: list[Any]) -> None:
        self.facts.on_append(match_id, events)
        self.broker.publish_threadsafe(match_id, events)

    def _listen(self, store_listen: Listen, position: int, on_entry: OnEntry) -> Listener | None:
        """The store's listener (PostgreSQL), each entry first moving this process's caches of
        its match on (``_heard_elsewhere``), then handed to ``on_entry`` (the broker)."""

        def heard(at: int, match_id: str, seq: int, load: LoadEvent) -> None:
            self._heard_elsewhere(match_id, seq, load)
            on_entry(at, match_id, seq, load)

        return store_listen(position, heard)

    def _heard_elsewhere(self, match_id: str, seq: int, load: LoadEvent) -> None:
        """A log entry the database pushed (the listener's thread): when this process caches the
        match's state or facts right up to it, they take it in, so the next play, view, key
        check or clock look here is decided without reading the store. Entries this process
        appended itself are already in (the caches are past them) and are not decoded."""
        state = self.service.cache.get(match_id)
        facts = self.facts.cached(match_id)
        wanted = (state is not None and state.events == seq - 1) or (
            facts is not None and facts.upto == seq - 1
        )
        if not wanted:
            return
        try:
            stored = load()
        except Exception:  # a row this build cannot read: the next load reads it, and says so
            return
        self.service.heard_elsewhere(match_id, stored)
        self.facts.on_append(match_id, [stored])

    async def call(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a short store call: on the event loop when inline, else on a worker thread."""
        if self.inline:
            return func(*args, **kwargs)
        return await self.offload(func, *args, **kwargs)

    async def offload(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a call on one of the store's threads; a cancelled caller waits for its end.

        The standard library's executor rather than anyio's threads: a hop there and back costs
        about a quarter of the CPU under concurrent requests (docs/performance.md, "the hop to
        the store's threads"). A started call is never abandoned: the command it runs holds its
        match's lock until its append is answered, as with anyio's ``run_sync``.
        """
        call = functools.partial(_noted, self.waits, time.monotonic(), func, *args, **kwargs)
        future = asyncio.get_running_loop().run_in_executor(self._executor, call)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            await _until_done(future)
            raise

    def match_lock(self, match_id: str) -> asyncio.Lock:
        """One lock per match in this process: its commands run one at a time here."""
        lock = self._locks.get(match_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[match_id] = lock
        return lock

    async def start(self) -> None:
        """On startup: bind the broker to the loop, start the turn clock."""
        await self.broker.start(self.offload)
        await self.clock.start()
        await self.presence.start()
        await self.pool_sweep.start()

    async def stop(self) -> None:
        """On shutdown: stop the clock and following the log, and end the open feeds."""
        await self.clock.stop()
        await self.pool_sweep.stop()
        await self.broker.stop()
        await self.presence.stop()  # after the feeds were told to end: its rows deleted
        # The calls under way finish before the store can be closed under them (a bounded
        # wait: a call stuck on an unreachable database is left to end by itself); a
        # started-again app gets fresh threads.
        executor = self._executor
        self._executor = _store_threads(self.settings.store_threads)
        waiting = asyncio.get_running_loop().run_in_executor(None, executor.shutdown, True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(waiting), STOP_WAIT_SECONDS)
        self.projections.close()  # opened again on first use if the app starts again


def _noted(
    waits: StoreWaits, submitted: float, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """Run ``func`` on a store thread, noting how long it waited for the thread."""
    waits.note(submitted)
    return func(*args, **kwargs)


STOP_WAIT_SECONDS = 10.0
"""How long a stopping runtime waits for the store calls under way."""


def _store_threads(count: int) -> ThreadPoolExecutor:
    """The pool of ``count`` threads that call the store (started as calls come)."""
    return ThreadPoolExecutor(max_workers=count, thread_name_prefix="basra-store")


async def _until_done(future: asyncio.Future[Any]) -> None:
    """Wait for ``future`` however often the waiting task is cancelled meanwhile."""
    while not future.done():
        try:
            await asyncio.wait([future])
        except asyncio.CancelledError:
            continue


def _inline(mode: str, service: MatchService) -> bool:
    """Whether short store calls run on the event loop.

    Only on the in-memory store (tests), which never waits. On SQLite a command's append may
    wait for the file's write lock (another process, a backup) or a slow disk: on the event
    loop that would stall every request, ``/health`` and every feed of the process. On worker
    threads it does not, and the appends of concurrent commands are committed together, one
    flush for all of them (app/store/grouping.py). On PostgreSQL a call waits on the network
    and on other processes' commits. The two ways on SQLite are measured side by side in
    docs/performance.md (scale-out).
    """
    if mode not in ("auto", "inline", "threads"):
        raise ValueError(f"BASRA_API_STORE_CALLS must be auto, inline or threads, not {mode!r}")
    if mode == "auto":
        return service.store.backend.never_waits
    return mode == "inline"


def runtime_of(state: State) -> ApiRuntime:
    """The runtime stored on the app's state (a Litestar dependency)."""
    runtime = state.runtime
    assert isinstance(runtime, ApiRuntime)
    return runtime
