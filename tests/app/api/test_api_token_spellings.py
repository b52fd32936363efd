"""A credential's kind is decided once, on its normalised form, however it is spelled.

``?access_token=`` takes a seat's token only: a player's, an agent's and the support token are
refused there (``token_in_query``) whether they come as they are or behind a space, a tab or a
``+`` (which a query decodes to a space), raw or percent-encoded. The same padding around a
seat's token, or in an ``Authorization`` header, is the same token.
"""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from app.api.edges.tokens import AGENT_PREFIX, issue_prefixed
from app.runtime.runtime import ApiRuntime
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer

SPELLINGS = ["", "%20", "+", "%09", "+%20", "%20%09"]
"""What may stand before (and after) a token in a raw query string: nothing, a space, a plus
(a space once decoded), a tab, and mixtures."""


def _runtime(client: TestClient[Litestar]) -> ApiRuntime:
    runtime = client.app.state.runtime
    assert isinstance(runtime, ApiRuntime)
    return runtime


def _ended_match_with_a_player(api: Api) -> tuple[str, str, str]:
    """An ended match whose seat 0 a registered player took: (match id, seat token-less player
    token, a seat token of another match's seat)."""
    registered = api.client.post("/players", json={"name": "Noor"})
    assert registered.status_code == 201, registered.text
    player_token = registered.json()["token"]
    match_id = api.create(seats=2, bots=[1], seed="spellings")["match_id"]
    seated = api.client.post(f"/matches/{match_id}/seats/0", headers=bearer(player_token))
    assert seated.status_code == 201, seated.text
    left = api.client.post(f"/matches/{match_id}/leave", headers=bearer(player_token))
    assert left.status_code == 200, left.text
    return match_id, player_token, seated.json()["token"]


@pytest.mark.parametrize("padding", SPELLINGS)
def test_player_agent_and_support_tokens_are_refused_in_a_query_however_padded(
    api: Api, padding: str
) -> None:
    # given an ended match a player sat at, a named agent, and the support token
    match_id, player_token, _ = _ended_match_with_a_player(api)
    agent_token, agent_hash = issue_prefixed(AGENT_PREFIX)
    _runtime(api.client).access.add_agent("sami", agent_hash)
    for token in (player_token, agent_token, SUPPORT_TOKEN):
        # when one is sent as ?access_token= with white space before and after it
        url = f"/matches/{match_id}/events?access_token={padding}{token}{padding}"
        response = api.client.get(url)
        # then it is refused as a token in a query string, and opens nothing
        assert response.status_code == 401, (padding, token[:8], response.text[:200])
        assert response.json()["error"]["code"] == "token_in_query"
        assert token not in response.text
    assert _runtime(api.client).access.access_log() == []


@pytest.mark.parametrize("padding", SPELLINGS)
def test_a_seat_token_padded_in_a_query_is_the_same_seat_token(api: Api, padding: str) -> None:
    # given an ended practice match and its seat's token
    match_id, seat_token = api.practice(seed="seat-spellings")
    assert api.client.post(f"/matches/{match_id}/leave", headers=bearer(seat_token)).is_success
    # when it is sent padded as ?access_token=
    response = api.client.get(f"/matches/{match_id}/events?access_token={padding}{seat_token}")
    # then it opens that seat's feed, as the token itself does
    assert response.status_code == 200, response.text[:200]
    assert "event: " in response.text or "data: " in response.text


@pytest.mark.parametrize("header", ["Bearer  {}", "Bearer {} ", "bearer\t{}", "  Bearer {}"])
def test_a_padded_authorization_header_is_decided_on_the_token_it_carries(
    api: Api, header: str
) -> None:
    # given a player's token in an Authorization header with extra white space
    match_id, player_token, _ = _ended_match_with_a_player(api)
    response = api.client.get(
        f"/matches/{match_id}/view", headers={"Authorization": header.format(player_token)}
    )
    # then it is the player's token (the seat's view), or no bearer token at all: never another
    # kind of credential
    if header.startswith("bearer\t"):
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "missing_token"
    else:
        assert response.status_code == 200, response.text[:200]
        assert response.json()["seat"] == 0
