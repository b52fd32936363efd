"""The lobby's "your games" list (``GET /players/me/matches``) equals the player's matches as
the store holds them: every match where the player holds a seat, with its status and seat."""

from __future__ import annotations

from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import bearer


def test_the_games_list_equals_the_players_matches_in_the_store(
    api: Api, api_service: MatchService
) -> None:
    noor = api.client.post("/players", json={"name": "Noor"}).json()
    auth = bearer(noor["token"])
    # given a table in play (against a bot), one waiting, one ended, and one of somebody else
    playing = api.create(bots=[1], seed="games-playing")["match_id"]
    waiting = api.create()["match_id"]
    ended = api.create(bots=[1], seed="games-ended")["match_id"]
    for match_id in (playing, waiting, ended):
        sat = api.client.post(f"/matches/{match_id}/seats/0", headers=auth)
        assert sat.status_code == 201, sat.text
    assert api.client.post(f"/matches/{ended}/leave", headers=auth).status_code == 200
    api.sit(api.create()["match_id"], 0, "Omar")
    # when the lobby asks for the list
    listed = api.client.get("/players/me/matches?limit=50", headers=auth).json()["matches"]
    # then it is exactly the player's matches as the store holds them
    expected = set()
    for match_id in api_service.match_ids():
        state = api_service.load(match_id)
        if noor["player_id"] in state.player_ids:
            seat = state.player_ids.index(noor["player_id"])
            expected.add((match_id, state.status, seat))
    assert {(m["match_id"], m["status"], m["seat"]) for m in listed} == expected
    assert {s for _, s, _ in expected} == {"playing", "waiting", "ended"}
    # and each match in play says whose turn it is and when that turn runs out, as recorded
    for match in listed:
        state = api_service.load(match["match_id"])
        assert match["turn"] == state.turn
        assert match["deadline"] == (state.deadline if state.status == "playing" else None)
    in_play = next(m for m in listed if m["match_id"] == playing)
    assert in_play["deadline"] is not None, in_play
    assert in_play["your_turn"] == (in_play["turn"] == in_play["seat"])
