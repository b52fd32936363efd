"""How long the store's calls waited for a thread: the queue a saturated process builds.

Every call the runtime hands to the store's threads notes, when a thread picks it up, how long it
waited in the queue. A process that keeps up answers each call at once (waits near zero, however
busy its core); a saturated one queues them, and every table already playing waits with them.
Shedding (app.api.edges.shedding) refuses new work while the median wait of the last second's
calls is past ``BASRA_SHED_WAIT_MS``, once there were ``MIN_CALLS`` of them (a process serving
one request at a time never queues that many).
"""

from __future__ import annotations

import collections
import statistics
import time
from typing import Final

WINDOW_SECONDS: Final = 1.0
"""The calls whose waits count: those picked up within the last second."""

MIN_CALLS: Final = 100
"""Fewer calls than this in the window say nothing about queueing."""

KEPT: Final = 4096
"""The most recent waits kept (a process past this many calls a second keeps its last ones)."""


class StoreWaits:
    """The recent waits of store calls for a thread (noted from any thread, read on the loop)."""

    def __init__(self) -> None:
        # (picked up at, waited): appending to a bounded deque is safe from any thread.
        self._recent: collections.deque[tuple[float, float]] = collections.deque(maxlen=KEPT)

    def note(self, submitted: float) -> None:
        """A call submitted at ``submitted`` (``time.monotonic``) is picked up now."""
        now = time.monotonic()
        self._recent.append((now, now - submitted))

    def median_ms(self) -> float:
        """The median wait of the last second's calls, in ms (0 with fewer than ``MIN_CALLS``)."""
        since = time.monotonic() - WINDOW_SECONDS
        waits = [waited for at, waited in list(self._recent) if at >= since]
        if len(waits) < MIN_CALLS:
            return 0.0
        return statistics.median(waits) * 1000
