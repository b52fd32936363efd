"""The store's threads: calls off the event loop, at most ``store_threads`` at once, never
abandoned by a cancelled caller, and fresh threads for an app started again."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

from app.api.settings import ApiSettings
from app.runtime.runtime import ApiRuntime
from app.service import MatchService


def _runtime(service: MatchService, threads: int = 3) -> ApiRuntime:
    return ApiRuntime(service, ApiSettings(store_threads=threads))


def test_a_call_runs_on_a_store_thread_not_the_event_loop(api_service: MatchService) -> None:
    runtime = _runtime(api_service)

    async def run() -> tuple[str, str]:
        name = await runtime.offload(lambda: threading.current_thread().name)
        return name, threading.current_thread().name

    on_call, on_loop = asyncio.run(run())

    assert on_call.startswith("basra-store") and on_call != on_loop


def test_no_more_calls_run_at_once_than_the_threads(api_service: MatchService) -> None:
    runtime = _runtime(api_service, threads=3)
    running = 0
    most = 0
    lock = threading.Lock()

    def call() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    async def run() -> None:
        await asyncio.gather(*(runtime.offload(call) for _ in range(12)))

    asyncio.run(run())

    assert most == 3


def test_a_cancelled_caller_waits_for_its_started_call_to_end(api_service: MatchService) -> None:
    # A command's append must not run on after its caller gave up the match's lock.
    runtime = _runtime(api_service)
    release = threading.Event()
    started = threading.Event()
    ended: list[str] = []

    def call() -> str:
        started.set()
        release.wait(10)
        ended.append("call")
        return "done"

    async def run() -> tuple[bool, bool, list[str]]:
        task = asyncio.create_task(runtime.offload(call))
        while not started.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0.1)
        task.cancel()  # twice: it still waits
        await asyncio.sleep(0.1)
        waiting = not task.done()
        release.set()
        try:
            await task
        except asyncio.CancelledError:
            return waiting, True, list(ended)
        return waiting, False, list(ended)

    waiting, cancelled, ended_before = asyncio.run(run())

    assert waiting and cancelled and ended_before == ["call"]


def test_an_app_started_again_after_stopping_still_calls_the_store(
    api_service: MatchService,
) -> None:
    runtime = _runtime(api_service)

    async def run() -> list[int]:
        first = await runtime.offload(lambda: 1)
        await runtime.stop()
        return [first, await runtime.offload(lambda: 2)]

    assert asyncio.run(run()) == [1, 2]


SCRIPT = """
import asyncio, tempfile, threading, pathlib
from app.runtime.runtime import ApiRuntime
from app.api.settings import ApiSettings
from app.service import MatchService

service = MatchService.open(pathlib.Path(tempfile.mkdtemp()) / "t.db")
runtime = ApiRuntime(service, ApiSettings(store_threads=4))
results = []

def loop_thread(n):
    async def run():
        return await asyncio.gather(*(runtime.offload(lambda i=i: i * n) for i in range(200)))
    results.append(sum(asyncio.run(run())))

threads = [threading.Thread(target=loop_thread, args=(n,)) for n in range(1, 5)]
for t in threads: t.start()
for t in threads: t.join()
print(sorted(results))
"""


def test_the_threads_serve_event_loops_on_several_threads_in_a_fresh_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True
    )

    assert done.stdout.split("\n")[0] == str([19900 * n for n in range(1, 5)])
