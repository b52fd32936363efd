"""Results over HTTP (R27, docs/api.md "Results"): profiles, histories, rating charts and the
ladder; private tables only to the player themself and support; precise errors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def _register(api: Api, name: str) -> dict[str, Any]:
    response = api.client.post("/players", json={"name": name})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _play_match(api: Api, first: dict[str, Any], second: dict[str, Any], **table: Any) -> str:
    """A 2-seat match to target 1 between two players, played to the end through the API."""
    match_id = str(api.create(target=1, **table)["match_id"])
    for seat, player in enumerate((first, second)):
        response = api.client.post(
            f"/matches/{match_id}/seats/{seat}", headers=bearer(player["token"])
        )
        assert response.status_code == 201, response.text
    tokens = [first["token"], second["token"]]
    while True:
        view = api.view(match_id, tokens[0])
        if view["status"] != "playing":
            return match_id
        seat = view["turn"]
        hand = api.view(match_id, tokens[seat])["hand"]
        assert api.play(match_id, tokens[seat], hand[0]).status_code == 200


def test_profiles_histories_ratings_and_the_ladder_show_a_finished_match(api: Api) -> None:
    # given two players who play a match to the end
    amal, badr = _register(api, "Amal"), _register(api, "Badr")
    match_id = _play_match(api, amal, badr)
    winner = api.support_view(match_id)["winner"]
    won, lost = (amal, badr) if winner == 0 else (badr, amal)

    # when anyone reads their profiles
    w = api.client.get(f"/players/{won['player_id']}").json()
    lo = api.client.get(f"/players/{lost['player_id']}").json()

    # then 24 and 3 points, about 1662.3 and 1337.7, RD about 290.3, provisional
    assert set(w) == {
        "player_id", "name", "points", "wins", "draws", "losses", "rating", "rd",
        "volatility", "provisional", "rated_matches",
    }  # fmt: skip
    assert (w["points"], w["wins"], w["rated_matches"], w["provisional"]) == (24, 1, 1, True)
    assert (lo["points"], lo["losses"]) == (3, 1)
    assert round(w["rating"], 1) == 1662.3 and round(lo["rating"], 1) == 1337.7
    assert round(w["rd"], 1) == 290.3
    # and the history names the match, the opponent, the result and the ratings
    page = api.client.get(f"/players/{won['player_id']}/matches").json()
    (entry,) = page["matches"]
    assert entry["match_id"] == match_id and entry["result"] == "win"
    assert entry["points"] == 24 and entry["rated"] is True
    assert [o["player_id"] for o in entry["opponents"]] == [lost["player_id"]]
    assert entry["opponents"][0]["name"] == lost["name"]
    assert entry["rating_before"] == 1500 and entry["rating_after"] == w["rating"]
    # and the score is the match's totals as the store ended it, the winner's side ahead
    ended = api.support_view(match_id)
    assert entry["totals"] == list(ended["scores"])
    assert entry["totals"][winner] > entry["totals"][1 - winner]
    assert page["next"] is None
    # and the rating chart has one point, the ladder both players in order
    chart = api.client.get(f"/players/{won['player_id']}/ratings").json()
    assert [p["rating"] for p in chart["ratings"]] == [w["rating"]]
    ladder = api.client.get("/ladder").json()
    assert [(p["rank"], p["player_id"]) for p in ladder["players"]] == [
        (1, won["player_id"]),
        (2, lost["player_id"]),
    ]
    # and /players/me still answers the player
    me = api.client.get("/players/me", headers=bearer(won["token"]))
    assert me.status_code == 200 and me.json()["player_id"] == won["player_id"]


def test_a_private_table_is_listed_only_to_the_player_and_support(api: Api) -> None:
    amal, badr, other = _register(api, "Amal"), _register(api, "Badr"), _register(api, "Cala")
    public = _play_match(api, amal, badr)
    private = _play_match(api, amal, badr, private=True)
    path = f"/players/{amal['player_id']}/matches"

    def listed(headers: dict[str, str]) -> list[str]:
        response = api.client.get(path, headers=headers)
        assert response.status_code == 200, response.text
        return [m["match_id"] for m in response.json()["matches"]]

    assert listed({}) == [public]
    assert listed(bearer(other["token"])) == [public]
    assert listed(bearer(badr["token"])) == [public]
    assert listed(bearer(amal["token"])) == [private, public]
    assert listed(bearer(SUPPORT_TOKEN)) == [private, public]
    # the chart shows both ratings, the private one without its id to others
    chart = api.client.get(f"/players/{amal['player_id']}/ratings").json()
    assert [p["match_id"] for p in chart["ratings"]] == [public, None]
    mine = api.client.get(
        f"/players/{amal['player_id']}/ratings", headers=bearer(amal["token"])
    ).json()
    assert [p["match_id"] for p in mine["ratings"]] == [public, private]
    # the private match id is nowhere in what others read
    for url in (path, f"/players/{amal['player_id']}", "/ladder"):
        assert private not in api.client.get(url).text


def test_history_and_ladder_pages(api: Api) -> None:
    players = [_register(api, name) for name in ("A", "B", "C")]
    for a, b in ((0, 1), (1, 2), (2, 0)):
        _play_match(api, players[a], players[b])
    # the ladder one at a time: every player once, ranks 1..3
    seen: list[tuple[int, str]] = []
    cursor = None
    while True:
        params = {"limit": "1"} | ({"cursor": cursor} if cursor else {})
        page = api.client.get("/ladder", params=params).json()
        seen.extend((p["rank"], p["player_id"]) for p in page["players"])
        cursor = page["next"]
        if cursor is None:
            break
    assert [rank for rank, _ in seen] == [1, 2, 3]
    assert sorted(pid for _, pid in seen) == sorted(p["player_id"] for p in players)
    # a history one at a time: both of A's matches, the latest first
    path = f"/players/{players[0]['player_id']}/matches"
    first = api.client.get(path, params={"limit": "1"}).json()
    second = api.client.get(path, params={"limit": "1", "cursor": first["next"]}).json()
    assert second["next"] is None
    assert first["matches"][0]["ended"] >= second["matches"][0]["ended"]


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/players/p-0123456789abcdef0123456789abcdef", 404, "player_not_found"),
        ("/players/p-0123456789abcdef0123456789abcdef/matches", 404, "player_not_found"),
        ("/players/p-0123456789abcdef0123456789abcdef/ratings", 404, "player_not_found"),
        ("/players/Amal/ratings", 404, "not_a_player"),
        ("/players/seat-1", 404, "not_a_player"),
        ("/ladder?cursor=nonsense", 400, "invalid_cursor"),
        ("/ladder?cursor=WzAsIDEuNSwgInAtYSIsIDBd", 400, "invalid_cursor"),
        ("/ladder?limit=0", 400, "invalid_filter"),
        ("/ladder?limit=many", 400, "invalid_filter"),
    ],
)
def test_bad_input_gets_a_precise_error(api: Api, path: str, status: int, code: str) -> None:
    response = api.client.get(path)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_malformed_history_cursor_and_bad_tokens(api: Api) -> None:
    amal = _register(api, "Amal")
    path = f"/players/{amal['player_id']}/matches"
    response = api.client.get(path, params={"cursor": "!!"})
    assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid_cursor")
    forged = bearer("player_" + amal["token"][7:-2] + "xx")
    assert api.client.get(path, headers=forged).status_code == 401
    # a new player has a profile with a new player's numbers and is not on the ladder
    profile = api.client.get(f"/players/{amal['player_id']}").json()
    assert (profile["points"], profile["rating"], profile["rd"]) == (0, 1500, 350)
    assert profile["provisional"] is True and profile["rated_matches"] == 0
    assert api.client.get("/ladder").json() == {"players": [], "next": None}
