"""Shedding when the store's calls queue: the median wait of the last second's calls."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from app.runtime.waits import MIN_CALLS, StoreWaits


def test_waits_count_once_there_are_enough_calls_in_the_last_second() -> None:
    # given calls that each waited 10 ms for a thread
    waits = StoreWaits()
    for _ in range(MIN_CALLS - 1):
        waits.note(time.monotonic() - 0.010)
    # then too few say nothing
    assert waits.median_ms() == 0.0
    # when one more comes, then their median is the wait
    waits.note(time.monotonic() - 0.010)
    assert 9.0 <= waits.median_ms() <= 15.0


def test_waits_older_than_a_second_no_longer_count() -> None:
    # given a second of calls that queued, then a pause
    waits = StoreWaits()
    for _ in range(MIN_CALLS * 2):
        waits.note(time.monotonic() - 0.050)
    time.sleep(1.05)
    # then the queue is over: nothing counts
    assert waits.median_ms() == 0.0


THREADS = textwrap.dedent(
    """
    import sys, threading, time
    sys.setswitchinterval(1e-6)
    from app.runtime.waits import KEPT, StoreWaits
    waits = StoreWaits()
    stop = threading.Event()
    def note() -> None:
        while not stop.is_set():
            waits.note(time.monotonic() - 0.004)
    threads = [threading.Thread(target=note) for _ in range(8)]
    for t in threads:
        t.start()
    seen = []
    ends = time.monotonic() + 1.5
    while time.monotonic() < ends:
        seen.append(waits.median_ms())
    stop.set()
    for t in threads:
        t.join()
    assert len(waits._recent) <= KEPT
    print(len(seen), min(seen[len(seen) // 2:]))
    """
)


def test_waits_noted_from_eight_threads_while_read_stay_bounded_and_readable() -> None:
    # given eight threads noting waits as fast as they can, in a fresh interpreter
    done = subprocess.run(
        [sys.executable, "-c", THREADS], capture_output=True, text=True, timeout=60
    )
    # then reading them meanwhile never failed, the deque stayed bounded, the median is the wait
    assert done.returncode == 0, done.stderr[-2000:]
    reads, median = done.stdout.split()
    assert int(reads) > 0 and float(median) >= 3.9
