"""Benchmark of the web pages in Debian's Chromium (Playwright) against a real ``basra serve``.

1. First load of ``/`` (the lobby) and ``/play/{id}`` (a practice table, as its seat): a fresh
   browser context each time (empty cache), from ``goto`` until the page shows its data (the
   lobby's table list, the table's hand); bytes are every response the page received, as sent
   on the wire (Chromium's ``encodedDataLength``, headers included), and the sum of the bodies.
2. The replay viewer on a match of at least 300 events: the time from a key press (the
   event's ``timeStamp``) to the first animation frame after the viewer has drawn the new
   position, over many presses of ←/→ and ↑/↓ (goal ≤ 16 ms).

Everything on 127.0.0.1, a fresh SQLite file in a temporary folder. Run from the repository
root:

    .venv/bin/python -m bench.bench_web [--loads 20] [--presses 300]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(folder: Path) -> tuple[str, subprocess.Popen[bytes]]:
    port = _free_port()
    env = os.environ | {
        "BASRA_TEST_MODE": "1",
        "BASRA_RATE_LIMITS": "players=off matches=off wrong_tokens=off feeds=off",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli.main",
            "serve",
            "--port",
            str(port),
            "--db",
            str(folder / "b.db"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=folder,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return url, process
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("basra serve did not start")
        time.sleep(0.05)


def _first_load(
    browser: Any, url: str, path: str, ready: str, storage: dict[str, str]
) -> tuple[float, int, int]:
    """(ms until ``ready`` shows, bytes on the wire, body bytes) of one cold load."""
    context = browser.new_context()
    page = context.new_page()
    if storage:
        page.goto(f"{url}/assets/css/basra.css")  # an origin page to write localStorage on
        for key, value in storage.items():
            page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value])
        context.clear_cookies()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    wire: list[int] = []
    bodies: list[int] = []
    cdp.on("Network.loadingFinished", lambda e: wire.append(int(e["encodedDataLength"])))
    cdp.on("Network.dataReceived", lambda e: bodies.append(int(e["dataLength"])))
    start = time.perf_counter()
    page.goto(url + path)
    page.wait_for_selector(ready)
    page.wait_for_load_state("load")
    elapsed = (time.perf_counter() - start) * 1000
    page.wait_for_timeout(200)  # let the last loadingFinished arrive
    context.close()
    return elapsed, sum(wire), sum(bodies)


def _long_match(url: str, events: int) -> str:
    """A table of two bots played through, with at least ``events`` events."""
    for target in (300, 400, 600, 1000):
        created = httpx.post(
            f"{url}/matches",
            json={"ruleset": "classic", "seats": 2, "bots": [0, 1], "target": target},
        ).json()
        lines = httpx.get(f"{url}/matches/{created['match_id']}/replay").text.splitlines()
        if len(lines) - 1 >= events:
            return str(created["match_id"])
    raise SystemExit("no match long enough")


KEY_TIMER = """() => {
  window.keyFrames = [];
  document.addEventListener('keydown', (event) => {
    const start = event.timeStamp;
    // The viewer draws in its own keydown listener (after this one); the next frame shows it.
    requestAnimationFrame(() => window.keyFrames.push(performance.now() - start));
  }, true);
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--presses", type=int, default=300)
    args = parser.parse_args()
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        url, process = _serve(Path(folder))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        print(f"Chromium {browser.version}")
        try:
            for _ in range(5):  # a few tables for the lobby to list
                httpx.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2, "bots": [1]})
            created = httpx.post(
                f"{url}/matches", json={"ruleset": "classic", "seats": 2, "bots": [1]}
            ).json()
            match_id = created["match_id"]
            seat = httpx.post(f"{url}/matches/{match_id}/seats/0", json={"name": "Bench"}).json()
            storage = {f"basra.seat.{match_id}": f'{{"seat":0,"token":"{seat["token"]}"}}'}
            for name, path, ready, kept in (
                ("/", "/", "#tables tr", {}),
                ("/play/{id}", f"/play/{match_id}", "[data-testid=hand] [data-card]", storage),
            ):
                runs = [_first_load(browser, url, path, ready, kept) for _ in range(args.loads)]
                times = sorted(r[0] for r in runs)
                print(
                    f"first load {name}: median {statistics.median(times):.1f} ms "
                    f"(min {times[0]:.1f}, max {times[-1]:.1f}) over {len(runs)} cold loads; "
                    f"{runs[-1][1]} bytes on the wire, {runs[-1][2]} bytes of bodies"
                )
            replay = _long_match(url, 300)
            events = len(httpx.get(f"{url}/matches/{replay}/replay").text.splitlines()) - 1
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(f"{url}/replay/{replay}")
            page.wait_for_function(
                "() => document.querySelector('[data-testid=seq]').textContent !== ''"
            )
            page.evaluate(KEY_TIMER)
            keys = ["ArrowRight"] * (args.presses // 2) + [">", "<", "ArrowLeft"] * (
                args.presses // 6
            )
            for key in keys:
                page.keyboard.press(key)
                page.wait_for_timeout(5)
            page.wait_for_timeout(200)
            frames = sorted(page.evaluate("() => window.keyFrames"))
            p95 = frames[int(len(frames) * 0.95) - 1]
            print(
                f"replay of {events} events, key press to next frame: median "
                f"{statistics.median(frames):.1f} ms, p95 {p95:.1f} ms, max {frames[-1]:.1f} ms "
                f"over {len(frames)} presses (goal <= 16 ms)"
            )
            context.close()
            print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        finally:
            browser.close()
            process.send_signal(signal.SIGINT)
            process.wait(15)


if __name__ == "__main__":
    main()
