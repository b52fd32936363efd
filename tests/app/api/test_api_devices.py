"""Devices: linking another browser with a one-use code, listing, revoking, rotating.

Every refusal of a code is the same 401 ``invalid_link_code``; a revoked device is refused at
once by every process on the store, and so are the tickets it asked for.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.service import MatchService
from app.service.players import PlayerService
from domain.links import CODE_ALPHABET, CODE_LENGTH, MAX_MISSES
from domain.players import PlayerDeviceLinked, PlayerDeviceRevoked, PlayerTokenRotated
from tests.app.api.conftest import Api
from tests.app.api.helpers import HttpSteps, bearer, serving


def _register(api: Api, name: str = "Noor") -> dict[str, Any]:
    response = api.client.post("/players", json={"name": name})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _code(api: Api, token: str) -> str:
    response = api.client.post("/players/me/links", headers=bearer(token))
    assert response.status_code == 201, response.text
    return str(response.json()["code"])


def _link(api: Api, code: str) -> dict[str, Any]:
    response = api.client.post("/players/links", json={"code": code})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _refused_code(api: Api, code: str) -> None:
    response = api.client.post("/players/links", json={"code": code})
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "invalid_link_code"


def _devices(api: Api, token: str) -> list[dict[str, Any]]:
    response = api.client.get("/players/me/devices", headers=bearer(token))
    assert response.status_code == 200, response.text
    return list(response.json()["devices"])


def test_a_code_links_a_second_device_with_a_token_of_its_own(api: Api) -> None:
    player = _register(api)
    # given a code asked for by the first device
    asked = api.client.post("/players/me/links", headers=bearer(player["token"]))
    assert asked.status_code == 201
    code = asked.json()["code"]
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    assert asked.json()["expires"].endswith("Z")
    # when another browser spends it (typed in lower case, with a dash)
    linked = _link(api, f"{code[:4].lower()}-{code[4:].lower()}")
    # then it is the same player with another token, and both tokens work
    assert linked["player_id"] == player["player_id"] and linked["token"] != player["token"]
    for token in (player["token"], linked["token"]):
        me = api.client.get("/players/me", headers=bearer(token))
        assert me.status_code == 200 and me.json()["player_id"] == player["player_id"]
    # and each device lists both, itself marked, with no token or hash in sight
    first, second = _devices(api, player["token"]), _devices(api, linked["token"])
    assert [d["device_id"] for d in first] == ["d1", "d2"] == [d["device_id"] for d in second]
    assert [d["this_device"] for d in first] == [True, False]
    assert [d["this_device"] for d in second] == [False, True]
    assert all(d["last_used"] is not None and d["made"] for d in first)
    listed = api.client.get("/players/me/devices", headers=bearer(player["token"])).text
    assert "hash" not in listed and player["token"] not in listed and linked["token"] not in listed


def test_a_spent_or_wrong_code_gets_the_same_refusal_and_nothing_is_linked(
    api: Api, api_service: MatchService
) -> None:
    player = _register(api)
    code = _code(api, player["token"])
    _link(api, code)
    # when the code is spent again, or a wrong or malformed code is sent
    _refused_code(api, code)
    _refused_code(api, "ABCD2345" if code != "ABCD2345" else "ABCD2346")
    _refused_code(api, "not a code")
    # then the stream holds one linked device only
    state = PlayerService(api_service.store).load(player["player_id"])
    assert state is not None and [d.device_id for d in state.devices] == ["d1", "d2"]


def test_a_revoked_device_is_refused_at_once_by_every_process_with_its_tickets(
    api: Api, api_db: Path, api_settings: ApiSettings
) -> None:
    player = _register(api)
    second = _link(api, _code(api, player["token"]))
    match_id = api.create(bots=[1], seed="revoked-device")["match_id"]
    seated = api.client.post(f"/matches/{match_id}/seats/0", headers=bearer(second["token"]))
    assert seated.status_code == 201, seated.text
    ticket = api.client.post(f"/matches/{match_id}/tickets", headers=bearer(second["token"]))
    assert ticket.status_code == 201, ticket.text
    other = MatchService.open(api_db)  # another process on the same file
    try:
        with serving(create_app(other, settings=api_settings)) as server, httpx.Client() as http:
            # given the second device works through the other process too
            me = http.get(f"{server.url}/players/me", headers=bearer(second["token"]))
            assert me.status_code == 200
            # when the first device revokes it
            revoked = api.client.delete("/players/me/devices/d2", headers=bearer(player["token"]))
            assert revoked.status_code == 200, revoked.text
            assert [d["device_id"] for d in revoked.json()["devices"]] == ["d1"]
            # then both processes refuse its token, and its ticket dies with it
            again = http.get(f"{server.url}/players/me", headers=bearer(second["token"]))
            assert again.status_code == 401
            here = api.client.get("/players/me", headers=bearer(second["token"]))
            assert here.status_code == 401
            steps = HttpSteps(http, server.url)
            with steps.http.stream(
                "GET",
                f"{server.url}/matches/{match_id}/events",
                params={"ticket": ticket.json()["ticket"]},
            ) as feed:
                feed.read()
                assert feed.status_code == 401
            # while the first device still works
            assert http.get(f"{server.url}/players/me", headers=bearer(player["token"])).is_success
    finally:
        other.close()


def test_a_device_cannot_revoke_itself_nor_a_device_it_does_not_have(api: Api) -> None:
    player = _register(api)
    itself = api.client.delete("/players/me/devices/d1", headers=bearer(player["token"]))
    missing = api.client.delete("/players/me/devices/d9", headers=bearer(player["token"]))
    assert (itself.status_code, itself.json()["error"]["code"]) == (409, "own_device")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "unknown_device")
    assert api.client.get("/players/me", headers=bearer(player["token"])).status_code == 200


def test_rotation_revokes_every_other_device_and_every_change_is_in_the_stream(
    api: Api, api_service: MatchService
) -> None:
    player = _register(api)
    second = _link(api, _code(api, player["token"]))
    third = _link(api, _code(api, player["token"]))
    revoked = api.client.delete("/players/me/devices/d3", headers=bearer(second["token"]))
    assert revoked.status_code == 200
    # when the second device rotates its token
    rotated = api.client.post("/players/me/token", headers=bearer(second["token"]))
    assert rotated.status_code == 200
    # then only the new token works
    for token in (player["token"], second["token"], third["token"]):
        assert api.client.get("/players/me", headers=bearer(token)).status_code == 401
    assert [d["device_id"] for d in _devices(api, rotated.json()["token"])] == ["d2"]
    # and the stream says what happened, in order
    events = PlayerService(api_service.store).streams.read(player["player_id"])
    kinds = [type(e) for e in events[1:]]
    assert kinds == [
        PlayerDeviceLinked,
        PlayerDeviceLinked,
        PlayerDeviceRevoked,
        PlayerTokenRotated,
    ]


def test_one_players_devices_are_never_shown_to_another(api: Api) -> None:
    noor, amal = _register(api, "Noor"), _register(api, "Amal")
    _link(api, _code(api, noor["token"]))
    listed = api.client.get("/players/me/devices", headers=bearer(amal["token"]))
    assert listed.json()["player_id"] == amal["player_id"]
    assert [d["device_id"] for d in listed.json()["devices"]] == ["d1"]
    # and Amal cannot revoke Noor's second device: it is not hers
    refused = api.client.delete("/players/me/devices/d2", headers=bearer(amal["token"]))
    assert refused.status_code == 404
    assert len(_devices(api, noor["token"])) == 2


def test_wrong_codes_pause_linking_for_the_player_they_could_hit(api: Api) -> None:
    player = _register(api)
    code = _code(api, player["token"])
    wrong = "".join("2" if c != "2" else "3" for c in code)
    # when MAX_MISSES wrong codes are sent while the player holds a live code
    for _ in range(MAX_MISSES):
        _refused_code(api, wrong)
    # then even the right code is refused, the same way, and no new code is given this hour
    _refused_code(api, code)
    paused = api.client.post("/players/me/links", headers=bearer(player["token"]))
    assert (paused.status_code, paused.json()["error"]["code"]) == (403, "linking_paused")
    assert len(_devices(api, player["token"])) == 1


def test_a_code_is_never_logged(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    player = _register(api)
    with caplog.at_level(logging.DEBUG):
        code = _code(api, player["token"])
        _link(api, code)
        _refused_code(api, code)
    assert caplog.records and code not in caplog.text
