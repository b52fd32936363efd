"""Seat tokens and support: 401 without a valid token, 403 for another match or seat (R23)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from app.api.edges.tokens import read_claim
from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer

SEAT_ROUTES = [
    ("GET", "view", None),
    ("POST", "preview", {"card": "AC"}),
    ("POST", "plays", {"card": "AC"}),
    ("GET", "events", None),
    ("POST", "leave", None),
]


def _call(
    api: Api, method: str, match_id: str, route: str, body: object, headers: dict[str, str]
) -> httpx.Response:
    return api.client.request(method, f"/matches/{match_id}/{route}", json=body, headers=headers)


TOKEN_ONLY_ROUTES = [r for r in SEAT_ROUTES if r[1] != "events"]
"""Every seat route but the feed, which without a token is the public one (test_api_table.py)."""


@pytest.mark.parametrize(("method", "route", "body"), TOKEN_ONLY_ROUTES)
def test_a_seat_route_without_a_token_is_401(
    api: Api, method: str, route: str, body: object
) -> None:
    match_id, _ = api.practice(seed="no-token")

    response = _call(api, method, match_id, route, body, {})

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "missing_token"


@pytest.mark.parametrize(("method", "route", "body"), SEAT_ROUTES)
def test_an_unknown_token_is_401(api: Api, method: str, route: str, body: object) -> None:
    match_id, token = api.practice(seed="unknown-token")
    forged = token[:-6] + ("AAAAAA" if not token.endswith("AAAAAA") else "BBBBBB")

    for bad in (forged, "nonsense", f"{match_id}.0.abcd.secret", "Basic x"):
        response = _call(api, method, match_id, route, body, bearer(bad))
        assert response.status_code == 401, (bad, response.text)
        assert response.json()["error"]["code"] == "unknown_token"


@pytest.mark.parametrize(("method", "route", "body"), SEAT_ROUTES)
def test_a_token_of_another_match_is_403(api: Api, method: str, route: str, body: object) -> None:
    match_id, _ = api.practice(seed="mine")
    _, other_token = api.practice(seed="theirs")

    response = _call(api, method, match_id, route, body, bearer(other_token))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "wrong_match"


def test_a_token_of_another_seat_is_403(api: Api) -> None:
    match_id = api.create(seats=2, seed="two-people")["match_id"]
    token0 = api.sit(match_id, 0)
    api.sit(match_id, 1)

    response = api.client.get(f"/matches/{match_id}/view?seat=1", headers=bearer(token0))
    own = api.client.get(f"/matches/{match_id}/view?seat=0", headers=bearer(token0))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "wrong_seat"
    assert own.status_code == 200


def test_the_token_is_random_and_long_and_only_its_hash_is_stored(
    api: Api, api_service: MatchService, api_db: Path
) -> None:
    match_id, token = api.practice(seed="hash-only")
    claim = read_claim(token)
    assert claim is not None

    secret_part = token.rsplit(".", 1)[1]
    assert len(secret_part) >= 22  # base64url: 22 characters carry 132 bits; ours are 43
    stored = b"".join(p.read_bytes() for p in api_db.parent.iterdir() if p.is_file())
    assert token.encode() not in stored
    assert secret_part.encode() not in stored
    seat_taken = next(r.event for r in api_service.events(match_id) if r.seq == 2)
    assert getattr(seat_taken, "token_hash", None) == claim.token_hash
    assert api.sit(api.create(seats=2)["match_id"], 0) != token


def test_the_token_hash_never_reaches_a_seat_or_support(api: Api) -> None:
    match_id, token = api.practice(seed="no-hash-out")
    claim = read_claim(token)
    assert claim is not None
    token_hash = claim.token_hash
    api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))

    bodies = [
        api.client.get(f"/matches/{match_id}/events", headers=bearer(token)).text,
        api.client.get(f"/matches/{match_id}/events", headers=bearer(SUPPORT_TOKEN)).text,
        api.client.get(f"/matches/{match_id}/replay", headers=bearer(SUPPORT_TOKEN)).text,
        api.client.get(f"/matches/{match_id}/replay").text,
        api.client.get(f"/matches/{match_id}").text,
    ]

    assert all(token_hash not in body for body in bodies)
    assert all(token not in body for body in bodies)


def test_support_needs_the_configured_token(api: Api) -> None:
    match_id, _ = api.practice(seed="support-token")

    wrong = api.client.get(f"/matches/{match_id}/view", headers=bearer(SUPPORT_TOKEN + "x"))
    right = api.client.get(f"/matches/{match_id}/view", headers=bearer(SUPPORT_TOKEN))

    assert wrong.status_code == 401
    assert right.status_code == 200
    assert len(right.json()["hands"]) == 2


def test_the_replay_before_the_end_is_for_support_and_the_seat_only(api: Api) -> None:
    match_id, token = api.practice(seed="replay-rights")
    _, other = api.practice(seed="replay-rights-2")

    anonymous = api.client.get(f"/matches/{match_id}/replay")
    stranger = api.client.get(f"/matches/{match_id}/replay", headers=bearer(other))
    support = api.client.get(f"/matches/{match_id}/replay", headers=bearer(SUPPORT_TOKEN))
    seat = api.client.get(f"/matches/{match_id}/replay", headers=bearer(token))

    assert anonymous.status_code == 401
    assert stranger.status_code == 403
    assert support.status_code == 200 and seat.status_code == 200
    assert '"seed":null' in support.text.splitlines()[0]
    deal = next(line for line in seat.text.splitlines() if '"cards_dealt"' in line)
    hands = json.loads(deal)["hands"]
    assert hands[0] and hands[1] is None  # seat 1's hand hidden from seat 0
    support_deal = next(line for line in support.text.splitlines() if '"cards_dealt"' in line)
    assert "null]" not in support_deal  # support sees every hand


def test_anyone_gets_the_full_replay_once_the_match_has_ended(api: Api) -> None:
    match_id, token = api.practice(seed="replay-after")
    api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))

    replay = api.client.get(f"/matches/{match_id}/replay")

    assert replay.status_code == 200
    assert replay.headers["content-type"].startswith("application/jsonl")
    lines = replay.text.splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "basra-replay" and header["version"] == 1
    assert header["seed"] is not None and len(header["seed"]) == 64
    assert "null]" not in next(line for line in lines if '"cards_dealt"' in line)
