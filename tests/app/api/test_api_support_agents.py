"""Named support agents over HTTP: what they see is recorded with their name; revoked at once."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from app.api.edges.tokens import AGENT_PREFIX, issue_prefixed
from app.runtime.runtime import ApiRuntime
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def _runtime(client: TestClient[Litestar]) -> ApiRuntime:
    runtime = client.app.state.runtime
    assert isinstance(runtime, ApiRuntime)
    return runtime


def _add_agent(client: TestClient[Litestar], name: str) -> str:
    token, token_hash = issue_prefixed(AGENT_PREFIX)
    _runtime(client).access.add_agent(name, token_hash)
    return token


def test_an_agents_look_at_every_hand_is_recorded_with_its_name(api: Api) -> None:
    match_id, _ = api.practice(seed="agent-view")
    token = _add_agent(api.client, "nadia")

    response = api.client.get(f"/matches/{match_id}/view", headers=bearer(token))

    assert response.status_code == 200
    assert len(response.json()["hands"]) == 2  # support sees every hand
    records = _runtime(api.client).access.access_log()
    assert [(r.agent, r.match_id, r.what) for r in records] == [("nadia", match_id, "view")]


def test_the_environment_token_is_the_agent_env_and_a_seat_is_never_recorded(api: Api) -> None:
    match_id, seat_token = api.practice(seed="env-view")
    api.view(match_id, seat_token)
    api.support_view(match_id)
    replay = api.client.get(f"/matches/{match_id}/replay", headers=bearer(SUPPORT_TOKEN))
    assert replay.status_code == 200

    records = _runtime(api.client).access.access_log()

    assert [(r.agent, r.what) for r in records] == [("env", "replay"), ("env", "view")]


def test_a_revoked_agent_is_refused_at_once(api: Api) -> None:
    match_id, _ = api.practice(seed="revoked")
    token = _add_agent(api.client, "omar")
    assert api.client.get(f"/matches/{match_id}/view", headers=bearer(token)).status_code == 200

    _runtime(api.client).access.revoke_agent("omar")
    response = api.client.get(f"/matches/{match_id}/view", headers=bearer(token))

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "agent_revoked"


def test_an_unknown_agent_token_is_an_unknown_token(api: Api) -> None:
    match_id, _ = api.practice(seed="unknown-agent")
    token, _ = issue_prefixed(AGENT_PREFIX)
    response = api.client.get(f"/matches/{match_id}/view", headers=bearer(token))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unknown_token"


def test_an_agent_watches_but_never_plays(api: Api) -> None:
    match_id, seat_token = api.practice(seed="agent-plays")
    token = _add_agent(api.client, "lina")
    card = api.view(match_id, seat_token)["hand"][0]
    response = api.play(match_id, token, card)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "seat_only"


def test_support_and_agent_tokens_are_refused_in_a_query_string_seat_tokens_are_not(
    api: Api,
) -> None:
    match_id, seat_token = api.practice(seed="query")
    api.client.post(f"/matches/{match_id}/leave", headers=bearer(seat_token))
    agent = _add_agent(api.client, "sami")
    for token in (SUPPORT_TOKEN, agent, "player_" + "x" * 43):
        response = api.client.get(f"/matches/{match_id}/events", params={"access_token": token})
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "token_in_query"
        assert token not in response.text

    seat = api.client.get(f"/matches/{match_id}/events", params={"access_token": seat_token})
    assert seat.status_code == 200
    assert _runtime(api.client).access.access_log() == []


def test_a_support_feed_is_recorded(api: Api) -> None:
    match_id, seat_token = api.practice(seed="support-feed")
    api.client.post(f"/matches/{match_id}/leave", headers=bearer(seat_token))
    token = _add_agent(api.client, "rana")

    response = api.client.get(f"/matches/{match_id}/events", headers=bearer(token))

    assert response.status_code == 200
    records = _runtime(api.client).access.access_log(agent="rana", match_id=match_id)
    assert [r.what for r in records] == ["events"]
