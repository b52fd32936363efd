"""Hidden hands in the browser (R23): seat 0's page of a whole practice match never receives a
card of seat 1 that is not yet public, nor the match secret before the end: not in any response
body, not in any SSE message (as Chromium received them), not in the page's DOM."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.app.api.helpers import cards_in
from tests.e2e.web.steps import hand, pick, tap_again, wait_turn_or_end

pytestmark = pytest.mark.e2e

DOM = """() => ({
  seq: Number(document.querySelector('[data-testid=banner]').dataset.seq),
  cards: [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
  text: document.body.innerText,
})"""

SYMBOLS = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"})
"""The page writes a card in running text as 10♦: read back as 10D."""


def knowable(lines: list[dict[str, Any]], seat: int) -> list[tuple[int, set[str]]]:
    """What ``seat`` may know after each seq: its own deals and every card that was face up."""
    known: set[str] = set()
    out = []
    for line in lines[1:]:
        if line["type"] == "cards_dealt":
            known |= set(line["hands"][seat])
        elif line["type"] == "floor_dealt":
            known |= set(line["cards"]) | set(line.get("reburied") or ())
        elif line["type"] == "card_played":
            known |= {line["card"], *line["captured"]}
        out.append((line["seq"], set(known)))
    return out


def allowed_at(table: list[tuple[int, set[str]]], seq: int) -> set[str]:
    """The cards a seat may know once it has seen everything up to ``seq``."""
    allowed: set[str] = set()
    for at, known in table:
        if at > seq:
            break
        allowed = known
    return allowed


def seq_of(text: str, fallback: int) -> int:
    """The seq a JSON body reflects (its own ``seq``), else the last one seen before it."""
    try:
        data = json.loads(text)
    except ValueError:
        return fallback
    if isinstance(data, dict) and isinstance(data.get("seq"), int):
        return int(data["seq"])
    return fallback


def test_seat_0_page_never_receives_seat_1_cards_before_they_are_public(
    new_page: Any, server: str
) -> None:
    # given seat 0's page of a practice match against the bot, played to the end by tapping
    table = new_page()
    table.goto("/")
    table.page.click("[data-testid=practice]")
    table.page.wait_for_url("**/play/*")
    match_id = table.page.url.rsplit("/", 1)[1]
    dom: list[dict[str, Any]] = []
    while wait_turn_or_end(table.page) == "turn":
        card = hand(table.page)[0]
        pick(table.page, card)
        dom.append(table.page.evaluate(DOM))  # with the preview shown
        tap_again(table.page, card)
        dom.append(table.page.evaluate(DOM))  # after the play and the bot's reply
    # when the whole stream is read after the end (every hand is public then)
    lines = [
        json.loads(line)
        for line in httpx.get(f"{server}/matches/{match_id}/replay").text.splitlines()
    ]
    secret = lines[0]["seed"]
    end = lines[-1]["seq"] if lines[-1]["type"] == "match_ended" else lines[-2]["seq"]
    table_of = knowable(lines, seat=0)
    # (seat 1 held cards that seat 0 could not know: there was something to leak)
    first_deal = next(line for line in lines[1:] if line["type"] == "cards_dealt")
    assert set(first_deal["hands"][1]) - allowed_at(table_of, first_deal["seq"])
    # then every SSE message held only what seat 0 could know at its seq, and no secret
    assert table.received.sse, "the page followed no feed"
    for message in table.received.sse:
        event = json.loads(message)
        if event["seq"] >= end:
            continue
        assert secret not in message
        extra = cards_in(message) - allowed_at(table_of, event["seq"])
        assert not extra, (event["seq"], extra, message)
    # and every response body the page fetched (the pages and scripts hold no match data)
    last = 0
    scanned = 0
    for url, kind, text in table.received.bodies():
        if "/assets/" in url or kind.startswith("text/html"):
            continue
        last = seq_of(text, last)
        if last >= end:
            continue
        assert secret not in text, url
        extra = cards_in(text) - allowed_at(table_of, last)
        assert not extra, (url, last, extra)
        scanned += 1
    assert scanned > 20
    # and the page's DOM, at every turn, showed nothing more
    assert len(dom) > 20
    for shown in dom:
        if shown["seq"] >= end:
            continue
        found = set(shown["cards"]) | cards_in(shown["text"].translate(SYMBOLS))
        extra = found - allowed_at(table_of, shown["seq"])
        assert not extra, (shown["seq"], extra)
