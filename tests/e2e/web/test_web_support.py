"""The support console in a real browser: a player reports a practice match from the replay
viewer ("the bot saw my hand"), an agent signs in with its token, finds the case, opens the
match's investigation page (every bot play re-derived and marked, a refused stale play with its
request id), answers the reporter and closes the case; the reporter sees only the answer. Report
text with markup stays text on the agent's page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.web.conftest import screenshot, wait_for
from tests.e2e.web.steps import add_agent

pytestmark = pytest.mark.e2e

HOSTILE = "<img src=x onerror=\"document.title='owned'\"> the bot knew my cards"


def test_an_agent_investigates_a_bot_complaint_through_the_console(
    served: tuple[str, Path], new_page: Any
) -> None:
    url, db = served
    # given a registered player at a practice table against a bot, with one refused stale play
    me = httpx.post(f"{url}/players", json={"name": "Amal"}).json()
    created = httpx.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2, "bots": [1]})
    match_id = created.json()["match_id"]
    auth = {"Authorization": f"Bearer {me['token']}"}
    assert httpx.post(f"{url}/matches/{match_id}/seats/0", headers=auth).status_code == 201
    view = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()
    if view["turn"] == 0:  # play once, so the bot has played a card in reply
        played = httpx.post(
            f"{url}/matches/{match_id}/plays", json={"card": view["hand"][0]}, headers=auth
        )
        assert played.status_code == 200, played.text
        view = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()
    stale = httpx.post(
        f"{url}/matches/{match_id}/plays",
        json={"card": view["hand"][0], "seq": 1},
        headers=auth,
    )
    assert stale.status_code == 409
    # when the player reports it from the replay viewer's Report button
    player = new_page()
    player.goto("/")
    player.page.evaluate(
        "([p]) => localStorage.setItem('basra.player', JSON.stringify(p))",
        [{"player_id": me["player_id"], "name": "Amal", "token": me["token"]}],
    )
    player.goto(f"/replay/{match_id}")
    player.page.click("[data-testid=report]")
    player.page.select_option("[data-testid=report-category]", "bot")
    player.page.fill("[data-testid=report-text]", HOSTILE)
    player.page.click("[data-testid=report-send]")
    result = player.page.locator("[data-testid=report-result]")
    wait_for(lambda: "c-" in result.inner_text(), "the case id")
    # and an agent signs in to the console with its token and opens the case
    token = add_agent(db, "nadia")
    agent = new_page()
    agent.goto("/support")
    agent.page.fill("[data-testid=token]", token)
    agent.page.click("[data-testid=sign-in-button]")
    agent.page.locator("[data-testid=case-link]").first.click()
    view_box = agent.page.locator("[data-testid=view]")
    wait_for(lambda: "the bot knew my cards" in view_box.inner_text(), "the report text")
    # then the report is shown as text, never as markup
    assert HOSTILE in view_box.inner_text()
    assert agent.page.locator("[data-testid=view] img").count() == 0
    assert agent.page.title() != "owned"
    # and the match page marks every bot play re-derived, and shows the refused stale play
    agent.page.click("[data-testid=case-match]")
    wait_for(lambda: "verified: ok" in view_box.inner_text(), "the investigation page")
    text = view_box.inner_text()
    assert "matches" in text  # a bot play re-derived from its seat's view
    assert "conflict" in text and stale.headers["x-request-id"] in text
    screenshot(agent.page, "support-investigation")
    # and the agent answers and closes the case
    cases = httpx.get(f"{url}/support/cases", headers={"Authorization": f"Bearer {token}"})
    case_id = cases.json()["cases"][0]["case_id"]
    answer = "Every bot play was re-derived from its own seat."
    answered = agent.page.evaluate(
        """async ([id, text]) => (await fetch(`/support/cases/${id}/answer`, {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({reason: text})})).status""",
        [case_id, answer],
    )
    assert answered == 200
    mine = httpx.get(f"{url}/players/me/reports", headers=auth).json()["reports"]
    assert [r["answer"] for r in mine] == [answer]
    # and the console's cookie is HttpOnly, SameSite=Strict and scoped to /support
    [cookie] = [c for c in agent.page.context.cookies() if c["name"] == "basra_support"]
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Strict", "/support")
    # and the player's own pages never reach a support route
    assert httpx.get(f"{url}/support/cases", headers=auth).status_code == 403
