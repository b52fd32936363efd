"""The cyclic garbage collector of a serving process (docs/performance.md, "The garbage collector
of a serving process").

A serving process holds the objects of its imports and of its app for as long as it lives (some
70,000 that the collector tracks); Python's collector walks every one of them at each full
collection, 30 ms on an idle process here and 60-80 ms under load, a pause of every request in
flight, and walks the young ones every 700 allocations. Once the app is built, the process
freezes what it holds (``gc.freeze``: the collector never walks those objects again; memory
freed by reference counting is freed as before) and collects young objects less often.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping

from domain.errors import RequestError

COLLECTOR_VARIABLE = "BASRA_API_GC"
"""``tuned`` (the default): freeze the start-up objects and raise the thresholds; ``default``:
leave Python's collector as it is."""

COLLECTOR_MODES = ("tuned", "default")
"""The values of ``BASRA_API_GC``."""

SERVING_THRESHOLDS = (50_000, 20, 50)
"""``gc.set_threshold`` of a serving process: a young collection every 50,000 allocations of
container objects instead of 700, an older one every 20 of those, a full one (of what was not
frozen) every 50 of the older ones. Python's default is (700, 10, 10)."""


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


def tune_collector(mode: str = "tuned") -> None:
    """After start-up: collect once, freeze what is left and raise the thresholds.

    ``default`` changes nothing. Call it once the app is built, in the serving process only:
    a frozen object that later becomes part of a garbage cycle is never freed, which a long
    test process creating many apps would feel.
    """
    if mode == "default":
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVING_THRESHOLDS)
