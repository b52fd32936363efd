"""A player token rotated through one ``basra serve`` process is refused at once by another.

Two real server processes share one PostgreSQL schema, as API processes behind a balancer do.
Each request reads the player's stream from the store, so no process keeps a rotated token.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.app.api.helpers import bearer
from tests.e2e.test_serve import basra_serve

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]


def test_a_token_rotated_through_one_process_is_refused_by_the_other_at_once(
    tmp_path: Path, pg_url: str
) -> None:
    served_a = basra_serve(tmp_path, "--database-url", pg_url)
    served_b = basra_serve(tmp_path, "--database-url", pg_url)
    with served_a as a, served_b as b, httpx.Client(timeout=10) as http:
        # given a player registered through A, seated through B, known to both processes
        registered = http.post(f"{a}/players", json={"name": "Noor"})
        assert registered.status_code == 201, registered.text
        old = registered.json()["token"]
        created = http.post(f"{a}/matches", json={"ruleset": "classic", "seats": 2, "bots": [1]})
        assert created.status_code == 201, created.text
        match_id = created.json()["match_id"]
        seated = http.post(f"{b}/matches/{match_id}/seats/0", headers=bearer(old))
        assert seated.status_code == 201, seated.text
        assert http.get(f"{b}/players/me", headers=bearer(old)).status_code == 200
        assert http.get(f"{b}/matches/{match_id}/view", headers=bearer(old)).status_code == 200

        # when the token is rotated through A
        rotated = http.post(f"{a}/players/me/token", headers=bearer(old))
        assert rotated.status_code == 200, rotated.text
        new = rotated.json()["token"]

        # then B refuses the old token at once, on the player's routes and on the seat's
        for path in ("/players/me", f"/matches/{match_id}/view"):
            refused = http.get(f"{b}{path}", headers=bearer(old))
            assert refused.status_code == 401, (path, refused.text)
            assert refused.json()["error"]["code"] == "unknown_token"
        # and B takes the new one on both, the seat's view showing that seat's hand
        assert http.get(f"{b}/players/me", headers=bearer(new)).json()["name"] == "Noor"
        view = http.get(f"{b}/matches/{match_id}/view", headers=bearer(new))
        assert view.status_code == 200, view.text
        assert view.json()["seat"] == 0 and len(view.json()["hand"]) == 4
