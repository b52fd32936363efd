"""The rated pool over HTTP: waiting, pairing into one table with both seats kept, asking
again, cancelling, and the refusals (unknown rule set, seated at a live table)."""

from __future__ import annotations

from typing import Any

from app.service import MatchService
from app.service.pool import pool_stream
from domain.pool import PoolPaired
from tests.app.api.conftest import Api
from tests.app.api.helpers import bearer


def _register(api: Api, name: str) -> str:
    response = api.client.post("/players", json={"name": name})
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def _ask(api: Api, token: str, ruleset: str = "classic") -> Any:
    return api.client.post("/pool", json={"ruleset": ruleset}, headers=bearer(token))


def test_two_players_asking_are_paired_into_one_table_with_both_seats_kept(
    api: Api, api_service: MatchService
) -> None:
    noor, amal = _register(api, "Noor"), _register(api, "Amal")
    # given Noor waits, and asking again gives the same answer
    first = _ask(api, noor)
    assert (first.status_code, first.json()) == (202, {"status": "waiting"})
    assert _ask(api, noor).json() == {"status": "waiting"}
    waiting = api.client.get("/pool/me", headers=bearer(noor)).json()
    assert waiting["status"] == "waiting" and waiting["ruleset"] == "classic"
    assert waiting["window"] == 100
    # when Amal asks
    paired = _ask(api, amal)
    # then both get the same table, on different seats
    assert paired.status_code == 201, paired.text
    match_id, amal_seat = paired.json()["match_id"], paired.json()["seat"]
    noor_sees = api.client.get("/pool/me", headers=bearer(noor)).json()
    assert noor_sees["status"] == "paired" and noor_sees["match_id"] == match_id
    assert {noor_sees["seat"], amal_seat} == {0, 1}
    again = _ask(api, noor)
    assert again.status_code == 201 and again.json() == {
        "match_id": match_id,
        "seat": noor_sees["seat"],
    }
    # and the table is made, its commitment published, both seats kept for the pair
    table = api.client.get(f"/matches/{match_id}").json()
    assert table["status"] == "waiting" and table["commitment"]
    stranger = api.client.post(f"/matches/{match_id}/seats/0", json={"name": "Omar"})
    assert (stranger.status_code, stranger.json()["error"]["code"]) == (403, "seat_reserved")
    # each takes their seat with their own client seed
    for token, seat, seed in (
        (noor, noor_sees["seat"], "noor-seed"),
        (amal, amal_seat, "amal-seed"),
    ):
        sat = api.client.post(
            f"/matches/{match_id}/seats/{seat}", json={"client_seed": seed}, headers=bearer(token)
        )
        assert sat.status_code == 201, sat.text
    assert api.client.get(f"/matches/{match_id}").json()["status"] == "playing"
    # and the pairing is recorded: who, when, at what window
    (record,) = [
        e
        for e in api_service.store.backend.side_recorder("pool").select_events(
            pool_stream("classic")
        )
        if b"pool_paired" in e.state
    ]
    assert b'"window":100' in record.state and match_id.encode() in record.state
    assert PoolPaired.__struct_config__.tag == "pool_paired"


def test_a_seated_player_or_an_unknown_rule_set_is_refused_and_nothing_is_recorded(
    api: Api, api_service: MatchService
) -> None:
    noor = _register(api, "Noor")
    unknown = _ask(api, noor, "chess")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (422, "unknown_ruleset")
    match_id = api.create()["match_id"]
    sat = api.client.post(f"/matches/{match_id}/seats/0", headers=bearer(noor))
    assert sat.status_code == 201
    seated = _ask(api, noor)
    assert (seated.status_code, seated.json()["error"]["code"]) == (409, "already_seated")
    stored = api_service.store.backend.side_recorder("pool").select_events(pool_stream("classic"))
    assert list(stored) == []
    assert api.client.get("/pool/me", headers=bearer(noor)).json()["status"] == "none"


def test_cancelling_and_moving_to_another_pool(api: Api) -> None:
    noor, amal = _register(api, "Noor"), _register(api, "Amal")
    assert _ask(api, noor, "classic").status_code == 202
    # one pool at a time: asking in another rule set moves the player there
    moved = _ask(api, noor, "egyptian")
    assert moved.status_code == 202
    assert api.client.get("/pool/me", headers=bearer(noor)).json()["ruleset"] == "egyptian"
    # Amal in classic is not paired with Noor, who left it
    assert _ask(api, amal, "classic").status_code == 202
    # cancelling
    left = api.client.delete("/pool/me", headers=bearer(noor))
    assert left.status_code == 200 and left.json()["status"] == "none"
    assert api.client.get("/pool/me", headers=bearer(noor)).json()["status"] == "none"
    assert api.client.get("/pool/me").status_code == 401
