"""Benchmark of following a table in Chromium: how often each page asks the server for the whole
table again, and how soon a play reaches the other pages.

A 2-seat table of two people, each seat's page and one spectator's page open in Debian's
Chromium (Playwright), against a real ``basra serve`` on a fresh SQLite file. The seats play
over HTTP (so no page makes a play or a preview of its own), one play every ``--think``
seconds, ``--plays`` plays. Measured per page, from the browser's own requests and a
MutationObserver on the banner's ``data-seq`` (the position the page shows):

- reads per play per viewer: the page's ``GET /matches/{id}/view`` and ``GET /matches/{id}``
  after it has loaded, over the plays (goal ≤ 0.1);
- from a play's answer to each *other* page showing it: p50 and p99, with the table's pace set
  to 0 (so the pace is excluded; a client that has no pace ignores the setting).

``--tree DIR`` serves from another checkout (its own web pages): the page of the code before
the change, driven by this same benchmark, for today against after.

    python -m bench follow [--plays 40] [--think 0.5] [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.options import Shared
from bench.servers import HOST, served
from bench.stats import quantile

CHROMIUM = "/usr/bin/chromium"

SHARED = Shared()
"""No shared options but the harness's own."""

LEGACY = None
"""New with this benchmark: a checkout before it is measured with ``--tree``."""

SEQ_WATCH = """() => {
  window.seqShown = {};
  const banner = document.querySelector('[data-testid=banner]');
  const note = () => {
    const seq = Number(banner.dataset.seq);
    if (seq && !(seq in window.seqShown)) window.seqShown[seq] = Date.now();
  };
  new MutationObserver(note).observe(banner, { attributes: true, attributeFilter: ['data-seq'] });
  note();
}"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--plays", type=int, default=40, help="plays made over HTTP")
    parser.add_argument("--think", type=float, default=0.5, help="seconds between plays")
    parser.add_argument("--tree", type=Path, default=None, help="serve from this checkout")


def _open(browser: Any, url: str, match_id: str, seat: int | None, token: str | None) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/assets/css/basra.css")
    page.evaluate("() => localStorage.setItem('basra.pace', '0')")
    if seat is not None:
        kept = f'{{"seat":{seat},"token":"{token}"}}'
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"basra.seat.{match_id}", kept])
    reads: list[str] = []
    watched = {f"/matches/{match_id}", f"/matches/{match_id}/view"}
    loaded = {"done": False}

    def on_request(request: Any) -> None:
        path = "/" + request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        if request.method == "GET" and path in watched and loaded["done"]:
            reads.append(path)

    page.on("request", on_request)
    page.goto(f"{url}/play/{match_id}")
    page.wait_for_selector("[data-testid=banner][data-seq]")
    page.wait_for_timeout(1500)  # the feed open, the history read
    page.evaluate(SEQ_WATCH)
    loaded["done"] = True
    return {"page": page, "seat": seat, "reads": reads}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Open the pages, play, and print the figures."""
    from playwright.sync_api import sync_playwright

    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    tree = args.tree.resolve() if args.tree else None
    print(f"serving from {tree or 'this checkout'}")
    with (
        tempfile.TemporaryDirectory() as folder,
        served(Path(folder), env_extra={"BASRA_TEST_MODE": "1"}, tree=tree) as (port, _),
        sync_playwright() as playwright,
    ):
        url = f"http://{HOST}:{port}"
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            created = httpx.post(
                f"{url}/matches", json={"ruleset": "classic", "seats": 2, "seed": "follow"}
            ).json()
            match_id = created["match_id"]
            tokens = [
                httpx.post(f"{url}/matches/{match_id}/seats/{s}", json={"name": n}).json()["token"]
                for s, n in ((0, "Amal"), (1, "Badr"))
            ]
            pages = [_open(browser, url, match_id, s, tokens[s]) for s in (0, 1)]
            pages.append(_open(browser, url, match_id, None, None))
            turn = httpx.get(f"{url}/matches/{match_id}").json()["turn"]
            answered: dict[int, tuple[int, float]] = {}  # seq -> (seat, answer time in ms)
            made = 0
            while made < args.plays:
                auth = {"Authorization": f"Bearer {tokens[turn]}"}
                hand = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()["hand"]
                answer = httpx.post(
                    f"{url}/matches/{match_id}/plays", headers=auth, json={"card": hand[0]}
                )
                now = time.time() * 1000
                body = answer.json()
                if answer.status_code != 200 or body["view"]["status"] != "playing":
                    break
                answered[int(body["events"][0]["seq"])] = (turn, now)
                turn = body["view"]["after"]["turn"]
                made += 1
                time.sleep(args.think)
            time.sleep(2)
            latencies: list[float] = []
            reads = 0
            for watched in pages:
                shown = {
                    int(k): v for k, v in watched["page"].evaluate("() => window.seqShown").items()
                }
                reads += len(watched["reads"])
                for seq, (seat, at) in answered.items():
                    if seat == watched["seat"]:
                        continue
                    first = min((t for s, t in shown.items() if s >= seq), default=None)
                    if first is not None:
                        latencies.append(first - at)
            latencies.sort()
            figures = {
                "plays": made,
                "viewers": len(pages),
                "reads": reads,
                "reads_per_play_per_viewer": reads / (made * len(pages)) if made else 0.0,
                "push_p50_ms": statistics.median(latencies) if latencies else None,
                "push_p99_ms": quantile(latencies, 0.99) if latencies else None,
                "pushes": len(latencies),
            }
            print(
                f"{made} plays, {len(pages)} viewers (2 seats, 1 spectator): {reads} reads of "
                f"/view or /matches/{{id}} after load, "
                f"{figures['reads_per_play_per_viewer']:.2f} per play per viewer (goal <= 0.1)"
            )
            if latencies:
                print(
                    f"play answered -> other page shows it (pace 0): p50 "
                    f"{figures['push_p50_ms']:.0f} ms, p99 {figures['push_p99_ms']:.0f} ms over "
                    f"{len(latencies)} page-plays"
                )
            print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        finally:
            browser.close()
    return figures
