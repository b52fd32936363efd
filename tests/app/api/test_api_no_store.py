"""Every answer a credential opened is ``Cache-Control: no-store``; a seat's ``{}`` is no body.

A seat's view, its plays and previews, its feed, support's views and replays: whatever shows a
hand reaches its caller alone, so no browser or proxy may keep it.
"""

from __future__ import annotations

import pytest

from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def test_every_answer_that_a_credential_opened_is_no_store(api: Api) -> None:
    # given a practice match, its seat's token, and the support token
    match_id, token = api.practice(seed="no-store")
    hand = api.view(match_id, token)["hand"]
    seat, support = bearer(token), bearer(SUPPORT_TOKEN)
    # when each route that can show a hand is asked with a credential
    answers = {
        "view": api.client.get(f"/matches/{match_id}/view", headers=seat),
        "support view": api.client.get(f"/matches/{match_id}/view", headers=support),
        "preview": api.client.post(
            f"/matches/{match_id}/preview", json={"card": hand[0]}, headers=seat
        ),
        "play": api.client.post(f"/matches/{match_id}/plays", json={"card": hand[0]}, headers=seat),
        "support replay": api.client.get(f"/matches/{match_id}/replay", headers=support),
        "ticket": api.client.post(f"/matches/{match_id}/tickets", headers=seat),
        "a refusal": api.client.get(f"/matches/{match_id}/view", headers=bearer("seat_x.0.y.z")),
    }
    assert api.client.post(f"/matches/{match_id}/leave", headers=seat).is_success
    answers["feed by query token"] = api.client.get(
        f"/matches/{match_id}/events", params={"access_token": token}
    )
    answers["feed by header"] = api.client.get(f"/matches/{match_id}/events", headers=seat)
    # then every answer, refusals included, is no-store
    for name, answer in answers.items():
        assert answer.status_code < 500, (name, answer.text[:200])
        assert answer.headers.get("cache-control") == "no-store", name
    assert answers["view"].status_code == 200 and answers["feed by header"].status_code == 200


def test_a_public_answer_keeps_its_own_caching(api: Api) -> None:
    match_id, _ = api.practice(seed="public")
    public = api.client.get(f"/matches/{match_id}")
    assert public.status_code == 200
    assert public.headers.get("cache-control") != "no-store"


@pytest.mark.parametrize("body", [None, b"{}", b'{"client_seed": "abc"}', b'{"name": "Noor"}'])
def test_a_players_seat_takes_an_empty_object_as_no_body(api: Api, body: bytes | None) -> None:
    # given a registered player and a table with an open seat
    player = api.client.post("/players", json={"name": "Noor"}).json()["token"]
    match_id = api.create(seats=2, bots=[1], seed="empty-body")["match_id"]
    headers = bearer(player) | {"Content-Type": "application/json"}
    # when the player takes it with no body, {}, only a client seed, or a name
    taken = api.client.post(f"/matches/{match_id}/seats/0", content=body or b"", headers=headers)
    # then the seat is taken under the player's own name
    assert taken.status_code == 201, taken.text
    view = api.client.get(f"/matches/{match_id}/view", headers=bearer(player)).json()
    assert view["seat"] == 0


def test_a_seat_token_take_still_needs_a_name(api: Api) -> None:
    match_id = api.create(seats=2, bots=[1], seed="needs-name")["match_id"]
    answer = api.client.post(f"/matches/{match_id}/seats/0", json={})
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "missing_field"
