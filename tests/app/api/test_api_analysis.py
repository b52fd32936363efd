"""``GET /matches/{id}/analysis``: anyone after the end, support before it; nothing leaks before."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def _play_to_end(api: Api, match_id: str, token: str) -> list[str]:
    """Seat 0 plays its first card until the match ends; the cards it played."""
    played: list[str] = []
    while True:
        view = api.view(match_id, token)
        if view["status"] == "ended":
            return played
        response = api.play(match_id, token, view["hand"][0])
        assert response.status_code == 200, response.text
        played.append(view["hand"][0])


def test_before_the_end_only_support_sees_the_analysis(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given a practice match still being played, seat 0 having played one card
    match_id, token = api.practice(seed="analysis-before", target=1000)
    view = api.view(match_id, token)
    assert api.play(match_id, token, view["hand"][0]).status_code == 200
    url = f"/matches/{match_id}/analysis"
    # when anyone, the seat itself and support ask for its analysis
    anonymous = client.get(url)
    seat = client.get(url, headers=bearer(token))
    support = client.get(url, headers=bearer(SUPPORT_TOKEN))
    # then only support is answered: the seat's own analysis would tell of unseen cards
    assert anonymous.status_code == 401, anonymous.text
    assert (seat.status_code, seat.json()["error"]["code"]) == (403, "support_only")
    assert "best" not in seat.text and "played_points" not in seat.text
    assert support.status_code == 200, support.text
    body: dict[str, Any] = support.json()
    assert body["ended"] is False
    [first] = body["plays"]
    assert first["seat"] == 0 and first["played"] == view["hand"][0]
    assert first["best"] in view["hand"]


def test_after_the_end_anyone_sees_every_play_of_the_person(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given a practice match played to its end by seat 0 against a bot
    match_id, token = api.practice(seed="analysis-after", target=1)
    played = _play_to_end(api, match_id, token)
    # when anyone asks for its analysis
    response = client.get(f"/matches/{match_id}/analysis")
    # then every card seat 0 played is analysed, in order, and no bot play is
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ended"] is True
    assert [p["played"] for p in body["plays"]] == played
    assert {p["seat"] for p in body["plays"]} == {0}
    assert all(p["cost"] >= 0 for p in body["plays"])
    costs = [p["cost"] for p in body["mistakes"]]
    assert costs == sorted(costs, reverse=True)


def test_an_unknown_match_has_no_analysis(client: TestClient[Litestar]) -> None:
    response = client.get("/matches/no-such-match/analysis")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "match_not_found")
