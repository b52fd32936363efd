"""The table's live feed in a real browser: a leave reaches the other seat, a rematch is offered
to it and joined without reloading, and the feed comes back by itself after the server restarts,
with no event missed or received twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.test_serve import free_port, serve_process
from tests.e2e.web.conftest import NO_LIMITS, Page, open_page, screenshot

pytestmark = pytest.mark.e2e


def _two_seat_table(url: str, *, amal: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """A 2-seat table of two people, Amal at seat 0 (by her player token when given) and Badr
    at seat 1 by name: (match id, the seats' tokens)."""
    match_id = str(
        httpx.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2}).json()["match_id"]
    )
    if amal:
        auth = {"Authorization": f"Bearer {amal['token']}"}
        first = httpx.post(f"{url}/matches/{match_id}/seats/0", headers=auth)
    else:
        first = httpx.post(f"{url}/matches/{match_id}/seats/0", json={"name": "Amal"})
    second = httpx.post(f"{url}/matches/{match_id}/seats/1", json={"name": "Badr"})
    first.raise_for_status()
    second.raise_for_status()
    return match_id, [str(first.json()["token"]), str(second.json()["token"])]


def _sit_in_browser(
    page: Page, match_id: str, seat: int, token: str, player: dict[str, str] | None = None
) -> None:
    """Keep the seat (and the player) in the page's browser, as the lobby does, and open the
    table; wait until its feed is live."""
    page.goto("/assets/css/basra.css")  # a page of the origin, to write its localStorage
    kept: dict[str, object] = {f"basra.seat.{match_id}": {"seat": seat, "token": token}}
    if player:
        kept["basra.player"] = player
    for key, value in kept.items():
        page.page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, json.dumps(value)])
    page.goto(f"/play/{match_id}")
    page.page.wait_for_selector("[data-testid=hand] [data-card]")
    page.page.wait_for_selector("#live[data-state=live]")
    page.page.evaluate("() => { window.sameDocument = true; }")


def _same_document(page: Page) -> bool:
    return bool(page.page.evaluate("() => window.sameDocument === true"))


def test_a_leave_reaches_the_other_seat_and_its_rematch_is_offered_and_joined_live(
    new_page: Any, server: str
) -> None:
    # given Amal (a registered player) and Badr (by name) at a 2-seat table, each in a browser
    amal_player = httpx.post(f"{server}/players", json={"name": "Amal"}).json()
    match_id, tokens = _two_seat_table(server, amal=amal_player)
    amal, badr = new_page(), new_page()
    _sit_in_browser(amal, match_id, 0, tokens[0], amal_player)
    _sit_in_browser(badr, match_id, 1, tokens[1])
    # when Amal leaves the table
    amal.page.once("dialog", lambda dialog: dialog.accept())
    amal.page.click("#leave")
    # then Badr's page shows the forfeit by itself, in words with her name, and announces it
    badr_result = badr.page.locator("[data-testid=result]")
    badr_result.locator(".verdict").wait_for()
    assert badr_result.locator(".verdict").inner_text() == "Amal left: you win by forfeit"
    assert "Reason: a seat left the table" in badr_result.inner_text()
    announced = badr.page.locator("[data-testid=announce] [data-kind=leave]")
    assert announced.inner_text() == "Amal left the table"
    amal_result = amal.page.locator("[data-testid=result]")
    amal_result.locator(".verdict").wait_for()
    assert amal_result.locator(".verdict").inner_text() == "You left the table: Badr win by forfeit"
    assert amal_result.locator(".rematch-offered").count() == 0
    # when Badr asks for a rematch
    badr_result.locator("button.rematch").click()
    badr.page.wait_for_url(lambda u: "/play/m-" in u and not u.endswith(f"/{match_id}"))
    rematch_id = badr.page.url.rsplit("/", 1)[1]
    assert rematch_id != match_id
    # then it reaches Amal's page live (no reload), which offers her to join it
    amal_result.locator(".rematch-offered").wait_for()
    assert _same_document(amal)
    screenshot(amal.page, "table-rematch-offered")
    join = amal_result.locator("button.rematch")
    assert join.inner_text() == "Join the rematch"
    # and joining sits her at her kept seat: the rematch starts for both, each with a hand
    join.click()
    amal.page.wait_for_url(f"**/play/{rematch_id}")
    for page in (amal, badr):
        page.page.wait_for_selector("[data-testid=banner][data-status=playing]")
        page.page.wait_for_selector("[data-testid=hand] [data-card]")
    table = httpx.get(f"{server}/matches/{rematch_id}").json()
    assert table["rematch_of"] == match_id and table["status"] == "playing"
    assert table["names"][0] == "Amal"
    assert httpx.get(f"{server}/matches/{match_id}").json()["rematch"] == rematch_id


def _play_a_turn(url: str, match_id: str, tokens: list[str]) -> int:
    """The seat on turn plays the first card of its hand over HTTP: the table's seq after."""
    turn = httpx.get(f"{url}/matches/{match_id}").json()["turn"]
    auth = {"Authorization": f"Bearer {tokens[turn]}"}
    hand = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()["hand"]
    played = httpx.post(f"{url}/matches/{match_id}/plays", headers=auth, json={"card": hand[0]})
    assert played.status_code == 200, played.text
    return int(played.json()["seq"])


def _shows_seq(page: Page, seq: int) -> None:
    page.page.wait_for_function(
        "seq => Number(document.querySelector('[data-testid=banner]').dataset.seq) === seq",
        arg=seq,
    )


def test_the_feed_comes_back_by_itself_after_a_restart_missing_nothing_doubling_nothing(
    browser: Any, tmp_path: Path
) -> None:
    # given a 2-seat table on a server of its own; seat 0 watches it in a browser
    port, db = free_port(), str(tmp_path / "restart.db")
    opened: list[Page] = []
    try:
        with serve_process(tmp_path, "--db", db, env=NO_LIMITS, port=port) as (url, _process):
            match_id, tokens = _two_seat_table(url)
            page = open_page(browser, url)
            opened.append(page)
            feeds: list[str] = []
            page.page.on("request", lambda r: feeds.append(r.url) if "/events" in r.url else None)
            _sit_in_browser(page, match_id, 0, tokens[0])
            opened_at = int(page.page.locator("[data-testid=banner]").get_attribute("data-seq"))
            for _ in range(3):
                last = _play_a_turn(url, match_id, tokens)
                _shows_seq(page, last)
            before_drop = last
            # the page cannot reach the server for a while: its tickets fail until let through
            page.page.route("**/tickets", lambda route: route.abort())
        # when the server stops (ending the feed) and starts again on the same file and address
        page.page.wait_for_selector("#live[data-state=offline]")
        with serve_process(tmp_path, "--db", db, env=NO_LIMITS, port=port) as (again, _process):
            assert again == url
            for _ in range(3):  # played while the page is away
                last = _play_a_turn(url, match_id, tokens)
            assert page.page.locator("#live").get_attribute("data-state") == "offline"
            page.page.unroute("**/tickets")
            # then the page reconnects by itself and catches up, then follows live again
            _shows_seq(page, last)
            page.page.wait_for_selector("#live[data-state=live]")
            for _ in range(3):
                last = _play_a_turn(url, match_id, tokens)
                _shows_seq(page, last)
            auth = {"Authorization": f"Bearer {tokens[0]}"}
            hand = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()["hand"]
            shown = page.page.locator("[data-testid=hand] [data-card]").evaluate_all(
                "els => els.map(e => e.dataset.card)"
            )
            assert shown == hand
            # every event of the match reached it once, in order (the move list's history
            # first, then live), none twice across the restart
            seqs = [json.loads(message)["seq"] for message in page.received.sse]
            assert seqs == list(range(1, last + 1))
            assert opened_at < before_drop < last
            # the feed was opened twice: from the match's start, then from the last event
            assert [feed.split("after=")[1].split("&")[0] for feed in feeds] == [
                "0",
                str(before_drop),
            ]
    finally:
        for page in opened:
            page.page.context.close()
    assert not opened[0].errors, opened[0].errors
