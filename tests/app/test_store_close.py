"""Closing the store while other threads read it: they finish or are refused, never crash."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys, tempfile, threading
    from pathlib import Path
    sys.setswitchinterval(1e-6)
    from app.errors import StoreUnavailableError
    from app.service import MatchService

    folder = Path(tempfile.mkdtemp())
    service = MatchService.open(folder / "s.db")
    for k in range(3):
        service.create_match(ruleset="classic", seats=2, bots=(0, 1))
    store = service.store
    refused = []
    stop = threading.Event()

    def follow() -> None:
        while not stop.is_set():
            try:
                store.log_after(0, 1000)
                store.read(store.match_ids()[0])
            except StoreUnavailableError:
                refused.append(1)
                return

    readers = [threading.Thread(target=follow) for _ in range(6)]
    for t in readers:
        t.start()
    store.close()
    stop.set()
    for t in readers:
        t.join()
    print("refused", len(refused))
    """
)


def test_a_store_closed_under_reading_threads_refuses_them_and_does_not_crash() -> None:
    # given six threads reading the global log and a stream in a fresh interpreter
    # when the store is closed while they read
    for _ in range(3):
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
        )
        # then the process ends normally: each reader finished or was refused in words
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.startswith("refused "), result.stdout


SIDE_SCRIPT = textwrap.dedent(
    """
    import sys, tempfile, threading
    from pathlib import Path
    sys.setswitchinterval(1e-6)
    from app.errors import StoreUnavailableError
    from app.service import MatchService
    from app.service.desk_records import DeskRecords
    from app.store.desk_store import DeskStore
    from app.store.pool_store import PoolStore
    from domain.desk import FeedConnected

    folder = Path(tempfile.mkdtemp())
    service = MatchService.open(folder / "s.db")
    store = service.store
    records = DeskRecords(DeskStore(store))
    pool = PoolStore(store)
    refused = []
    stop = threading.Event()

    def write(k: int) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            try:
                records.record_presence(FeedConnected(n, f"m-{k}-{n % 3}", 0, "p"))
                records.presence(f"m-{k}-0")
                pool.read_after("rated", 0)
                store.backend.presence_write(f"proc-{k}", [(f"m-{k}-0", 0)], [], float(n))
                store.backend.presence_beat(f"proc-{k}", float(n), float(n) - 30.0)
            except StoreUnavailableError:
                refused.append(1)
                return

    writers = [threading.Thread(target=write, args=(k,)) for k in range(6)]
    for t in writers:
        t.start()
    import time
    time.sleep(0.3)
    store.close()
    stop.set()
    for t in writers:
        t.join()
    print("refused", len(refused))
    """
)


def test_a_store_closed_under_support_and_pool_writers_refuses_them_and_does_not_crash() -> None:
    # given six threads recording presence for support, reading the pool and beating the
    # live presence rows, in a fresh interpreter (the tables beside the match streams)
    # when the store is closed while they write
    for _ in range(3):
        result = subprocess.run(
            [sys.executable, "-c", SIDE_SCRIPT], capture_output=True, text=True, timeout=120
        )
        # then the process ends normally, and every writer was refused in words
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.strip() == "refused 6", result.stdout
