"""R23 over the results routes: what a profile, a history, a rating chart and the ladder show
anyone but the player themself and support never names a private table, never a card of a
match in play, never a match secret or a token; an anonymous seat has no ratings to ask for."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from app.service import MatchService
from domain.events import CardsDealt, MatchCreated
from tests.app.api.helpers import SUPPORT_TOKEN, bearer, cards_in


def _finish(client: TestClient[Litestar], players: list[dict[str, Any]], **table: Any) -> str:
    match_id = str(
        client.post(
            "/matches", json={"ruleset": "classic", "seats": 2, "target": 1, **table}
        ).json()["match_id"]
    )
    tokens = []
    for seat, player in enumerate(players):
        if player.get("token"):
            taken = client.post(
                f"/matches/{match_id}/seats/{seat}", headers=bearer(player["token"])
            )
        else:
            taken = client.post(f"/matches/{match_id}/seats/{seat}", json={"name": "Anon"})
        assert taken.status_code == 201, taken.text
        tokens.append(taken.json().get("token") or player["token"])
    while True:
        view = client.get(f"/matches/{match_id}/view", headers=bearer(tokens[0])).json()
        if view["status"] != "playing":
            return match_id
        seat = view["turn"]
        hand = client.get(f"/matches/{match_id}/view", headers=bearer(tokens[seat])).json()["hand"]
        played = client.post(
            f"/matches/{match_id}/plays", json={"card": hand[0]}, headers=bearer(tokens[seat])
        )
        assert played.status_code == 200, played.text


def test_results_routes_leak_no_private_table_no_card_no_secret(
    api_service: MatchService, api_app: Litestar
) -> None:
    with TestClient(api_app) as client:
        # given Amal and Noor with a public and a private finished match, a match in play,
        # and Amal's match against a seat taken by name only
        amal = client.post("/players", json={"name": "Amal"}).json()
        noor = client.post("/players", json={"name": "Noor"}).json()
        public = _finish(client, [amal, noor])
        private = _finish(client, [amal, noor], private=True)
        practice = _finish(client, [amal, {"name": "Anon"}])
        playing = client.post("/matches", json={"ruleset": "classic", "seats": 2}).json()
        for seat, player in enumerate((amal, noor)):
            client.post(
                f"/matches/{playing['match_id']}/seats/{seat}", headers=bearer(player["token"])
            )
        outsider = client.post("/players", json={"name": "Cala"}).json()

        # when anyone, a third player, or Noor read Amal's results and the ladder
        paths = [
            f"/players/{amal['player_id']}",
            f"/players/{amal['player_id']}/matches",
            f"/players/{amal['player_id']}/ratings",
            f"/players/{noor['player_id']}/matches",
            "/ladder",
        ]
        bodies = []
        for headers in ({}, bearer(outsider["token"])):
            for path in paths:
                response = client.get(path, headers=headers)
                assert response.status_code == 200, (path, response.text)
                bodies.append(response.text)
        noor_reads_amal = client.get(
            f"/players/{amal['player_id']}/matches", headers=bearer(noor["token"])
        ).text
        bodies.append(noor_reads_amal)
        anonymous = client.get("/players/Anon/ratings")
        support = client.get(
            f"/players/{amal['player_id']}/matches", headers=bearer(SUPPORT_TOKEN)
        ).text

    # then the public match is there, and nothing private, in play or secret is
    stream = api_service.events(playing["match_id"])
    created = stream[0].event
    assert isinstance(created, MatchCreated) and created.secret
    hands = {
        c for r in stream if isinstance(r.event, CardsDealt) for h in r.event.hands if h for c in h
    }
    for text in bodies:
        assert private not in text
        assert playing["match_id"] not in text
        assert practice not in text  # practice is never a result
        assert created.secret not in text
        assert not cards_in(text) & hands
        assert amal["token"] not in text and noor["token"] not in text
    assert public in bodies[1]
    # an anonymous seat has no ratings, and says so without naming anything
    assert anonymous.status_code == 404
    assert anonymous.json()["error"]["code"] == "not_a_player"
    # support sees the private table with its id
    assert private in support and public in support
