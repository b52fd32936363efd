"""The broker remembers this process's appends to matches nobody watched: written and forgotten
from the store's threads, read on the loop."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from types import SimpleNamespace
from typing import cast

from app.runtime.broker import EventBroker
from domain.recorded import RecordedEvent


def _recorded(seq: int) -> RecordedEvent:
    """An appended event as the broker sees it (it reads only the seq)."""
    return cast(RecordedEvent, SimpleNamespace(seq=seq))


def test_an_own_append_to_an_unwatched_match_is_not_woken_for_but_anothers_is() -> None:
    # given a broker bound to a loop, and a match with two events appended here unwatched
    match_id = "m-own-appends"
    recorded = [_recorded(1), _recorded(2)]

    async def scenario() -> tuple[int, int]:
        broker = EventBroker()
        broker._loop = asyncio.get_running_loop()
        broker.publish_threadsafe(match_id, list(recorded))
        sub = broker.subscribe(match_id)
        # when the log's reader passes those appends, then a later one (another process's)
        broker._seen(1, match_id, recorded[-1].seq)
        quiet = len(sub._batches)
        broker._seen(2, match_id, recorded[-1].seq + 1)
        woken = len(sub._batches)
        sub.close()
        return quiet, woken

    quiet, woken = asyncio.run(scenario())
    # then the feed is not woken for what it read itself, and is woken for what it did not
    assert (quiet, woken) == (0, 1)


def test_own_appends_are_forgotten_once_old() -> None:
    # given an append remembered long ago (the readers are long past it) and a recent one
    broker = EventBroker()
    broker._appended_unwatched["m-old"] = (3, 0.0)
    broker._appended_unwatched["m-new"] = (5, float("inf"))

    async def note_another() -> None:
        # when this process appends to another match nobody watches
        broker._loop = asyncio.get_running_loop()
        broker.publish_threadsafe("m-next", [_recorded(1)])

    asyncio.run(note_another())
    # then the old one is forgotten as the new one is noted, and the recent ones kept
    assert list(broker._appended_unwatched) == ["m-new", "m-next"]
    assert broker._already_given("m-new", 5) and not broker._already_given("m-old", 3)


THREADS = textwrap.dedent(
    """
    import asyncio, threading
    from app.runtime import broker as broker_module
    from app.runtime.broker import EventBroker
    import sys
    sys.setswitchinterval(1e-5)
    broker_module.OWN_APPENDS_KEPT_SECONDS = 0.0  # forget at once: every writer prunes
    async def main() -> int:
        broker = EventBroker()
        broker._loop = asyncio.get_running_loop()
        stop = threading.Event()
        failures: list[BaseException] = []
        def append(k: int) -> None:
            n = 0
            try:
                while not stop.is_set():
                    n += 1
                    broker.publish_threadsafe(f"m-{k}-{n % 50}", [FakeRecorded(n)])
            except BaseException as error:  # a thread's failure fails the script
                failures.append(error)
                raise
        threads = [threading.Thread(target=append, args=(k,), daemon=True) for k in range(8)]
        for t in threads:
            t.start()
        looked = 0
        loop = asyncio.get_running_loop()
        ends = loop.time() + 1.0
        try:
            while loop.time() < ends:
                broker._already_given("m-0-1", 1)  # read on the loop, without the lock
                looked += 1
                await asyncio.sleep(0)
        finally:
            stop.set()
        for t in threads:
            t.join()
        assert not failures, failures
        return looked
    class FakeRecorded:
        def __init__(self, seq: int) -> None:
            self.seq = seq
    print(asyncio.run(main()))
    """
)


def test_appends_noted_and_pruned_from_eight_threads_while_the_loop_reads_them() -> None:
    # given eight store threads noting appends to unwatched matches, each pruning the old ones,
    # while the loop reads them
    done = subprocess.run(
        [sys.executable, "-c", THREADS], capture_output=True, text=True, timeout=60
    )
    # then nothing failed, and the loop looked many times meanwhile
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 100
