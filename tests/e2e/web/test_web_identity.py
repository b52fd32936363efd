"""The lobby's identity, games, pool and ladder in a real browser: register and copy the token
shown once, link a second browser with a code and revoke it, two players pressing "Play rated
now" sit at the same table, and the ladder and a profile read in words."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def _register(page: Any, name: str) -> str:
    """Register ``name`` in the lobby; the token shown once."""
    page.goto("/")
    page.page.locator("#register input[name=name]").fill(name)
    page.page.locator("#register button").click()
    token = page.page.locator("[data-testid=token]")
    token.wait_for()
    return str(token.inner_text()).strip()


def test_register_copy_the_token_link_a_second_browser_and_revoke_it(
    new_page: Any, server: str
) -> None:
    first = new_page()
    first.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    token = _register(first, "Noor")
    # the token is shown once, with what it means, and Copy puts it on the clipboard
    assert token.startswith("player_")
    assert "only key" in first.page.locator("[data-testid=token-once]").inner_text()
    first.page.locator("[data-testid=copy-token]").click()
    assert first.page.evaluate("navigator.clipboard.readText()").strip() == token
    assert first.page.locator("[data-testid=download-token]").get_attribute("download")
    # a code from the first browser links a second one
    first.page.locator("[data-testid=link-device]").click()
    code = first.page.locator("[data-testid=link-code]").inner_text().strip()
    second = new_page()
    second.goto("/")
    second.page.locator("[data-testid=link-code-input]").fill(code)
    second.page.locator("#link-form button").click()
    second.page.locator("#identity [data-testid=devices] tr[data-device=d2]").wait_for()
    assert "Noor" in second.page.locator("#me").inner_text()
    second_token = second.page.evaluate("JSON.parse(localStorage.getItem('basra.player')).token")
    assert second_token != token

    # the first browser revokes it (after confirming), and its token stops working at once
    def accept(dialog: Any) -> None:
        dialog.accept()

    first.page.on("dialog", accept)
    first.goto("/")
    row = first.page.locator("#identity [data-testid=devices] tr[data-device=d2]")
    row.locator("[data-testid=revoke]").click()
    row.wait_for(state="detached")
    me = httpx.get(f"{server}/players/me", headers={"Authorization": f"Bearer {second_token}"})
    assert me.status_code == 401
    first.page.remove_listener("dialog", accept)
    # forgetting asks first, saying what is lost: dismissed, nothing is forgotten
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    first.page.on("dialog", dismiss)
    first.page.locator("#me button").click()
    assert asked and "lost" in asked[0]
    assert "Noor" in first.page.locator("#me").inner_text()


def test_two_players_pressing_play_rated_now_sit_at_the_same_table(new_page: Any) -> None:
    noor, amal = new_page(), new_page()
    _register(noor, "Rania")
    _register(amal, "Samir")
    for page in (noor, amal):
        page.page.locator("#pool-ruleset").select_option("yemeni")
        page.page.locator("[data-testid=play-rated]").click()
    for page in (noor, amal):
        page.page.wait_for_url("**/play/*")
    assert noor.page.url.rsplit("/", 1)[1] == amal.page.url.rsplit("/", 1)[1]
    match_id = noor.page.url.rsplit("/", 1)[1]
    # both sat with their own seeds: the table plays
    noor.page.locator("[data-testid=hand]").wait_for()
    table = httpx.get(f"{noor.url}/matches/{match_id}").json()
    assert table["status"] == "playing" and sorted(table["names"]) == ["Rania", "Samir"]


def _play_to_the_end(url: str, *players: dict[str, Any]) -> None:
    """The two registered players sit at a 2-seat table, one card is played and the second
    player leaves: a forfeit, a rated result (R27) in one play."""
    match_id = httpx.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2}).json()[
        "match_id"
    ]
    auths = [{"Authorization": f"Bearer {player['token']}"} for player in players]
    for seat, auth in enumerate(auths):
        httpx.post(f"{url}/matches/{match_id}/seats/{seat}", headers=auth).raise_for_status()
    turn = httpx.get(f"{url}/matches/{match_id}").json()["turn"]
    own = httpx.get(f"{url}/matches/{match_id}/view", headers=auths[turn]).json()
    played = httpx.post(
        f"{url}/matches/{match_id}/plays", headers=auths[turn], json={"card": own["hand"][0]}
    )
    assert played.status_code == 200, played.text
    httpx.post(f"{url}/matches/{match_id}/leave", headers=auths[1]).raise_for_status()


def test_the_ladder_has_headers_explains_provisional_and_tells_namesakes_apart(
    new_page: Any, server: str
) -> None:
    winner, loser = (
        httpx.post(f"{server}/players", json={"name": n}).json() for n in ("Noor", "Sami")
    )
    _play_to_the_end(server, winner, loser)
    # a third player named like the winner, rated too
    twin = httpx.post(f"{server}/players", json={"name": winner["name"]}).json()
    other = httpx.post(f"{server}/players", json={"name": "Karim"}).json()
    _play_to_the_end(server, twin, other)
    page = new_page()
    page.goto("/")
    ladder = page.page.locator("#ladder")
    ladder.locator(f"tr[data-player='{twin['player_id']}']").wait_for()
    headers = ladder.locator("th").all_inner_texts()
    assert headers == ["Rank", "Name", "Rating", "Games", "Last played"]
    assert "provisional" in ladder.inner_text() and "rating may still move" in ladder.inner_text()
    for p in (winner, twin):
        cell = ladder.locator(f"tr[data-player='{p['player_id']}'] td").nth(1).inner_text()
        assert cell == f"{p['name']} · {p['player_id'][-4:]}"
    assert (
        "·" not in ladder.locator(f"tr[data-player='{loser['player_id']}'] td").nth(1).inner_text()
    )
    # a profile's history: date, rule set, opponent with a link, the score, result, reason, points
    # and rating change
    ladder.locator(f"a[href='#player={winner['player_id']}']").click()
    history = page.page.locator("#profile [data-testid=history]")
    history.locator("tr[data-match]").first.wait_for()
    assert history.locator("th").all_inner_texts() == [
        "Date",
        "Rule set",
        "Opponent(s)",
        "Score",
        "Result",
        "Reason",
        "Points",
        "Rating",
    ]
    cells = history.locator("tr[data-match] td").all_inner_texts()
    assert cells[1] == "classic" and cells[2] == loser["name"] and cells[4] == "win"
    assert cells[5] == "a player left (forfeit)" and cells[6] == "24" and cells[7].startswith("+")
    (result,) = httpx.get(f"{server}/players/{winner['player_id']}/matches").json()["matches"]
    side = result["seat"] % 2  # R2: the winner's side first
    assert cells[3] == f"{result['totals'][side]}–{result['totals'][1 - side]}"
    assert history.locator(f"a[href='#player={loser['player_id']}']").count() == 1


def test_your_games_show_whose_turn_the_time_left_and_the_opponent(
    new_page: Any, server: str
) -> None:
    # given a registered player seated at a timed table against a bot, on turn
    page = new_page()
    _register(page, "Huda")
    token = page.page.evaluate("JSON.parse(localStorage.getItem('basra.player')).token")
    auth = {"Authorization": f"Bearer {token}"}
    created = httpx.post(
        f"{server}/matches",
        json={"ruleset": "classic", "seats": 2, "bots": [1], "turn_seconds": 300},
    ).json()
    match_id = created["match_id"]
    httpx.post(f"{server}/matches/{match_id}/seats/0", headers=auth).raise_for_status()
    (listed,) = httpx.get(f"{server}/players/me/matches", headers=auth).json()["matches"]
    assert listed["your_turn"] is True and listed["deadline"] is not None
    # when the lobby opens
    page.goto("/")
    row = page.page.locator(f"#games tr[data-match='{match_id}']")
    row.wait_for()
    # then the row says it is the player's turn, the opponent, and the time left from the
    # recorded deadline (300 s: 4:5x or 5:00), and the page title is marked
    assert row.locator("td.state").inner_text() == "Your turn"
    assert row.locator("td.opponents").inner_text() == listed["names"][1]
    left = row.locator("td.time-left").inner_text()
    assert left.endswith(" left") and left[:-5] in {"5:00", *(f"4:{s:02d}" for s in range(40, 60))}
    assert row.locator("td.time-left").get_attribute("data-deadline") == listed["deadline"]
    page.page.wait_for_function("document.title.includes('Your turn')")
    assert page.page.title().startswith("(1) Your turn")
