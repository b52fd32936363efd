"""Small faults of the API: each a precise 4xx in the one shape, and the stream unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer

JSON = {"Content-Type": "application/json"}

DEEP = b"[" * 1000 + b"]" * 1000
"""Well-formed JSON under 2 KB, nested deeper than a recursive decoder can go."""


def _assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code, response.text
    assert response.json()["error"]["message"]


@pytest.mark.parametrize("body", [DEEP, b'{"card": ' + DEEP + b"}", b"{" * 3000 + b"}" * 3000])
def test_deeply_nested_json_is_malformed_on_every_body_route(
    api: Api, api_service: MatchService, body: bytes
) -> None:
    match_id, token = api.practice(seed="deep")
    waiting = api.create()["match_id"]
    before = {m: len(api_service.events(m)) for m in (match_id, waiting)}

    responses = [
        api.client.post("/matches", content=body, headers=JSON),
        api.client.post(f"/matches/{waiting}/seats/0", content=body, headers=JSON),
        api.client.post(f"/matches/{match_id}/preview", content=body, headers=JSON | bearer(token)),
        api.client.post(f"/matches/{match_id}/plays", content=body, headers=JSON | bearer(token)),
        # Before authentication too: the body is read first.
        api.client.post(f"/matches/{match_id}/plays", content=body, headers=JSON),
    ]

    for response in responses:
        _assert_error(response, 400, "malformed_json")
    assert {m: len(api_service.events(m)) for m in (match_id, waiting)} == before
    assert len(api_service.match_ids()) == 2


def test_a_preview_after_the_end_says_the_match_ended(api: Api) -> None:
    match_id, token = api.practice(seed="preview-after-end")
    card = api.view(match_id, token)["hand"][0]
    assert api.client.post(f"/matches/{match_id}/leave", headers=bearer(token)).status_code == 200

    response = api.client.post(
        f"/matches/{match_id}/preview", json={"card": card}, headers=bearer(token)
    )

    _assert_error(response, 409, "match_ended")


@pytest.mark.parametrize(
    ("method", "route"),
    [("GET", "view"), ("POST", "leave"), ("GET", "events"), ("GET", "replay")],
)
def test_a_valid_token_on_an_unknown_match_is_404(api: Api, method: str, route: str) -> None:
    _, token = api.practice(seed="real-token")

    response = api.client.request(method, f"/matches/m-nope/{route}", headers=bearer(token))

    _assert_error(response, 404, "match_not_found")


def test_a_valid_token_of_another_real_match_is_still_403(api: Api) -> None:
    _, token = api.practice(seed="mine")
    other = api.create()["match_id"]

    response = api.client.get(f"/matches/{other}/view", headers=bearer(token))

    _assert_error(response, 403, "wrong_match")


@pytest.mark.parametrize(
    "name",
    [
        "easy bot",
        "Random Bot",
        "EASY   BOT",
        "\uff42\uff4f\uff54",  # fullwidth "bot"
        "Amal bot",
        "Am\u202eal",  # right-to-left override
        "Am\u2066al",  # left-to-right isolate
        "Am\u200bal",  # zero-width space
        "Am\nal",
        "Am\x1b[31mal",
        "Am\u2028al",  # line separator
        "   ",
        "easy bot\u3164",  # Hangul filler
        "\u115f",  # Hangul choseong filler
        "\u2800",  # Braille pattern blank
        "\ufe0f",  # variation selector-16
        "a\u034fb",  # combining grapheme joiner
        "Am\u00a0al",  # no-break space
        "easy \u0299\u1d0f\u1d1b",  # small capitals
        "\u0412\u041e\u0422",  # Cyrillic capitals
        "deleted player",
        "D\u0435l\u0435t\u0435d Player",  # Cyrillic e
    ],
)
def test_a_name_that_hides_what_it_is_or_poses_as_a_bot_is_refused(
    api: Api, api_service: MatchService, name: str
) -> None:
    match_id = api.create(bots=[1])["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/0", json={"name": name})

    _assert_error(response, 422, "invalid_name")
    assert len(api_service.events(match_id)) == 1


@pytest.mark.parametrize("name", ["Amal", "Abbot", "Robotnik", "أمل", "Zoë 🂡", "bot fan"])
def test_ordinary_names_are_taken_as_given(api: Api, name: str) -> None:
    match_id = api.create(bots=[1])["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/0", json={"name": f" {name} "})

    assert response.status_code == 201, response.text
    assert response.json()["name"] == name
    assert api.client.get(f"/matches/{match_id}").json()["names"] == [name, "easy bot"]


@pytest.mark.parametrize("seat", ["\u0663", "1e0", "+1", "-0", "0x1", "1.0", " 1", "01234"])
def test_a_seat_in_the_path_is_ascii_digits_only(
    api: Api, api_service: MatchService, seat: str
) -> None:
    match_id = api.create()["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/{seat}", json={"name": "Amal"})

    _assert_error(response, 422, "invalid_seat")
    assert len(api_service.events(match_id)) == 1


@pytest.mark.parametrize("seat", ["1e3", "\u0660", "+0", "0.0", "", "00000"])
def test_a_seat_in_the_query_is_ascii_digits_only(api: Api, seat: str) -> None:
    match_id, token = api.practice(seed="query-seat")

    for path in ("view", "events"):
        response = api.client.get(f"/matches/{match_id}/{path}?seat={seat}", headers=bearer(token))
        _assert_error(response, 422, "invalid_seat")


def test_seat_zero_in_the_query_is_still_seat_zero(api: Api) -> None:
    match_id, token = api.practice(seed="query-zero")

    assert api.client.get(f"/matches/{match_id}/view?seat=0", headers=bearer(token)).is_success
    _assert_error(
        api.client.get(f"/matches/{match_id}/view?seat=1", headers=bearer(token)), 403, "wrong_seat"
    )


@pytest.mark.parametrize("after", ["1e3", "\u0663", "-1"])
def test_after_in_the_query_is_ascii_digits_only(api: Api, after: str) -> None:
    match_id, token = api.practice(seed="query-after")

    response = api.client.get(f"/matches/{match_id}/events?after={after}", headers=bearer(token))

    _assert_error(response, 422, "invalid_value")


def test_a_405_names_the_methods_the_route_takes(client: TestClient[Litestar]) -> None:
    response = client.delete("/matches")

    _assert_error(response, 405, "method_not_allowed")
    assert "POST" in response.headers["allow"]


def test_support_token_is_refused_in_a_query_string(api: Api) -> None:
    match_id, token = api.practice(seed="support-query")
    assert api.client.post(f"/matches/{match_id}/leave", headers=bearer(token)).status_code == 200

    by_query = api.client.get(f"/matches/{match_id}/events?access_token={SUPPORT_TOKEN}")
    by_header = api.client.get(f"/matches/{match_id}/events", headers=bearer(SUPPORT_TOKEN))
    seat_by_query = api.client.get(f"/matches/{match_id}/events?access_token={token}")

    _assert_error(by_query, 401, "token_in_query")
    assert by_header.status_code == 200
    assert seat_by_query.status_code == 200


def test_health_reports_whether_the_store_can_be_reached(
    client: TestClient[Litestar], api_service: MatchService
) -> None:
    reachable = client.get("/health")
    api_service.store.close()  # the store goes away under a running server

    unreachable = client.get("/health")

    assert reachable.status_code == 200 and reachable.json() == {"status": "ok"}
    _assert_error(unreachable, 503, "store_unavailable")


def test_a_new_match_reports_its_table_from_the_command(api: Api) -> None:
    waiting = api.create(seats=4, bots=[1, 3])
    bots_only = api.create(seats=2, bots=[0, 1], seed="bots-only")

    assert waiting["status"] == "waiting" and waiting["open_seats"] == [0, 2]
    assert waiting["seq"] == 1 and waiting["target"] == 101
    assert bots_only["status"] == "ended" and bots_only["open_seats"] == []
    table = api.client.get(f"/matches/{bots_only['match_id']}").json()
    assert bots_only["seq"] == table["seq"]


def test_taking_the_last_seat_reports_the_status_after_the_bots_replied(api: Api) -> None:
    match_id = api.create(seats=4, bots=[1, 2, 3], seed="last-seat")["match_id"]

    taken = api.client.post(f"/matches/{match_id}/seats/0", json={"name": "Amal"}).json()
    table = api.client.get(f"/matches/{match_id}").json()

    assert taken["status"] == table["status"] == "playing"
    assert taken["seq"] == table["seq"]


def test_one_message_style_per_code(api: Api) -> None:
    match_id, token = api.practice(seed="styles")
    two_seats = api.create()["match_id"]

    missing = [
        api.client.get(f"/matches/{match_id}/view").json()["error"],
        api.client.get(f"/matches/{match_id}/replay").json()["error"],
        api.client.post(f"/matches/{match_id}/leave").json()["error"],
    ]
    seats = [
        api.client.post(f"/matches/{two_seats}/seats/7", json={"name": "A"}).json()["error"],
        api.client.post(f"/matches/{two_seats}/seats/1e0", json={"name": "A"}).json()["error"],
        api.client.get(f"/matches/{match_id}/view?seat=x", headers=bearer(token)).json()["error"],
    ]

    assert {e["code"] for e in missing} == {"missing_token"}
    assert all(
        e["message"].startswith("this route needs an 'Authorization: Bearer TOKEN' header")
        for e in missing
    ), missing
    assert {e["code"] for e in seats} == {"invalid_seat"}
    assert all(e["message"].startswith("seat ") for e in seats), seats
