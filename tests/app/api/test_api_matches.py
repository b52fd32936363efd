"""Creating matches, taking seats and the match lifecycle over HTTP (docs/api.md)."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.service import MatchService
from domain.fairness import commitment, secret_from_text_seed
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def test_a_new_two_seat_match_waits_for_its_seats(api: Api) -> None:
    created = api.create(ruleset="classic", seats=2)

    assert created["status"] == "waiting"
    assert created["open_seats"] == [0, 1]
    assert created["target"] == 101
    assert created["seq"] == 1
    table = api.client.get(f"/matches/{created['match_id']}").json()
    assert table["status"] == "waiting"
    assert table["names"] == [None, None]


def test_the_commitment_is_published_and_the_secret_is_not(api: Api) -> None:
    created = api.create(seed="commit-me")

    secret = secret_from_text_seed("commit-me")
    assert created["commitment"] == commitment(created["match_id"], secret)
    assert secret.hex() not in api.client.get(f"/matches/{created['match_id']}").text


def test_taking_the_last_seat_deals_round_one(api: Api) -> None:
    match_id = api.create(seats=2)["match_id"]
    api.sit(match_id, 0, "Amal")

    response = api.client.post(f"/matches/{match_id}/seats/1", json={"name": "Badr"})

    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "playing"
    assert body["seat"] == 1 and body["name"] == "Badr"
    view = api.view(match_id, body["token"])
    assert view["status"] == "playing"
    assert view["round"] == 1
    assert len(view["hand"]) == 4
    assert len(view["floor"]) == 4
    assert view["stock"] == 52 - 8 - 4


def test_a_taken_seat_is_a_conflict(api: Api) -> None:
    match_id = api.create(seats=2)["match_id"]
    api.sit(match_id, 0)

    response = api.client.post(f"/matches/{match_id}/seats/0", json={"name": "Other"})

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "seat_taken"


def test_a_bot_seat_cannot_be_taken(api: Api) -> None:
    match_id = api.create(seats=2, bots=[1])["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/1", json={"name": "Other"})

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "seat_taken"


@pytest.mark.parametrize("seat", [2, 7, 99999])
def test_a_seat_out_of_range_is_refused(api: Api, seat: int) -> None:
    match_id = api.create(seats=2)["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/{seat}", json={"name": "X"})

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_seat"


def test_a_table_of_bots_only_is_played_through_at_once(api: Api) -> None:
    created = api.create(seats=4, bots=[0, 1, 2, 3], seed="all-bots")

    assert created["status"] == "ended"
    replay = api.client.get(f"/matches/{created['match_id']}/replay")
    assert replay.status_code == 200
    lines = replay.text.splitlines()
    assert '"type":"match_ended"' in lines[-1]


def test_a_practice_match_is_played_to_the_end_by_one_person(api: Api) -> None:
    match_id, token = api.practice(seed="one-person")
    plays = 0
    view = api.view(match_id, token)
    while view["status"] == "playing":
        assert view["turn"] == 0  # the bot has always replied by the time the person plays
        response = api.play(match_id, token, view["hand"][0])
        assert response.status_code == 200, response.text
        view = response.json()["view"]
        plays += 1

    assert view["status"] == "ended"
    assert view["winner"] in (0, 1, None)
    assert plays >= 24  # at least one whole round of a 2-seat table (R5)
    final = api.client.get(f"/matches/{match_id}").json()
    assert final["status"] == "ended"
    assert final["seq"] == view["seq"]


def test_the_same_seed_deals_the_same_cards(api: Api) -> None:
    first, token_a = api.practice(seed="same")
    second, token_b = api.practice(seed="same")

    assert api.view(first, token_a)["hand"] == api.view(second, token_b)["hand"]
    assert api.view(first, token_a)["floor"] == api.view(second, token_b)["floor"]


def test_a_seed_is_refused_outside_test_mode(api_service: MatchService) -> None:
    settings = ApiSettings(support_token=SUPPORT_TOKEN, test_mode=False)
    with TestClient(create_app(api_service, settings=settings)) as client:
        response = client.post("/matches", json={"ruleset": "classic", "seats": 2, "seed": "x"})
        fine = client.post("/matches", json={"ruleset": "classic", "seats": 2})

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "seed_refused"
    assert fine.status_code == 201
    assert len(api_service.match_ids()) == 1


def test_every_rule_set_can_be_created_with_its_own_target(api: Api) -> None:
    targets = {}
    for name in ("classic", "egyptian", "lebanese", "yemeni", "jordanian"):
        targets[name] = api.create(ruleset=name, seats=2)["target"]

    assert targets == {
        "classic": 101,
        "egyptian": 121,
        "lebanese": 101,
        "yemeni": 101,
        "jordanian": 101,
    }
    assert api.create(ruleset="classic", seats=4, target=30)["target"] == 30


def test_support_sees_every_hand_but_not_the_secret_before_the_end(api: Api) -> None:
    match_id = api.create(seats=2, seed="support-view")["match_id"]
    tokens = [api.sit(match_id, 0), api.sit(match_id, 1)]

    view = api.support_view(match_id)

    assert view["hands"] == [api.view(match_id, t)["hand"] for t in tokens]
    assert view["seed"] is None
    assert view["stock_order"] is None
    assert secret_from_text_seed("support-view").hex() not in str(view)


def test_the_schema_is_openapi_3_1_with_a_browsable_page(client: TestClient[Litestar]) -> None:
    schema = client.get("/schema/openapi.json")
    page = client.get("/schema")

    assert schema.status_code == 200
    document = schema.json()
    assert document["openapi"].startswith("3.1")
    assert page.status_code == 200 and "<html" in page.text.lower()
    paths = document["paths"]
    for path in (
        "/matches",
        "/matches/{match_id}/seats/{seat}",
        "/matches/{match_id}/view",
        "/matches/{match_id}/preview",
        "/matches/{match_id}/plays",
        "/matches/{match_id}/events",
        "/matches/{match_id}/replay",
    ):
        assert path in paths, path
    play = paths["/matches/{match_id}/plays"]["post"]
    for status in ("401", "403", "404", "409", "422"):
        assert play["responses"][status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorBody"
        }
    assert "ErrorBody" in document["components"]["schemas"]
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_support_can_list_nothing_it_should_not(api: Api) -> None:
    # The support token is no seat: it cannot play or preview for anyone.
    match_id, _ = api.practice(seed="support-cannot-play")
    hand = api.support_view(match_id)["hands"][0]

    play = api.client.post(
        f"/matches/{match_id}/plays", json={"card": hand[0]}, headers=bearer(SUPPORT_TOKEN)
    )

    assert play.status_code == 403
    assert play.json()["error"]["code"] == "seat_only"
