#!/usr/bin/env python3
"""The screenshots of docs/web.md's table section, taken anew from a real ``basra serve``.

Usage: ``python tools/table_screenshots.py [--out docs/web]``

Each scene is played over HTTP on a fresh SQLite file and photographed in Debian's Chromium:
a 2-seat and a 4-seat table, a play in flight, a Basra announced, a round's summary, the result
of a rated match with its rating change, the table in Arabic and on a 360 px phone.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.servers import HOST, served

CHROMIUM = "/usr/bin/chromium"


def _open(
    browser: Any, url: str, match_id: str, seat: int | None, token: str | None, **kw: Any
) -> Any:
    """A page at the table, as the seat when given; ``pace``, ``lang`` and ``player`` kept."""
    context = browser.new_context(
        viewport={"width": kw.get("width", 1100), "height": kw.get("height", 760)}
    )
    page = context.new_page()
    page.goto(f"{url}/assets/css/basra.css")
    kept: dict[str, str] = {"basra.pace": str(kw.get("pace", 600))}
    if seat is not None:
        kept[f"basra.seat.{match_id}"] = json.dumps({"seat": seat, "token": token})
    if kw.get("lang"):
        kept["basra.lang"] = kw["lang"]
    if kw.get("player"):
        kept["basra.player"] = json.dumps(kw["player"])
    for key, value in kept.items():
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value])
    page.goto(f"{url}/play/{match_id}")
    page.wait_for_selector("[data-testid=banner][data-seq]")
    page.wait_for_timeout(600)
    return page


def _table(url: str, body: dict[str, Any], people: dict[int, str]) -> tuple[str, dict[int, str]]:
    match_id = httpx.post(f"{url}/matches", json=body).json()["match_id"]
    tokens = {
        seat: httpx.post(f"{url}/matches/{match_id}/seats/{seat}", json={"name": name}).json()[
            "token"
        ]
        for seat, name in people.items()
    }
    return match_id, tokens


def _play(
    url: str, match_id: str, tokens: dict[int, str], *, basra: bool = False
) -> dict[str, Any]:
    """The seat on turn plays: a Basra when asked and one is there, else its first card."""
    turn = httpx.get(f"{url}/matches/{match_id}").json()["turn"]
    auth = {"Authorization": f"Bearer {tokens[turn]}"}
    hand = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()["hand"]
    card = hand[0]
    if basra:
        previews = [
            httpx.post(f"{url}/matches/{match_id}/preview", headers=auth, json={"card": c}).json()
            for c in hand
        ]
        card = max(previews, key=lambda p: (p["basra"], len(p["captured"])))["card"]
    answer: dict[str, Any] = httpx.post(
        f"{url}/matches/{match_id}/plays", headers=auth, json={"card": card}
    ).json()
    return answer


def main() -> None:
    """Take every scene."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/web"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as folder,
        served(Path(folder), env_extra={"BASRA_TEST_MODE": "1"}) as (port, _),
        sync_playwright() as playwright,
    ):
        url = f"http://{HOST}:{port}"
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])

        def shot(page: Any, name: str) -> None:
            page.screenshot(path=str(args.out / f"{name}.png"), full_page=True)
            print(args.out / f"{name}.png")

        # 2 seats: Amal's page, a few plays in, then a play in flight and a Basra
        match_id, tokens = _table(
            url, {"ruleset": "classic", "seats": 2, "seed": "follow-2-4"}, {0: "Amal", 1: "Badr"}
        )
        amal = _open(browser, url, match_id, 0, tokens[0], pace=1000)
        spectator = _open(browser, url, match_id, None, None, pace=1000)
        for _ in range(2):
            _play(url, match_id, tokens, basra=True)
            time.sleep(1.2)
        answer = _play(url, match_id, tokens, basra=True)  # this seed's third play is a Basra
        assert answer["basra"], "no Basra at the third play: the seed's deal has changed"
        spectator.wait_for_timeout(250)
        shot(spectator, "table-play-in-flight")
        spectator.wait_for_timeout(1200)
        shot(spectator, "table-basra")
        shot(amal, "table-2-seats")
        # a round's summary: play the round out
        while True:
            answer = _play(url, match_id, tokens)
            if any(e["type"] == "round_scored" for e in answer["events"]):
                break
        amal.wait_for_selector("[data-testid=round-summary]:not([hidden])")
        amal.wait_for_timeout(1500)
        shot(amal, "table-round-summary")
        # 4 seats: Amal and her partner Hana against two bots
        match_id, tokens = _table(
            url,
            {"ruleset": "classic", "seats": 4, "bots": [1, 3], "seed": "shots-4"},
            {0: "Amal", 2: "Hana"},
        )
        four = _open(browser, url, match_id, 0, tokens[0])
        for _ in range(3):
            _play(url, match_id, tokens)
        four.wait_for_timeout(3000)
        shot(four, "table-4-seats")
        # a rated match between two registered players: Badr leaves after a few plays
        amal_player = httpx.post(f"{url}/players", json={"name": "Amal"}).json()
        badr_player = httpx.post(f"{url}/players", json={"name": "Badr"}).json()
        match_id = httpx.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2}).json()[
            "match_id"
        ]
        tokens = {}
        for seat, who in ((0, amal_player), (1, badr_player)):
            auth = {"Authorization": f"Bearer {who['token']}"}
            httpx.post(f"{url}/matches/{match_id}/seats/{seat}", headers=auth).raise_for_status()
            tokens[seat] = who["token"]
        rated = _open(browser, url, match_id, None, None, player=amal_player, pace=0)
        for _ in range(4):
            _play(url, match_id, tokens)
        httpx.post(
            f"{url}/matches/{match_id}/leave",
            headers={"Authorization": f"Bearer {tokens[1]}"},
        ).raise_for_status()
        rated.wait_for_selector("[data-testid=result] .rating-change", timeout=30_000)
        shot(rated, "table-result-rated")
        # Arabic, and a 360 px phone
        match_id, tokens = _table(
            url, {"ruleset": "egyptian", "seats": 2, "bots": [1], "seed": "shots-ar"}, {0: "أمل"}
        )
        arabic = _open(browser, url, match_id, 0, tokens[0], lang="ar", pace=0)
        for _ in range(3):
            _play(url, match_id, tokens)
            arabic.wait_for_timeout(300)
        shot(arabic, "table-arabic")
        phone = _open(browser, url, match_id, 0, tokens[0], width=360, height=780, pace=0)
        shot(phone, "table-360")
        browser.close()


if __name__ == "__main__":
    main()
