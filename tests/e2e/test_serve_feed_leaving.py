"""End to end: a client that closes its live feed is heard at once by ``basra serve``: its seat
is no longer connected now, the open-feeds gauge falls back, and support keeps when the feed
dropped (docs/api.md, "Connected now"; docs/support.md)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.app.api.helpers import HttpSteps, bearer, wait_until
from tests.e2e.test_serve import SUPPORT, serve_process

pytestmark = pytest.mark.e2e


def _open_feeds(http: httpx.Client, url: str) -> float:
    found = re.search(r"^basra_open_feeds (\S+)$", http.get(f"{url}/metrics").text, re.M)
    assert found is not None
    return float(found.group(1))


def test_a_seat_that_closes_its_feed_is_disconnected_at_once_and_the_drop_is_kept(
    tmp_path: Path,
) -> None:
    served = serve_process(tmp_path, "--db", str(tmp_path / "leave.db"))
    with served as (url, _process), httpx.Client(timeout=30) as http:
        steps = HttpSteps(http, url)
        match_id = str(steps.create(seed="feed-leaving")["match_id"])
        token = steps.sit(match_id, 0)
        steps.sit(match_id, 1, "Badr")
        # given seat 0's feed open (its first line read: the server holds it open)
        with http.stream("GET", f"{url}/matches/{match_id}/events", headers=bearer(token)) as feed:
            assert feed.status_code == 200
            lines = feed.iter_lines()  # kept: a dropped iterator closes the stream
            next(lines)
            wait_until(
                lambda: http.get(f"{url}/matches/{match_id}").json()["connected"][0],
                "seat 0 connected",
            )
            assert _open_feeds(http, url) == 1.0
        # when the client closes it (the stream's context ends: the connection closes)
        # then within a few seconds (not the 15 s of the next keep-alive) the seat is not
        # connected and no feed is counted open
        wait_until(
            lambda: not http.get(f"{url}/matches/{match_id}").json()["connected"][0],
            "seat 0 disconnected",
            timeout=5.0,
        )
        wait_until(lambda: _open_feeds(http, url) == 0.0, "no feed open", timeout=5.0)
        # and support sees the feed connect and drop, in that order, for seat 0
        support = {"Authorization": f"Bearer {SUPPORT}"}

        def kinds() -> list[tuple[str, int | None]]:
            page = http.get(f"{url}/support/matches/{match_id}", headers=support).json()
            return [
                (e["kind"], e["seat"])
                for e in page["timeline"]
                if e["kind"] in ("connected", "dropped")
            ]

        wait_until(lambda: kinds() == [("connected", 0), ("dropped", 0)], "the drop kept")
