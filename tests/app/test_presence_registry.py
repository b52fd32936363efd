"""The per-process registry of open seat feeds (app.runtime.presence): its counts and transitions
stay exact when feeds of one seat open and close from several threads at once, in a fresh
interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.runtime.presence import PresenceRegistry

ROOT = Path(__file__).resolve().parents[2]

THREADS_SCRIPT = """
import json, sys, threading
from app.runtime.presence import PresenceRegistry

sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
THREADS, ROUNDS = 8, 3000
registry = PresenceRegistry()
barrier = threading.Barrier(THREADS)
firsts = [0] * THREADS
lasts = [0] * THREADS
together = [None] * THREADS
errors = []

def work(i):
    try:
        barrier.wait(30)
        for n in range(ROUNDS):
            seat = n % 2
            firsts[i] += registry.join("m", seat)
            lasts[i] += registry.leave("m", seat)
        barrier.wait(30)
        together[i] = registry.join("m", 3)  # every thread holds seat 3 once
        barrier.wait(30)
    except BaseException as error:
        errors.append(repr(error))

threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({
    "errors": errors,
    "firsts": sum(firsts),
    "lasts": sum(lasts),
    "firsts_together": sum(bool(t) for t in together),
    "count_3": registry.count("m", 3),
    "seats": sorted(registry.seats("m")),
    "held": registry.held(),
}))
"""


def test_feeds_opening_and_closing_from_eight_threads_keep_exact_counts() -> None:
    # given a fresh interpreter whose eight threads each open and close 3000 feeds of two seats,
    # then each open one feed of seat 3, all at once
    done = subprocess.run(
        [sys.executable, "-c", THREADS_SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout)
    # then nothing failed, every 0 -> 1 had its 1 -> 0, and only seat 3 is still held
    assert result["errors"] == []
    assert result["firsts"] >= 2
    assert result["firsts"] == result["lasts"]
    assert result["held"] == [["m", 3]]
    assert result["seats"] == [3]
    # and of the eight feeds of seat 3 exactly one was its first, all eight counted
    assert result["firsts_together"] == 1
    assert result["count_3"] == 8


def test_the_first_feed_connects_and_the_last_disconnects() -> None:
    # given a registry with two feeds of seat 0 and one of seat 1 of a match
    registry = PresenceRegistry()
    assert registry.join("m", 0) is True
    assert registry.join("m", 0) is False
    assert registry.join("m", 1) is True
    assert registry.seats("m") == {0, 1}
    # when one feed of seat 0 closes, then it stays; when the other does, it goes
    assert registry.leave("m", 0) is False
    assert registry.seats("m") == {0, 1}
    assert registry.leave("m", 0) is True
    assert registry.seats("m") == {1}
    # and closing a feed that was never opened is an error, not a negative count
    with pytest.raises(ValueError):
        registry.leave("m", 0)
    assert registry.held() == [("m", 1)]
