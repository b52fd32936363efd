"""The lobby and /schema in a real browser: the ladder and a profile's rating chart after a
rated match; the API's documentation pages load nothing from another origin."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def rated_match(url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two registered players play a 2-seat match to 1 point over HTTP: (winner, loser)."""
    players = [
        httpx.post(f"{url}/players", json={"name": name}).json() for name in ("Noor", "Sami")
    ]
    match_id = httpx.post(
        f"{url}/matches", json={"ruleset": "classic", "seats": 2, "target": 1}
    ).json()["match_id"]
    for seat, player in enumerate(players):
        auth = {"Authorization": f"Bearer {player['token']}"}
        httpx.post(f"{url}/matches/{match_id}/seats/{seat}", headers=auth).raise_for_status()
    view = httpx.get(f"{url}/matches/{match_id}").json()
    while view["status"] == "playing":
        player = players[view["turn"]]
        auth = {"Authorization": f"Bearer {player['token']}"}
        own = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()
        played = httpx.post(
            f"{url}/matches/{match_id}/plays", headers=auth, json={"card": own["hand"][0]}
        )
        assert played.status_code == 200, played.text
        view = played.json()["view"]
    winner = view["winner"] if view["winner"] is not None else 0
    return players[winner], players[1 - winner]


def test_the_ladder_and_a_profile_with_its_rating_chart(new_page: Any, server: str) -> None:
    # given two registered players who played a rated match to the end
    winner, loser = rated_match(server)
    # when the lobby is opened
    lobby = new_page()
    lobby.goto("/")
    # then the ladder lists both, and a name opens the profile with a rating chart
    ladder = lobby.page.locator("#ladder")
    ladder.locator(f"a[href='#player={winner['player_id']}']").wait_for()
    assert ladder.locator(f"a[href='#player={loser['player_id']}']").count() == 1
    ladder.locator(f"a[href='#player={winner['player_id']}']").click()
    chart = lobby.page.locator("#profile [data-testid=rating-chart]")
    chart.wait_for()
    profile = httpx.get(f"{server}/players/{winner['player_id']}").json()
    text = lobby.page.locator("#profile-body").inner_text()
    assert f"Rating {round(profile['rating'])}" in text
    # the start (1500) and the rating after the one rated match
    assert chart.locator("circle").count() == 2


def test_the_schema_pages_load_nothing_from_elsewhere(new_page: Any, server: str) -> None:
    # given a browser that records every request and refuses any to another origin
    docs = new_page()
    elsewhere: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    docs.page.route("**/*", only_here)
    # when Swagger UI and Redoc are opened
    docs.goto("/schema")
    docs.page.locator(".opblock-summary-path >> text=/matches").first.wait_for()
    docs.goto("/schema/redoc")
    # (Redoc runs from the local copy; it then reads the document and draws what it can)
    docs.page.wait_for_function("() => typeof window.Redoc === 'object'")
    docs.page.wait_for_function(
        "() => document.getElementById('redoc-container').textContent.trim() !== ''"
    )
    # then both ran from this server, and nothing was asked of another origin
    assert elsewhere == []
