"""Bad input: each a 4xx with the one error shape and a precise code, the stream unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from app.api.settings import MAX_BODY_BYTES
from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import bearer

JSON = {"Content-Type": "application/json"}

PLAY_BODIES = [
    (b"{", 400, "malformed_json"),
    (b'{"card": "AC",}', 400, "malformed_json"),
    (b"not json at all", 400, "malformed_json"),
    (b"", 400, "missing_body"),
    (b"[]", 422, "wrong_type"),
    (b'"AC"', 422, "wrong_type"),
    (b"{}", 422, "missing_field"),
    (b'{"card": 7}', 422, "wrong_type"),
    (b'{"card": null}', 422, "wrong_type"),
    (b'{"card": "AC", "seq": "3"}', 422, "wrong_type"),
    (b'{"card": "AC", "seq": true}', 422, "wrong_type"),
    (b'{"card": "AC", "seq": -1}', 422, "invalid_value"),
    (b'{"card": "AC", "extra": 1}', 422, "unknown_field"),
    (b'{"card": ""}', 422, "invalid_value"),
    # a card text that is not a card (R1) cannot be read: a bad syntax, 400 (was 422)
    (b'{"card": "11C"}', 400, "unknown_card"),
    (b'{"card": "ZZ"}', 400, "unknown_card"),
    (b'{"card": "1D"}', 400, "unknown_card"),
    (b'{"card": "\\u0000"}', 400, "unknown_card"),
    (b'{"card": "AAAAAAAAAAAAAAAAAAAA"}', 422, "invalid_value"),
]


def _assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]


@pytest.mark.parametrize(("body", "status", "code"), PLAY_BODIES)
def test_a_bad_play_body_is_refused_and_appends_nothing(
    api: Api, api_service: MatchService, body: bytes, status: int, code: str
) -> None:
    match_id, token = api.practice(seed="bad-play")
    count = len(api_service.events(match_id))

    play = api.client.post(f"/matches/{match_id}/plays", content=body, headers=bearer(token) | JSON)

    _assert_error(play, status, code)
    assert len(api_service.events(match_id)) == count


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"ruleset": "poker", "seats": 2}, 422, "unknown_ruleset"),
        ({"ruleset": "classic", "seats": 3}, 422, "invalid_seat_count"),
        ({"ruleset": "classic", "seats": 2, "target": 0}, 422, "invalid_target"),
        ({"ruleset": "classic", "seats": 2, "target": 1001}, 422, "invalid_target"),
        ({"ruleset": "classic", "seats": 2, "bots": [2]}, 422, "invalid_seat"),
        ({"ruleset": "classic", "seats": 2, "bots": [0, 0]}, 422, "invalid_seat"),
        ({"ruleset": "classic", "seats": 2, "bots": [-1]}, 422, "invalid_value"),
        ({"ruleset": "classic", "seats": 2, "bot_kind": "clever"}, 422, "invalid_value"),
        ({"ruleset": "classic", "seats": "2"}, 422, "wrong_type"),
        ({"ruleset": "classic", "seats": 2.5}, 422, "wrong_type"),
        ({"ruleset": "classic"}, 422, "missing_field"),
        ({"ruleset": "classic", "seats": 2, "players": 2}, 422, "unknown_field"),
        ({"ruleset": "classic", "seats": 2, "seed": "x" * 300}, 422, "invalid_value"),
    ],
)
def test_a_bad_new_match_is_refused_and_creates_nothing(
    api: Api, api_service: MatchService, body: dict[str, Any], status: int, code: str
) -> None:
    response = api.client.post("/matches", json=body)

    _assert_error(response, status, code)
    assert api_service.match_ids() == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": ""}, "invalid_value"),
        ({"name": "x" * 65}, "invalid_value"),
        ({"name": 5}, "wrong_type"),
        ({}, "missing_field"),
        ({"name": "A", "token": "mine"}, "unknown_field"),
    ],
)
def test_a_bad_seat_request_is_refused(
    api: Api, api_service: MatchService, body: dict[str, Any], code: str
) -> None:
    match_id = api.create(seats=2)["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/0", json=body)

    _assert_error(response, 422, code)
    assert len(api_service.events(match_id)) == 1


def test_an_unknown_match_is_404_everywhere(api: Api) -> None:
    from tests.app.api.helpers import SUPPORT_TOKEN

    support = bearer(SUPPORT_TOKEN)
    responses = [
        api.client.get("/matches/m-nope"),
        api.client.post("/matches/m-nope/seats/0", json={"name": "A"}),
        api.client.get("/matches/m-nope/view", headers=support),
        api.client.get("/matches/m-nope/events", headers=support),
        api.client.get("/matches/m-nope/replay", headers=support),
        api.client.get("/matches/m-nope/replay"),
    ]

    for response in responses:
        _assert_error(response, 404, "match_not_found")


def test_an_oversized_body_is_413(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="big-body")
    count = len(api_service.events(match_id))
    body = b'{"card": "AC", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'

    response = api.client.post(
        f"/matches/{match_id}/plays", content=body, headers=bearer(token) | JSON
    )

    _assert_error(response, 413, "body_too_large")
    assert len(api_service.events(match_id)) == count


def test_unknown_routes_and_methods_use_the_error_shape(client: TestClient[Litestar]) -> None:
    _assert_error(client.get("/nowhere"), 404, "not_found")
    _assert_error(client.delete("/matches"), 405, "method_not_allowed")


@pytest.mark.parametrize("header", ["abc", "-1", "1.5", "9" * 20])
def test_a_bad_last_event_id_is_refused(api: Api, header: str) -> None:
    match_id, token = api.practice(seed="bad-last-id")

    response = api.client.get(
        f"/matches/{match_id}/events", headers=bearer(token) | {"Last-Event-ID": header}
    )

    _assert_error(response, 400, "invalid_header")


def test_a_last_event_id_past_the_end_is_refused(api: Api) -> None:
    match_id, token = api.practice(seed="past-end")

    response = api.client.get(
        f"/matches/{match_id}/events", headers=bearer(token) | {"Last-Event-ID": "9999"}
    )

    _assert_error(response, 422, "invalid_value")


def test_an_overlong_idempotency_key_is_refused(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="long-key")
    card = api.view(match_id, token)["hand"][0]
    count = len(api_service.events(match_id))

    response = api.play(match_id, token, card, headers={"Idempotency-Key": "k" * 500})

    assert 400 <= response.status_code < 500
    assert response.json()["error"]["code"] == "invalid_value"
    assert len(api_service.events(match_id)) == count


def test_no_bad_input_is_a_500(api: Api) -> None:
    match_id, token = api.practice(seed="fuzz")
    junk = [b"\xff\xfe", b"{" * 5000, b'{"card": {"a": [1, 2]}}', b"1e999", b'{"card":"AC"}' * 3]
    for body in junk:
        for route in ("plays", "preview"):
            response = api.client.post(
                f"/matches/{match_id}/{route}", content=body, headers=bearer(token) | JSON
            )
            assert 400 <= response.status_code < 500, (route, body[:20], response.text)
            assert "error" in response.json()
