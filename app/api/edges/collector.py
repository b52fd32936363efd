"""The cyclic garbage collector of a serving process (docs/performance.md, "The garbage collector
of a serving process").

A serving process holds the objects of its imports and of its app for as long as it lives (some
70,000 that the collector tracks); Python's collector walks every one of them at each full
collection, 30 ms on an idle process here and 60-80 ms under load, a pause of every request in
flight, and walks the young ones every 700 allocations. Once the app is built, the process
freezes what it holds (``gc.freeze``: the collector never walks those objects again; memory
freed by reference counting is freed as before) and collects young objects less often.

Python starts a young collection when allocations outnumber deallocations by the threshold, and
every object freed counts as a deallocation, old or young. A busy server replaces old objects
with new ones all the time (a match's cached state at each play, a table's objects when it ends
and another is set up), so that count stays low while the young generation grows without
bound: with a few thousand tables playing, the collection that came at last walked hundreds of
thousands of objects and paused every request for 100-600 ms. So a serving process also collects
on a clock (``CollectorClock``): the young generation every ``YOUNG_SECONDS``, the middle one
every ``MIDDLE_EVERY`` of those, each then holding what a fraction of a second made.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Mapping
from typing import Final

from domain.errors import RequestError

COLLECTOR_VARIABLE = "BASRA_API_GC"
"""``tuned`` (the default): freeze the start-up objects and raise the thresholds; ``default``:
leave Python's collector as it is."""

COLLECTOR_MODES = ("tuned", "default")
"""The values of ``BASRA_API_GC``."""

SERVING_THRESHOLDS = (50_000, 20, 7_200)
"""``gc.set_threshold`` of a serving process: a young collection every 50,000 allocations of
container objects instead of 700, an older one every 20 of those, a full one (of what was not
frozen) every 7,200 of the older ones: the clock's middle collections count among those, so
about once an hour at most, as rarely as before the clock. Python's default is (700, 10, 10)."""

YOUNG_SECONDS: Final = 0.1
"""How often the collector clock collects the young generation."""

MIDDLE_EVERY: Final = 5
"""Every how many of its young collections the clock collects the middle generation too (twice
a second): what outlived a young collection is walked once more there, then left to the full
collections. Its pause is the longest the clock makes: half a second's survivors, 29-34 ms at
3,000 tables arriving, against 45-58 ms once a second (docs/performance.md)."""

CLOCK_THREAD_NAME: Final = "basra-collector"
"""The name of the collector clock's thread."""


class CollectorSettingError(RequestError):
    """``BASRA_API_GC`` is neither ``tuned`` nor ``default``."""

    code = "invalid_collector_setting"


def collector_mode(environ: Mapping[str, str] | None = None) -> str:
    """The collector mode asked for by ``BASRA_API_GC`` (``tuned`` when unset)."""
    env = os.environ if environ is None else environ
    mode = env.get(COLLECTOR_VARIABLE) or "tuned"
    if mode not in COLLECTOR_MODES:
        raise CollectorSettingError(
            f"{COLLECTOR_VARIABLE} must be one of {', '.join(COLLECTOR_MODES)}, not {mode!r}"
        )
    return mode


class CollectorClock:
    """A daemon thread that collects the young generations on a clock, however few objects the
    allocation count says were made (module docstring)."""

    def __init__(
        self, young_seconds: float = YOUNG_SECONDS, middle_every: int = MIDDLE_EVERY
    ) -> None:
        self.young_seconds = young_seconds
        self.middle_every = middle_every
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=CLOCK_THREAD_NAME, daemon=True)

    def start(self) -> None:
        """Start collecting on the clock."""
        self._thread.start()

    def stop(self) -> None:
        """Stop collecting on the clock (Python's own collections go on)."""
        self._stopped.set()
        self._thread.join()

    def _run(self) -> None:
        ticks = 0
        while not self._stopped.wait(self.young_seconds):
            ticks += 1
            gc.collect(1 if ticks % self.middle_every == 0 else 0)


def tune_collector(mode: str = "tuned") -> CollectorClock | None:
    """After start-up: collect once, freeze what is left, raise the thresholds and start the
    collector clock (returned; None in ``default`` mode).

    ``default`` changes nothing. Call it once the app is built, in the serving process only:
    a frozen object that later becomes part of a garbage cycle is never freed, which a long
    test process creating many apps would feel.
    """
    if mode == "default":
        return None
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_THRESHOLDS)
    clock = CollectorClock()
    clock.start()
    return clock
