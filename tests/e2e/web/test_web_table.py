"""The table page in a real browser: a practice match played to the end by tapping cards, the
preview's highlight against ``/preview``, and two partners at a 4-seat table."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.e2e.web.conftest import screenshot
from tests.e2e.web.steps import (
    floor,
    hand,
    pick,
    play_by_tapping,
    taken,
    tap_again,
    wait_turn_or_end,
)

pytestmark = pytest.mark.e2e


def test_practice_match_played_to_the_end_by_tapping(new_page: Any, server: str) -> None:
    # given the lobby, and a player registered in it
    table = new_page()
    table.goto("/")
    table.page.fill("#register input[name=name]", "Amal")
    table.page.click("#register button")
    table.page.wait_for_selector("#me >> text=Amal")
    # when "Practice against the bot" is tapped once
    table.page.click("[data-testid=practice]")
    table.page.wait_for_url("**/play/*")
    match_id = table.page.url.rsplit("/", 1)[1]
    table.page.wait_for_selector("[data-testid=hand] [data-card]")
    screenshot(table.page, "table")
    # then every turn is played by tapping a card twice (or the floor every third play)
    plays = 0
    while wait_turn_or_end(table.page) == "turn":
        card = hand(table.page)[plays % len(hand(table.page))]
        play_by_tapping(table.page, card, on_floor=plays % 3 == 2)
        plays += 1
    # and the end shows the result in words with the score, the practice's points and the
    # replay link, never the raw seed
    result = table.page.locator("[data-testid=result]")
    result.locator(".verdict").wait_for()
    public = httpx.get(f"{server}/matches/{match_id}").json()
    assert public["status"] == "ended"
    mine, theirs = public["scores"]
    verdict = result.locator(".verdict").inner_text()
    expected = {0: f"You won {mine}–{theirs}", 1: f"You lost {mine}–{theirs}"}
    assert verdict == expected.get(public["winner"], f"A draw, {mine}–{theirs}")
    assert "no profile points" in result.inner_text()
    header = json.loads(httpx.get(f"{server}/matches/{match_id}/replay").text.splitlines()[0])
    assert header["seed"] and header["seed"] not in table.page.content()
    assert public["end_reason"] == "target"
    assert "Reason: the target was reached" in result.inner_text()  # in words, not its code
    assert result.locator("a.replay-link").get_attribute("href") == f"/replay/{match_id}"
    assert result.locator("a.new-game").is_visible()
    scores = table.page.locator("[data-testid=scores] .score-value").all_inner_texts()
    assert [int(s) for s in scores] == public["scores"]
    assert plays >= 20
    screenshot(table.page, "table-ended")


def _seat_token(page: Any, match_id: str) -> str:
    """The seat token the page keeps for the match (localStorage)."""
    kept = page.evaluate("id => JSON.parse(localStorage.getItem('basra.seat.' + id))", match_id)
    return str(kept["token"])


def test_the_preview_highlights_what_preview_says_and_sends_no_play(
    new_page: Any, server: str
) -> None:
    # given a practice table, and every request the page sends recorded
    table = new_page()
    sent: list[str] = []
    table.page.on("request", lambda request: sent.append(f"{request.method} {request.url}"))
    table.goto("/")
    table.page.click("[data-testid=practice]")
    table.page.wait_for_url("**/play/*")
    match_id = table.page.url.rsplit("/", 1)[1]
    token = _seat_token(table.page, match_id)
    compared = captures = 0
    while wait_turn_or_end(table.page) == "turn" and (captures < 2 or compared < 12):
        seq_before = httpx.get(f"{server}/matches/{match_id}").json()["seq"]
        # when each card of the hand is tapped once
        for card in hand(table.page):
            pick(table.page, card)
            # then the floor cards marked data-take are exactly what /preview takes
            answer = httpx.post(
                f"{server}/matches/{match_id}/preview",
                json={"card": card},
                headers={"Authorization": f"Bearer {token}"},
            ).json()
            assert sorted(taken(table.page)) == sorted(answer["captured"]), (
                card,
                floor(table.page),
            )
            text = table.page.locator("#preview").inner_text()
            assert ("Basra!" in text) == (answer["basra"] > 0), text
            assert ("Takes nothing" in text) == (not answer["captured"]), text
            compared += 1
            captures += bool(answer["captured"])
        # and nothing was played by the taps: the table has not moved on
        assert httpx.get(f"{server}/matches/{match_id}").json()["seq"] == seq_before
        assert not [r for r in sent if r.startswith("POST") and r.endswith("/plays")]
        # the card picked up last is played by tapping it again
        tap_again(table.page, card)
        sent.clear()
    assert captures >= 1 and compared >= 12


def _my_turn(page: Any) -> bool:
    return bool(page.evaluate("() => !!document.querySelector('[data-testid=banner] .turn.yours')"))


def _ended(page: Any) -> bool:
    return bool(page.locator("[data-testid=result]").is_visible())


def test_two_partners_at_a_four_seat_table_in_two_browsers(new_page: Any, server: str) -> None:
    # given Amal creates a 4-seat table from the lobby: bots at seats 1 and 3, to 1 point
    amal, badr = new_page(), new_page()
    amal.goto("/")
    form = amal.page.locator("#create")
    form.locator("select[name=seats]").select_option("4")
    form.locator("input[name=bot][value='1']").check()
    form.locator("input[name=bot][value='3']").check()
    form.locator("input[name=target]").fill("1")
    form.locator("button[type=submit]").click()
    amal.page.wait_for_url("**/play/*")
    match_id = amal.page.url.rsplit("/", 1)[1]
    amal.page.wait_for_selector("[data-testid=banner][data-status=waiting]")
    # when Badr, in another browser, sits at seat 2 from the lobby's open tables
    badr.goto("/")
    badr.page.locator(f"tr[data-match='{match_id}'] button.join[data-seat='2']").click()
    badr.page.wait_for_url(f"**/play/{match_id}")
    # then both see the match start without reloading, and play it out by tapping
    amal.page.evaluate("() => { window.sameDocument = true; }")
    amal.page.wait_for_selector("[data-testid=hand] [data-card]")
    badr.page.wait_for_selector("[data-testid=hand] [data-card]")
    plays = 0
    while not (_ended(amal.page) and _ended(badr.page)):
        for me, partner in ((amal, badr), (badr, amal)):
            if _my_turn(me.page) and not _ended(me.page):
                play_by_tapping(me.page, hand(me.page)[0])
                plays += 1
                seq = int(me.page.locator("[data-testid=banner]").get_attribute("data-seq"))
                # the partner's page shows the play (and the bots' replies) by itself
                partner.page.wait_for_function(
                    "seq => Number(document.querySelector('[data-testid=banner]').dataset.seq)"
                    " >= seq",
                    arg=seq,
                )
        amal.page.wait_for_timeout(50)
    assert amal.page.evaluate("() => window.sameDocument") is True
    assert plays >= 20
    public = httpx.get(f"{server}/matches/{match_id}").json()
    for page in (amal.page, badr.page):
        scores = page.locator("[data-testid=scores] .score-value").all_inner_texts()
        assert [int(s) for s in scores] == public["scores"]
        names = page.locator("[data-testid=scores] .score-names").all_inner_texts()
        assert names[0] == "you and Guest"
        assert names[1] == "easy bot 2 and easy bot 4"
