"""Admitting new tables at the rate a process can take them (docs/deploy.md, "Shedding load").

A table admitted keeps playing for the whole match, so a process that takes more than it can
serve makes every table already playing wait. The admission keeps a rate of new tables a
second and a bucket of that many tokens: each new table takes one, and a table that finds
none is refused (503 ``overloaded``, ``Retry-After``).

Every ``TICK_SECONDS`` the rate is adjusted on whether the process was full over the tick
(``ProcessLoad``: it served requests concurrently, and used most of a core, or its store calls
queued for a thread, or its median request took longer than its target): while it is, the rate
is cut by ``DECREASE`` (down to ``MIN_RATE``: tables that end are still replaced, slowly); while
it is not, it grows by ``STEP`` (up to ``MAX_RATE``, far above
any lobby's arrivals). Cutting at once and growing slowly is how a shared link finds its rate
(additive increase, multiplicative decrease): the process settles just below the load where its
calls queue, a burst of tables set up on an idle process only slows the next ones, and refused
tables come back at the pace the process frees room rather than as a wave.

A process runs Python on one core at a time, so the share of a core it used is how full it is:
past about 90% the tables already playing start to queue behind each other. Before that, its
threads already wait for each other (for the interpreter's lock, for the disk): the median time
to answer a request is the direct sign, as a router's queue is judged by the delay of its packets
rather than by its length (CoDel: a standing queue is one whose typical delay stays past a few
milliseconds). A process whose median request takes longer than twice its floor (the lowest
median of the last ten minutes, what a request takes when it waits for nothing: TCP Vegas judges
a link by its round trip against the lowest it has seen), or than its store's limit, counts as
full, so the tables already playing keep about the latency they had at capacity. A client asking
one request at a time never fills a process however fast it asks (its requests never wait for
each other), so a process that served fewer than ``FULL_CONCURRENCY`` requests at a time on
average is never full.

The rate and the load are kept on the event loop (one thread); nothing here is shared across
threads.
"""

from __future__ import annotations

import collections
import statistics
import time
from collections.abc import Callable
from typing import Final, NamedTuple

TICK_SECONDS: Final = 0.5
"""How often the rate is adjusted."""

MAX_RATE: Final = 200.0
"""The rate of a process that keeps up: there, every new table is admitted, however many."""

DECREASE: Final = 0.75
"""What each tick the process is full keeps of the rate: a quarter less, at once."""

MIN_RATE: Final = 0.5
"""The fewest new tables a second (a saturated process still replaces tables that end)."""

STEP: Final = 2.0
"""What each tick the process is not full adds to the rate (tables a second): slowly, since a
table set up costs about ten plays, and a process that lets a crowd of refused tables back in at
once stalls the tables already playing for as long as their set-ups take."""

FULL_CONCURRENCY: Final = 1.25
"""Requests served at a time on average below which a process is never full: one client asking
one request after another comes to at most 1."""

MIN_TIMED: Final = 50
"""Fewer requests answered in a look than this say nothing about how long they wait."""

MAX_TIMED: Final = 20_000
"""The most requests timed in one look (a process answers far fewer in half a second)."""

FLOOR_SECONDS: Final = 600.0
"""How long the lowest median request time is remembered as the process's floor."""

FLOOR_FACTOR: Final = 2.0
"""A median request time this many times the floor is a standing queue."""

TARGET_MIN_MS: Final = 3.0
"""The floor's target is never below this: a process whose requests take a millisecond when
idle is not full at two."""

SUSTAINED_TICKS: Final = 2
"""Ticks in a row full after which spectator feeds and lobby reads are refused."""


class LatencyFloor:
    """The lowest median request time of the last ``FLOOR_SECONDS``: what a request of this
    process takes when it waits for nothing (TCP Vegas's base round trip, for requests)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        # (when, median ms), the medians rising: each is the lowest since its time.
        self._lowest: collections.deque[tuple[float, float]] = collections.deque()

    def note(self, median_ms: float) -> None:
        """One look's median (0: too few requests to say, ignored)."""
        if median_ms <= 0:
            return
        while self._lowest and self._lowest[-1][1] >= median_ms:
            self._lowest.pop()
        self._lowest.append((self._clock(), median_ms))

    def floor_ms(self) -> float | None:
        """The lowest median of the window, or None when none was noted in it."""
        since = self._clock() - FLOOR_SECONDS
        while self._lowest and self._lowest[0][0] < since:
            self._lowest.popleft()
        return self._lowest[0][1] if self._lowest else None

    def target_ms(self, limit_ms: float) -> float:
        """The median past which the process is full: ``FLOOR_FACTOR`` times the floor (at
        least ``TARGET_MIN_MS``), never past ``limit_ms``."""
        floor = self.floor_ms()
        if floor is None:
            return limit_ms
        return min(limit_ms, max(FLOOR_FACTOR * floor, TARGET_MIN_MS))


class LoadSample(NamedTuple):
    """How full the process was over one look."""

    concurrency: float
    """Requests served at a time on average."""
    cpu_share: float
    """The share of one core the process used (all its threads)."""
    median_ms: float
    """The median time to answer a request, in ms (0 with fewer than ``MIN_TIMED`` answered)."""


class ProcessLoad:
    """How full the process was since the last look: requests at a time, share of a core, and
    the median time a request took."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        self._clock = clock
        self._cpu_clock = cpu
        self._in_flight = 0
        self._changed = clock()
        self._area = 0.0  # request-seconds served since the last look
        self._looked = self._changed
        self._cpu = cpu()
        self._took: list[float] = []  # seconds each request answered since the last look took

    def started(self) -> float:
        """A request (not a feed) began; the time it began, for ``ended``."""
        self._count()
        self._in_flight += 1
        return self._changed

    def ended(self, began: float) -> None:
        """A request (not a feed) begun at ``began`` was answered."""
        self._count()
        self._in_flight -= 1
        if len(self._took) < MAX_TIMED:
            self._took.append(self._changed - began)

    def sample(self) -> LoadSample:
        """Since the last look: requests at a time, share of a core, median time a request."""
        self._count()
        now, cpu = self._changed, self._cpu_clock()
        wall = max(now - self._looked, 1e-9)
        took = self._took
        median = statistics.median(took) * 1000 if len(took) >= MIN_TIMED else 0.0
        sample = LoadSample(self._area / wall, (cpu - self._cpu) / wall, median)
        self._area, self._looked, self._cpu, self._took = 0.0, now, cpu, []
        return sample

    def _count(self) -> None:
        now = self._clock()
        self._area += self._in_flight * (now - self._changed)
        self._changed = now


class TableAdmission:
    """The rate of new tables a process admits, adjusted on whether it was full each tick."""

    def __init__(
        self,
        full: Callable[[], bool] | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._full = full
        self._clock = clock
        self.rate = MAX_RATE
        self._tokens = MAX_RATE
        self._at = clock()
        self._next_tick = self._at + TICK_SECONDS
        self._queued_ticks = 0

    @property
    def enabled(self) -> bool:
        """False without a signal of a full process: every table is admitted."""
        return self._full is not None

    def admit(self) -> bool:
        """Take a token for one new table: False when the process has no room for it now."""
        if not self.enabled:
            return True
        self._refresh()
        if self.rate >= MAX_RATE:
            return True  # a process that keeps up counts nothing
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def saturated(self) -> bool:
        """True while the process was full for ``SUSTAINED_TICKS`` ticks in a row."""
        if not self.enabled:
            return False
        self._refresh()
        return self._queued_ticks >= SUSTAINED_TICKS

    def _refresh(self) -> None:
        now = self._clock()
        if now >= self._next_tick:
            ticks = int((now - self._next_tick) / TICK_SECONDS) + 1
            self._next_tick += ticks * TICK_SECONDS
            if self._full is not None and self._full():
                # One cut per look: a process asked nothing for a while is judged once.
                self.rate = max(MIN_RATE, self.rate * DECREASE)
                self._queued_ticks += 1
            else:
                self.rate = min(MAX_RATE, self.rate + STEP * ticks)
                self._queued_ticks = 0
        # The bucket holds at most one tick's worth at the rate: no wave after a pause.
        self._tokens = min(
            max(1.0, self.rate * TICK_SECONDS), self._tokens + (now - self._at) * self.rate
        )
        self._at = now
