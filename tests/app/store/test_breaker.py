"""The PostgreSQL store's circuit breaker: refuse at once after a connection failure, one probe
at a time, close when the probe reaches the database (app/store/postgres.py,
docs/architecture.md L19)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from app.errors import StoreUnavailableError
from app.store.postgres import Breaker


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def opened(clock: Clock) -> Breaker:
    breaker = Breaker(open_seconds=1.0, clock=clock)
    breaker.failed(OSError("connection refused"))
    return breaker


def test_a_closed_breaker_lets_every_call_through() -> None:
    # given a breaker that has seen no failure
    breaker = Breaker(open_seconds=1.0, clock=Clock())
    # when calls ask, then each goes through as an ordinary call
    assert [breaker.admit() for _ in range(3)] == [False, False, False]
    assert not breaker.is_open and breaker.refusals == 0


def test_after_a_failure_calls_are_refused_at_once_until_the_wait_is_over() -> None:
    # given a breaker that saw the database fail to answer
    clock = Clock()
    breaker = opened(clock)
    # when a call asks half a second later
    clock.now += 0.5
    # then it is refused at once, saying when the store tries again
    with pytest.raises(StoreUnavailableError, match=r"trying again in 0\.5 s"):
        breaker.admit()
    assert breaker.is_open and breaker.trips == 1 and breaker.refusals == 1


def test_once_the_wait_is_over_one_call_probes_and_the_others_are_still_refused() -> None:
    # given an open breaker whose wait is over
    clock = Clock()
    breaker = opened(clock)
    clock.now += 1.0
    # when a call asks, then it is the probe
    assert breaker.admit() is True
    # and a call from another thread, while the probe runs, is refused
    refused: list[BaseException] = []

    def other() -> None:
        try:
            breaker.admit()
        except StoreUnavailableError as error:
            refused.append(error)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert len(refused) == 1


def test_a_probe_that_reaches_the_database_closes_the_breaker() -> None:
    # given a probe under way
    clock = Clock()
    breaker = opened(clock)
    clock.now += 1.0
    breaker.admit()
    # when it reaches the database
    breaker.answered()
    # then every call goes through again
    assert not breaker.is_open
    assert breaker.admit() is False


def test_only_the_probe_closes_the_breaker() -> None:
    # given an open breaker and a call admitted before it opened that now succeeds
    clock = Clock()
    breaker = opened(clock)
    # when that call reports an answer from another thread than a probe
    thread = threading.Thread(target=breaker.answered)
    thread.start()
    thread.join()
    # then the breaker stays open: only a probe's answer says the database is back
    assert breaker.is_open
    with pytest.raises(StoreUnavailableError):
        breaker.admit()


def test_a_probe_that_fails_opens_the_breaker_for_another_wait() -> None:
    # given a probe under way
    clock = Clock()
    breaker = opened(clock)
    clock.now += 1.0
    breaker.admit()
    # when it fails too
    breaker.failed(OSError("connection refused"))
    # then calls are refused for another full wait, still counted as one outage
    clock.now += 0.9
    with pytest.raises(StoreUnavailableError):
        breaker.admit()
    clock.now += 0.1
    assert breaker.admit() is True
    assert breaker.trips == 1


def test_an_abandoned_probe_lets_the_next_call_probe() -> None:
    # given a probe that ends without a verdict (interrupted)
    clock = Clock()
    breaker = opened(clock)
    clock.now += 1.0
    breaker.admit()
    breaker.abandoned()
    # when another thread asks, then it probes instead of being refused for ever
    probes: list[bool] = []
    thread = threading.Thread(target=lambda: probes.append(breaker.admit()))
    thread.start()
    thread.join()
    assert probes == [True]


SCRIPT = textwrap.dedent(
    """
    import sys, threading, random
    sys.setswitchinterval(1e-6)
    from app.errors import StoreUnavailableError
    from app.store.postgres import Breaker

    breaker = Breaker(open_seconds=0.0005)
    guard = threading.Lock()
    probing = [0]
    most = [0]
    counts = {"probes": 0, "refused": 0, "through": 0}

    def run(k):
        rng = random.Random(k)
        for _ in range(3000):
            try:
                probe = breaker.admit()
            except StoreUnavailableError:
                with guard:
                    counts["refused"] += 1
                continue
            if probe:
                with guard:
                    probing[0] += 1
                    counts["probes"] += 1
                    most[0] = max(most[0], probing[0])
            else:
                with guard:
                    counts["through"] += 1
            roll = rng.random()
            if probe:
                with guard:
                    probing[0] -= 1
            if roll < 0.3:
                breaker.failed(OSError("down"))
            elif roll < 0.9:
                breaker.answered()
            else:
                breaker.abandoned()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(most[0], counts["probes"], counts["refused"], counts["through"], breaker.refusals)
    """
)


def test_from_six_threads_in_a_fresh_interpreter_there_is_never_more_than_one_probe() -> None:
    # given six threads with a 1 µs switch interval asking, failing and answering at random
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    most, probes, refused, through, refusals = (int(x) for x in result.stdout.split())
    # then at most one call probed at any moment, each refusal was counted once, every call
    # was answered one way or the other, and all three ways happened
    assert most == 1
    assert refused == refusals
    assert probes + refused + through == 6 * 3000
    assert probes > 0 and refused > 0 and through > 0
