"""The support console in a real browser ends a suspended player's match as a forfeit of their
side (R29, R26): from the player's page, where the matches they are in now each have a forfeit
action, on a ``basra serve`` of this module's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.web.conftest import screenshot, wait_for
from tests.e2e.web.steps import add_agent

pytestmark = pytest.mark.e2e


def test_a_suspended_players_match_is_ended_from_their_page(
    served: tuple[str, Path], new_page: Any
) -> None:
    url, db = served
    # given Amal and Badr in a match in play, Amal suspended
    amal = httpx.post(f"{url}/players", json={"name": "Amal"}).json()
    badr = httpx.post(f"{url}/players", json={"name": "Badr"}).json()
    created = httpx.post(
        f"{url}/matches", json={"ruleset": "classic", "seats": 2, "turn_seconds": 600}
    )
    match_id = created.json()["match_id"]
    for seat, who in enumerate((amal, badr)):
        auth = {"Authorization": f"Bearer {who['token']}"}
        assert httpx.post(f"{url}/matches/{match_id}/seats/{seat}", headers=auth).status_code == 201
    token = add_agent(db, "lina")
    support = {"Authorization": f"Bearer {token}"}
    suspended = httpx.post(
        f"{url}/support/players/{amal['player_id']}/suspend",
        json={"reason": "abuse in chat"},
        headers=support,
    )
    assert suspended.status_code == 200
    # when the agent finds Amal and ends her match in play from her page, with a reason
    agent = new_page()
    agent.goto("/support")
    agent.page.fill("[data-testid=token]", token)
    agent.page.click("[data-testid=sign-in-button]")
    page = agent.page
    wait_for(lambda: page.locator("[data-testid=agent]").inner_text() == "lina", "sign-in")
    page.fill("[data-testid=search-text]", amal["player_id"])
    page.click("[data-testid=search]")
    page.locator("[data-testid=player-link]").first.click()
    view = page.locator("[data-testid=view]")
    wait_for(lambda: "suspended until lifted" in view.inner_text(), "Amal's page")
    assert page.locator("[data-testid=playing-link]").all_inner_texts() == [match_id]
    form = f"action-forfeit-{match_id}"
    page.fill(f"[data-testid={form}-reason]", "suspended: abuse in chat")
    page.click(f"[data-testid={form}-go]")
    # then the page lists no match in play for her any more, and the match ended as her leaving
    # would end it, by the agent
    wait_for(lambda: page.locator("[data-testid=playing-link]").count() == 0, "the forfeit", 15)
    assert page.locator("[data-testid=error]").inner_text() == ""
    ended = httpx.get(f"{url}/support/matches/{match_id}", headers=support).json()
    [last] = [e for e in ended["timeline"] if e["what"] == "match_ended"]
    assert (last["seat"], last["who"]) == (0, "support:lina")
    view_json = httpx.get(f"{url}/matches/{match_id}/view", headers=support).json()
    assert (view_json["status"], view_json["winner"]) == ("ended", 1)
    sanctions = httpx.get(f"{url}/support/players/{amal['player_id']}", headers=support).json()
    assert [s["type"] for s in sanctions["sanctions"]] == ["player_suspended", "side_forfeited"]
    assert "side_forfeited" in view.inner_text()  # the sanctions table on her page
    screenshot(page, "support-forfeit")
    # and a second forfeit of the ended match, from its page, is refused as one line
    page.fill("[data-testid=match-id]", match_id)
    page.click("[data-testid=open-match]")
    wait_for(lambda: "verif" in view.inner_text(), "the match page")
    page.fill("[data-testid=action-forfeit-player]", amal["player_id"])
    page.fill("[data-testid=action-forfeit-reason]", "again")
    page.click("[data-testid=action-forfeit-go]")
    error = page.locator("[data-testid=error]")
    wait_for(lambda: "match_ended" in error.inner_text(), "the refusal")
    again = httpx.get(f"{url}/support/players/{amal['player_id']}", headers=support).json()
    assert len(again["sanctions"]) == 2
