"""The service's clocks: the wall clock's record time, and the fast clock of end-to-end tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from domain.times import utc_micros, utc_text, utc_text_us


def utc_now() -> str:
    """The record time of an event: UTC, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    return utc_text_us(time.time_ns() // 1000)


def fast_clock(anchor_ms: int, speed: float) -> Callable[[], str]:
    """A test clock that runs ``speed`` times faster than the wall clock after ``anchor_ms``.

    For end-to-end tests of the turn clock only (``BASRA_TEST_CLOCK``, docs/api.md "The turn
    clock"): at 5x a 5-second turn, the shortest the rules allow, passes in one real second.
    Every process given the same anchor reads the same time, across restarts.
    """

    def read() -> str:
        now_ms = time.time_ns() // 1_000_000
        return utc_text(anchor_ms + round((now_ms - anchor_ms) * speed))

    return read


def epoch_ms(at: str) -> int:
    """The Unix epoch milliseconds of a record time (the turn clock's schedule counts in ms)."""
    return utc_micros(at) // 1000
