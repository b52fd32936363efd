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

    python -m bench web [--loads 20] [--presses 300]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.before import Legacy, groups
from bench.options import Shared
from bench.servers import HOST, served
from bench.stats import quantile

CHROMIUM = "/usr/bin/chromium"

SHARED = Shared()
"""No shared options but the harness's own."""

PAGES = {"/": "lobby", "/play/{id}": "table"}
"""The pages loaded cold, by the key of their figures."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's report (bench/bench_web.py)."""
    found: dict[str, float] = {}
    for page, key in PAGES.items():
        pattern = (
            rf"^first load {re.escape(page)}: median ([\d.]+) ms .* cold loads; (\d+) bytes on the"
            r" wire, (\d+) bytes of bodies"
        )
        found |= groups(
            text, pattern, [f"{key}/median_ms", f"{key}/wire_bytes", f"{key}/body_bytes"]
        )
    pattern = r"key press to next frame: median ([\d.]+) ms, p95 ([\d.]+) ms, max ([\d.]+) ms"
    found |= groups(text, pattern, ["replay/median_ms", "replay/p95_ms", "replay/max_ms"])
    return found


LEGACY = Legacy("bench.bench_web", read_legacy)
"""The old script, bench/bench_web.py, printed the same report."""


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--presses", type=int, default=300)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Load the pages and press the keys; print the figures and return them."""
    from playwright.sync_api import sync_playwright

    figures: dict[str, Any] = {}
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with (
        tempfile.TemporaryDirectory() as folder,
        served(Path(folder), env_extra={"BASRA_TEST_MODE": "1"}) as (port, _),
        sync_playwright() as playwright,
    ):
        url = f"http://{HOST}:{port}"
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
                figures[PAGES[name]] = {
                    "median_ms": statistics.median(times),
                    "wire_bytes": runs[-1][1],
                    "body_bytes": runs[-1][2],
                }
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
            p95 = quantile(frames, 0.95)
            figures["replay"] = {
                "events": events,
                "presses": len(frames),
                "median_ms": statistics.median(frames),
                "p95_ms": p95,
                "max_ms": frames[-1],
            }
            print(
                f"replay of {events} events, key press to next frame: median "
                f"{statistics.median(frames):.1f} ms, p95 {p95:.1f} ms, max {frames[-1]:.1f} ms "
                f"over {len(frames)} presses (goal <= 16 ms)"
            )
            context.close()
            print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        finally:
            browser.close()
    return figures
