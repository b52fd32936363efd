"""The table's layout in a real browser: Arabic turns the page right-to-left but never the
floor; a 360 px wide phone, played by keyboard alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.web.conftest import screenshot
from tests.e2e.web.steps import floor, hand, play_by_tapping, wait_turn_or_end

pytestmark = pytest.mark.e2e


def lefts(page: Any, where: str) -> list[float]:
    """The left edge of each card of a row, in the order of the row's elements."""
    return [
        float(x)
        for x in page.locator(f"[data-testid={where}] [data-card]").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().left)"
        )
    ]


def test_arabic_turns_the_page_but_not_the_floor(new_page: Any) -> None:
    # given a practice table in English, with cards on the floor
    table = new_page()
    table.goto("/")
    table.page.click("[data-testid=practice]")
    table.page.wait_for_selector("[data-testid=hand] [data-card]")
    while len(floor(table.page)) < 2:  # the bot's lead may have swept the floor (a 7D, a Jack)
        assert wait_turn_or_end(table.page) == "turn"
        play_by_tapping(table.page, hand(table.page)[0])
    english = floor(table.page)
    english_hand = hand(table.page)
    assert lefts(table.page, "floor") == sorted(lefts(table.page, "floor"))
    assert lefts(table.page, "hand") == sorted(lefts(table.page, "hand"))
    # when the language is switched to Arabic
    table.page.click("#lang")
    table.page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    # then the page reads right to left (the hand runs from the right) in Arabic
    assert table.page.evaluate("() => document.documentElement.lang") == "ar"
    assert "دورك" in table.page.locator("[data-testid=banner]").inner_text()
    assert lefts(table.page, "hand") == sorted(lefts(table.page, "hand"), reverse=True)
    assert hand(table.page) == english_hand
    # and the floor holds the same cards in the same order, left to right on the screen
    assert floor(table.page) == english
    assert lefts(table.page, "floor") == sorted(lefts(table.page, "floor"))
    screenshot(table.page, "table-arabic")
    # and the choice is kept for the next page
    table.page.reload()
    table.page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    table.page.click("#lang")
    table.page.wait_for_function("() => document.documentElement.dir === 'ltr'")


def test_a_phone_at_360_px_plays_by_keyboard_alone(new_page: Any) -> None:
    # given a practice table on a 360 px wide screen
    table = new_page(width=360, height=740)
    table.goto("/")
    table.page.click("[data-testid=practice]")
    table.page.wait_for_selector("[data-testid=hand] [data-card]")
    # then nothing is wider than the screen and every card of the hand is on it
    assert table.page.evaluate("() => document.documentElement.scrollWidth") <= 360
    for box in table.page.locator("[data-testid=hand] [data-card]").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().right)"
    ):
        assert box <= 360
    screenshot(table.page, "table-360")
    # when turns are played with the arrow keys and Enter only
    for _ in range(5):
        if wait_turn_or_end(table.page) != "turn":
            break
        before = hand(table.page)
        table.page.keyboard.press("ArrowRight")
        table.page.keyboard.press("ArrowRight")
        table.page.wait_for_function(
            "() => document.querySelector('#preview').textContent.includes(':')"
        )
        chosen = table.page.locator("[data-testid=hand] .selected").get_attribute("data-card")
        # then the second card is chosen (and previewed), and Enter plays it
        assert chosen == before[1 % len(before)]
        table.page.keyboard.press("Enter")
        table.page.wait_for_function(
            "card => !document.querySelector(`[data-testid=hand] [data-card='${card}']`)",
            arg=chosen,
        )
