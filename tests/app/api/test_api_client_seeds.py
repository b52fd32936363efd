"""Client seeds through the API: given when a seat is taken, shown in every view and the replay
header, in the deal; bad seeds refused with nothing stored."""

from __future__ import annotations

import json

from litestar import Litestar
from litestar.testing import TestClient

from app.service import MatchService
from domain.fairness import deal_key, secret_from_text_seed, shuffled_deck
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def _sit(client: TestClient[Litestar], match_id: str, seat: int, body: object) -> object:
    return client.post(f"/matches/{match_id}/seats/{seat}", json=body)


def test_each_seats_seed_is_shown_and_enters_the_deal(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given a 2-seat table of people created from a test seed
    match_id = api.create(seed="seeds-api")["match_id"]
    # when each seat is taken with its own client seed
    first = _sit(client, match_id, 0, {"name": "amal", "client_seed": "amal's dice"})
    second = _sit(client, match_id, 1, {"name": "badr", "client_seed": "بدر"})
    assert first.status_code == second.status_code == 201  # type: ignore[attr-defined]
    token = second.json()["token"]  # type: ignore[attr-defined]
    # then every view shows both seeds
    seeds = ["amal's dice", "بدر"]
    assert api.view(match_id, token)["client_seeds"] == seeds
    assert client.get(f"/matches/{match_id}").json()["client_seeds"] == seeds
    assert api.support_view(match_id)["client_seeds"] == seeds
    # and the deal is the one the secret and both seeds make
    support = client.get(f"/matches/{match_id}/replay", headers=bearer(SUPPORT_TOKEN))
    lines = [json.loads(line) for line in support.text.splitlines()]
    assert lines[0]["client_seeds"] == seeds
    deck = shuffled_deck(deal_key(secret_from_text_seed("seeds-api"), seeds), 1)
    dealt = next(line for line in lines if line.get("type") == "cards_dealt")
    dealer = next(line["dealer"] for line in lines if line.get("type") == "round_started")
    assert dealt["hands"][1 - dealer][0] == deck[0]


def test_bad_seeds_are_refused_and_nothing_is_stored(
    api: Api, client: TestClient[Litestar], api_service: MatchService
) -> None:
    # given a waiting table
    match_id = api.create(seed="seeds-bad")["match_id"]
    before = api_service.store.last_seq(match_id)
    cases = [
        ({"name": "amal", "client_seed": "é" * 33}, 422, "invalid_client_seed"),
        ({"name": "amal", "client_seed": "x" * 65}, 422, "invalid_value"),
        ({"name": "amal", "client_seed": 7}, 422, "wrong_type"),
        ({"name": "amal", "client_seed": None}, 422, "wrong_type"),
    ]
    # when a seat is asked for with each bad seed, then each is refused precisely
    for body, status, code in cases:
        response = _sit(client, match_id, 0, body)
        got = (response.status_code, response.json()["error"]["code"])  # type: ignore[attr-defined]
        assert got == (status, code), body
    # and nothing was stored
    assert api_service.store.last_seq(match_id) == before


def test_a_seed_after_the_first_deal_is_refused(api: Api, client: TestClient[Litestar]) -> None:
    # given a practice table already dealt (its one person seated, bots at the others)
    match_id, _ = api.practice(seed="seeds-late")
    seq = client.get(f"/matches/{match_id}").json()["seq"]
    # when another seed is offered by taking a seat
    response = _sit(client, match_id, 1, {"name": "late", "client_seed": "too late"})
    # then it is refused (the seats are all taken: every seed was fixed before the deal)
    assert response.status_code == 409  # type: ignore[attr-defined]
    assert client.get(f"/matches/{match_id}").json()["seq"] == seq
