"""Players: registering, tokens, names, seats by player token, and the player's match list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.api.edges.auth import redeem_ticket
from app.service import MatchService
from app.service.players import PlayerService
from tests.app.api.conftest import Api
from tests.app.api.helpers import bearer


def _register(api: Api, name: str = "Amal") -> dict[str, Any]:
    response = api.client.post("/players", json={"name": name})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _sit_as(api: Api, match_id: str, seat: int, token: str) -> dict[str, Any]:
    response = api.client.post(f"/matches/{match_id}/seats/{seat}", headers=bearer(token))
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_a_registered_player_reads_themselves_and_the_token_says_what_it_is(api: Api) -> None:
    player = _register(api, "  Amal ")

    me = api.client.get("/players/me", headers=bearer(player["token"]))

    assert player["token"].startswith("player_") and player["player_id"].startswith("p-")
    assert me.status_code == 200
    assert me.json() == {"player_id": player["player_id"], "name": "Amal", "name_erased": False}


def test_a_rotated_token_is_refused_at_once_also_by_another_service(
    api: Api, api_service: MatchService
) -> None:
    player = _register(api)

    rotated = api.client.post("/players/me/token", headers=bearer(player["token"]))

    assert rotated.status_code == 200
    new_token = rotated.json()["token"]
    old = api.client.get("/players/me", headers=bearer(player["token"]))
    assert old.status_code == 401 and old.json()["error"]["code"] == "unknown_token"
    assert api.client.get("/players/me", headers=bearer(new_token)).status_code == 200
    # A second process on the same file reads the stream, not a copy: the rotation holds there.
    other = PlayerService(api_service.store.reopen())
    state = other.load(player["player_id"])
    assert state is not None and state.version == 2


@pytest.mark.parametrize(
    "name", ["", " ", "x" * 33, "Amal\u202e", "line\nbreak", "easy bot", "Easy BOT"]
)
def test_a_name_out_of_bounds_is_refused_and_nothing_is_stored(api: Api, name: str) -> None:
    response = api.client.post("/players", json={"name": name})

    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] in ("invalid_name", "invalid_value")
    assert not api.client.app.state.runtime.players.streams.recorder.select_events("p-0")


POSING_OR_HIDDEN = [
    "easy bot\u3164",  # Hangul filler
    "\u115f",  # Hangul choseong filler
    "\u2800",  # Braille pattern blank
    "\ufe0f",  # variation selector-16
    "a\u034fb",  # combining grapheme joiner
    "easy \u0299\u1d0f\u1d1b",  # small capitals
    "\uff45\uff41\uff53\uff59 bot",  # fullwidth
    "deleted player",
    "Deleted Pl\u0430yer",  # Cyrillic a
]


@pytest.mark.parametrize("name", POSING_OR_HIDDEN)
def test_a_name_that_hides_or_poses_is_refused_to_a_new_player(api: Api, name: str) -> None:
    response = api.client.post("/players", json={"name": name})

    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_name"
    assert not api.client.app.state.runtime.players.streams.recorder.select_events("p-0")


@pytest.mark.parametrize("name", POSING_OR_HIDDEN)
def test_a_rename_that_hides_or_poses_is_refused_and_the_name_stays(api: Api, name: str) -> None:
    # given a registered player named Amal
    player = _register(api)

    # when they ask to be renamed to a name that hides characters or poses
    renamed = api.client.patch("/players/me", json={"name": name}, headers=bearer(player["token"]))

    # then it is refused, and they are still Amal
    assert renamed.status_code == 422, renamed.text
    assert renamed.json()["error"]["code"] == "invalid_name"
    me = api.client.get("/players/me", headers=bearer(player["token"])).json()
    assert me["name"] == "Amal"


def test_a_player_whose_name_is_erased_still_takes_a_seat(api: Api) -> None:
    # given a player who erased their name
    player = _register(api)
    erased = api.client.delete("/players/me/name", headers=bearer(player["token"]))
    assert erased.json()["name"] == "deleted player"
    match_id = api.create(bots=[1], seed="erased-sits")["match_id"]

    # when they sit down with their token, then the seat is theirs, under the placeholder
    seat = _sit_as(api, match_id, 0, player["token"])
    assert seat["name"] == "deleted player"
    assert api.client.get(f"/matches/{match_id}").json()["names"] == ["deleted player", "easy bot"]


def test_a_player_token_in_a_player_route_is_needed(api: Api) -> None:
    _, seat_token = api.practice(seed="players-need")

    for headers, code in (({}, "missing_token"), (bearer(seat_token), "unknown_token")):
        response = api.client.get("/players/me", headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == code


def test_a_lost_seat_token_is_replaced_by_the_player_token_on_every_seat_route(
    api: Api,
) -> None:
    player = _register(api)
    created = api.create(bots=[1], seed="player-routes")
    match_id = created["match_id"]
    taken = _sit_as(api, match_id, 0, player["token"])
    token = player["token"]
    assert taken["token"].startswith("seat_") and taken["name"] == "Amal"

    view = api.client.get(f"/matches/{match_id}/view", headers=bearer(token))
    assert view.status_code == 200, view.text
    card = view.json()["hand"][0]
    preview = api.client.post(
        f"/matches/{match_id}/preview", json={"card": card}, headers=bearer(token)
    )
    assert preview.status_code == 200, preview.text
    play = api.client.post(f"/matches/{match_id}/plays", json={"card": card}, headers=bearer(token))
    assert play.status_code == 200, play.text
    leave = api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))
    assert leave.status_code == 200, leave.text
    # The feed ends with match_ended, so it is read whole after the leave.
    events = api.client.get(f"/matches/{match_id}/events", headers=bearer(token))
    assert events.status_code == 200, events.text
    assert "match_ended" in events.text
    # What the player did is recorded as the player acting on their seat.
    stream = api.client.app.state.runtime.service.events(match_id)
    causes = {r.caused_by for r in stream}
    assert f"seat:0/player:{player['player_id']}" in causes


def test_a_player_token_is_refused_on_a_match_where_the_player_holds_no_seat(api: Api) -> None:
    player = _register(api)
    match_id, _ = api.practice(seed="not-theirs")

    response = api.client.get(f"/matches/{match_id}/view", headers=bearer(player["token"]))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "wrong_match"


def test_one_player_cannot_hold_two_seats_of_one_match(api: Api) -> None:
    player = _register(api)
    match_id = api.create(seats=4, seed="two-seats")["match_id"]
    _sit_as(api, match_id, 0, player["token"])
    before = api.client.app.state.runtime.service.store.last_seq(match_id)

    second = api.client.post(f"/matches/{match_id}/seats/1", headers=bearer(player["token"]))

    assert second.status_code == 409
    assert second.json()["error"]["code"] == "player_seated"
    assert api.client.app.state.runtime.service.store.last_seq(match_id) == before


def test_a_rename_and_an_erased_name_show_in_views_and_the_export(api: Api) -> None:
    player = _register(api, "Amal")
    created = api.create(bots=[1], seed="rename")
    match_id = created["match_id"]
    _sit_as(api, match_id, 0, player["token"])
    token = player["token"]

    renamed = api.client.patch("/players/me", json={"name": "Noor"}, headers=bearer(token))
    assert renamed.status_code == 200
    assert api.client.get(f"/matches/{match_id}").json()["names"][0] == "Noor"

    erased = api.client.delete("/players/me/name", headers=bearer(token))
    assert erased.status_code == 200 and erased.json()["name"] == "deleted player"
    table = api.client.get(f"/matches/{match_id}").json()
    view = api.client.get(f"/matches/{match_id}/view", headers=bearer(token)).json()
    assert table["names"][0] == view["names"][0] == "deleted player"
    export = api.client.get(f"/matches/{match_id}/replay", headers=bearer(token)).text
    assert "Noor" not in export and "Amal" not in export
    header = json.loads(export.splitlines()[0])
    assert header["players"][0] == "deleted player"
    again = api.client.delete("/players/me/name", headers=bearer(token))
    assert again.status_code == 409 and again.json()["error"]["code"] == "name_erased"


def test_the_match_list_is_newest_first_with_seat_status_and_turn(api: Api) -> None:
    player = _register(api)
    first = api.create(bots=[1], seed="list-1")["match_id"]
    _sit_as(api, first, 0, player["token"])
    second = api.create(seats=2, seed="list-2")["match_id"]
    _sit_as(api, second, 1, player["token"])

    listed = api.client.get("/players/me/matches", headers=bearer(player["token"]))

    assert listed.status_code == 200, listed.text
    matches = listed.json()["matches"]
    assert [m["match_id"] for m in matches] == [second, first]
    assert [m["seat"] for m in matches] == [1, 0]
    assert matches[0]["status"] == "waiting" and matches[0]["your_turn"] is False
    assert matches[1]["status"] == "playing"
    limited = api.client.get("/players/me/matches?limit=1", headers=bearer(player["token"]))
    assert [m["match_id"] for m in limited.json()["matches"]] == [second]


def test_a_ticket_asked_for_with_a_player_token_speaks_for_the_player_on_their_seat(
    api: Api,
) -> None:
    # given a player seated at a match by their player token, and a ticket asked for with it
    player = _register(api)
    match_id = api.create(bots=[1], seed="player-ticket")["match_id"]
    _sit_as(api, match_id, 0, player["token"])
    issued = api.client.post(f"/matches/{match_id}/tickets", headers=bearer(player["token"]))
    assert issued.status_code == 201, issued.text
    ticket = issued.json()["ticket"]
    runtime = api.client.app.state.runtime

    # when the ticket is redeemed for the feed
    with api.client.portal() as portal:
        who = portal.call(redeem_ticket, runtime, ticket, match_id, None)

    # then it is the player on the seat they hold, and what it causes says so
    assert (who.seat, who.player_id, who.is_support) == (0, player["player_id"], False)
    assert who.caused_by == f"seat:0/player:{player['player_id']}"


def test_a_ticket_asked_for_with_a_seat_token_keeps_the_seat_tokens_id(api: Api) -> None:
    # given a name-only seat and a ticket asked for with its seat token
    match_id = api.create(bots=[1], seed="seat-ticket")["match_id"]
    token = api.sit(match_id, 0)
    issued = api.client.post(f"/matches/{match_id}/tickets", headers=bearer(token))
    runtime = api.client.app.state.runtime

    # when it is redeemed
    with api.client.portal() as portal:
        who = portal.call(redeem_ticket, runtime, issued.json()["ticket"], match_id, 0)

    # then it causes what the seat token would
    assert who.caused_by == f"seat:0/token:{token.split('.')[2]}"
