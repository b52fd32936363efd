"""Results through a real ``basra serve`` (R27): two players play a match to the end over HTTP;
their profiles, histories, rating charts and the ladder show it, and a process started again on
the same store shows the same numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.app.api.helpers import bearer
from tests.e2e.test_serve import basra_serve

pytestmark = pytest.mark.e2e


def _play_to_the_end(http: httpx.Client, url: str, match_id: str, tokens: list[str]) -> None:
    while True:
        view = http.get(f"{url}/matches/{match_id}/view", headers=bearer(tokens[0])).json()
        if view["status"] != "playing":
            return
        seat = view["turn"]
        mine = http.get(f"{url}/matches/{match_id}/view", headers=bearer(tokens[seat])).json()
        played = http.post(
            f"{url}/matches/{match_id}/plays",
            json={"card": mine["hand"][0]},
            headers=bearer(tokens[seat]),
        )
        assert played.status_code == 200, played.text


def test_two_players_finish_a_match_and_results_show_it(tmp_path: Path) -> None:
    db = tmp_path / "basra.db"
    with basra_serve(tmp_path, "--db", str(db)) as url, httpx.Client(timeout=10) as http:
        # given two registered players seated at one table
        players: list[dict[str, Any]] = []
        for name in ("Noor", "Sami"):
            registered = http.post(f"{url}/players", json={"name": name})
            assert registered.status_code == 201, registered.text
            players.append(registered.json())
        created = http.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2, "target": 1})
        assert created.status_code == 201, created.text
        match_id = created.json()["match_id"]
        for seat, player in enumerate(players):
            seated = http.post(
                f"{url}/matches/{match_id}/seats/{seat}", headers=bearer(player["token"])
            )
            assert seated.status_code == 201, seated.text

        # when they play it to the end over HTTP
        _play_to_the_end(http, url, match_id, [p["token"] for p in players])
        ended = http.get(f"{url}/matches/{match_id}").json()
        assert ended["status"] == "ended"
        winner = ended["winner"]
        won, lost = players[winner], players[1 - winner]

        # then the profiles, the history, the chart and the ladder show it
        profile = http.get(f"{url}/players/{won['player_id']}").json()
        assert (profile["points"], profile["wins"], profile["rated_matches"]) == (24, 1, 1)
        assert round(profile["rating"], 1) == 1662.3 and profile["provisional"] is True
        other = http.get(f"{url}/players/{lost['player_id']}").json()
        assert (other["points"], other["losses"], round(other["rating"], 1)) == (3, 1, 1337.7)
        history = http.get(f"{url}/players/{lost['player_id']}/matches").json()["matches"]
        assert [(h["match_id"], h["result"], h["points"]) for h in history] == [
            (match_id, "loss", 3)
        ]
        assert history[0]["opponents"][0]["name"] == won["name"]
        chart = http.get(f"{url}/players/{won['player_id']}/ratings").json()["ratings"]
        assert [c["match_id"] for c in chart] == [match_id]
        ladder = http.get(f"{url}/ladder").json()["players"]
        assert [p["player_id"] for p in ladder] == [won["player_id"], lost["player_id"]]
        shown = [profile, other]

    # and a server started again on the same store shows the same numbers
    with basra_serve(tmp_path, "--db", str(db)) as url, httpx.Client(timeout=10) as http:
        again = [http.get(f"{url}/players/{p['player_id']}").json() for p in (won, lost)]
        assert again == shown
