"""The table for everyone: a whole match played by keyboard alone, with every play read from
the live region; the Arabic page with no English left in it, on a 360 px phone."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from tests.e2e.web.conftest import screenshot
from tests.e2e.web.steps import keep_seat, shown_seq

pytestmark = pytest.mark.e2e

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _practice(server: str, name: str, **body: Any) -> tuple[str, str]:
    """A 2-seat table against the easy bot, the person at seat 0: (match id, seat token)."""
    settings = {"ruleset": "classic", "seats": 2, "bots": [1]} | body
    match_id = str(httpx.post(f"{server}/matches", json=settings).json()["match_id"])
    token = httpx.post(f"{server}/matches/{match_id}/seats/0", json={"name": name}).json()["token"]
    return match_id, str(token)


def _focused(page: Any) -> str:
    return str(page.evaluate("() => document.activeElement.dataset.card || ''"))


def test_a_whole_match_by_keyboard_alone_read_from_the_live_region(
    new_page: Any, server: str
) -> None:
    # given a practice table to 1 point (one round), the page at pace 0
    match_id, token = _practice(server, "Amal", target=1, seed="keyboard")
    table = new_page()
    table.goto("/assets/css/basra.css")
    keep_seat(table.page, match_id, 0, token, pace=0)
    table.goto(f"/play/{match_id}")
    table.page.wait_for_selector("[data-testid=hand] [data-card]")
    # when the player tabs from the top of the page, a card of the hand takes the focus
    for _ in range(12):
        table.page.keyboard.press("Tab")
        if _focused(table.page):
            break
    assert _focused(table.page), "no card of the hand reachable by Tab"
    # and every turn is played with the arrow keys and Enter only
    plays = 0
    while True:
        state = table.page.wait_for_function(
            "() => !document.querySelector('[data-testid=result]').hidden ? 'ended'"
            " : document.body.dataset.myTurn === 'true' ? 'turn' : null"
        ).json_value()
        if state == "ended":
            break
        before = shown_seq(table.page)
        table.page.keyboard.press("ArrowRight")
        table.page.wait_for_function(
            "() => document.querySelector('#preview').textContent.includes(':')"
        )
        assert _focused(table.page)
        table.page.keyboard.press("Enter")
        table.page.wait_for_function(
            "before => Number(document.querySelector('[data-testid=banner]').dataset.seq) > before"
            " || !document.querySelector('[data-testid=result]').hidden",
            arg=before,
        )
        plays += 1
        assert plays <= 30
    # then the match was played to its end by the keyboard
    assert plays == 24
    lines = httpx.get(
        f"{server}/matches/{match_id}/replay", headers={"Authorization": f"Bearer {token}"}
    ).text.splitlines()
    stream = [json.loads(line) for line in lines[1:]]
    spoken = table.page.locator("#spoken").inner_text()
    # and the live region said every play in words, with its card, and the round and the result
    for e in stream:
        if e["type"] != "card_played":
            continue
        who = "Amal (you)" if e["seat"] == 0 else "easy bot"
        card = e["card"][:-1] + SUITS[e["card"][-1]]
        assert f"{who} played {card}" in spoken, e
    assert "Round 1 scored:" in spoken
    verdict = table.page.locator("[data-testid=result] .verdict").inner_text()
    assert verdict in spoken
    assert table.page.locator("#spoken").get_attribute("aria-live") == "polite"
    # and the result's controls are reachable by keyboard too
    for _ in range(40):
        table.page.keyboard.press("Tab")
        if table.page.evaluate("() => document.activeElement.classList.contains('rematch')"):
            break
    else:
        raise AssertionError("the rematch button was not reached by Tab")


ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")


def test_the_arabic_table_on_a_phone_has_no_english_left(new_page: Any, server: str) -> None:
    # given a practice table of a player with an Arabic name, on a 360 px phone in Arabic
    match_id, token = _practice(server, "أمل", seed="arabic")
    table = new_page(width=360, height=780, locale="ar")
    table.goto("/assets/css/basra.css")
    keep_seat(table.page, match_id, 0, token, pace=0)
    table.page.evaluate("() => localStorage.setItem('basra.lang', 'ar')")
    table.goto(f"/play/{match_id}")
    table.page.wait_for_selector("[data-testid=hand] [data-card]")
    # when a card is played and the bot answers
    first = table.page.locator("[data-testid=hand] [data-card]").first
    first.click()
    table.page.wait_for_function(
        "() => document.querySelector('#preview').textContent.includes(':')"
    )
    before = shown_seq(table.page)
    first.click()
    table.page.wait_for_function(
        "before => Number(document.querySelector('[data-testid=banner]').dataset.seq) > before + 1",
        arg=before,
    )
    table.page.locator(".settings summary").click()
    # then the page reads right to left, and no English word is left in what it shows (card
    # ranks are one letter: A, K, Q, J), but for the button that switches to English
    assert table.page.evaluate("() => document.documentElement.dir") == "rtl"
    assert table.page.locator("#lang").inner_text() == "English"
    text = table.page.evaluate(
        "() => document.querySelector('main').innerText + ' '"
        " + [...document.querySelector('header').children].filter(e => e.id !== 'lang')"
        ".map(e => e.innerText).join(' ')"
    )
    assert ENGLISH_WORD.findall(text) == [], ENGLISH_WORD.findall(text)
    assert "روبوت سهل" in text and "كلاسيكي" in text
    # and the floor keeps its order (it never mirrors), and nothing is wider than the phone
    assert (
        table.page.evaluate("() => getComputedStyle(document.querySelector('#floor')).direction")
        == "ltr"
    )
    assert table.page.evaluate("() => document.documentElement.scrollWidth") <= 360
    screenshot(table.page, "table-arabic-360")


def test_a_name_is_text_everywhere_on_the_table(new_page: Any, server: str) -> None:
    # given a 2-seat table where Badr's seat was taken under a name that is markup
    name = '<img src=x onerror="window.pwned=1">Nour'
    match_id = httpx.post(f"{server}/matches", json={"ruleset": "classic", "seats": 2}).json()[
        "match_id"
    ]
    token = httpx.post(f"{server}/matches/{match_id}/seats/0", json={"name": "Amal"}).json()
    httpx.post(f"{server}/matches/{match_id}/seats/1", json={"name": name}).raise_for_status()
    table = new_page()
    table.goto("/assets/css/basra.css")
    keep_seat(table.page, match_id, 0, token["token"], pace=0)
    table.goto(f"/play/{match_id}")
    table.page.wait_for_selector("[data-testid=hand] [data-card]")
    # when the table and its move list are drawn (Nour's seat plays once, if on turn)
    # then the name is shown as written, as text, on the seat, in the scores and the live region
    seat = table.page.locator(".seat-box[data-seat='1'] .seat-name")
    assert seat.inner_text() == name
    assert table.page.locator("main img").count() == 0
    assert name in table.page.locator("[data-testid=scores]").inner_text()
    assert table.page.evaluate("() => window.pwned") is None
    # and the table offers to report the match to support
    assert table.page.locator("[data-testid=report]").is_visible()
