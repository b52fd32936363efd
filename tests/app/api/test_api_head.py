"""HEAD on every GET route answers as GET without a body; HEAD on the feed opens nothing;
a 405's Allow names every method of the path, HEAD included where GET is."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def _get_paths(client: TestClient[Litestar], match_id: str, player_id: str) -> list[str]:
    """Every GET route of the app, its path parameters filled in with real values."""
    values = {"match_id": match_id, "player_id": player_id, "ruleset": "classic"}
    paths = []
    for route in client.app.routes:
        if "GET" not in getattr(route, "methods", set()) or route.path.endswith("/events"):
            continue
        path = route.path
        for name, value in values.items():
            path = path.replace(f"{{{name}:str}}", value).replace(f"{{{name}}}", value)
        if "{" not in path:
            paths.append(path)
    return paths


def test_head_on_every_get_route_answers_as_get_without_a_body(api: Api) -> None:
    # given a match, a player, and every GET route of the app
    match_id, token = api.practice(seed="head")
    player = api.client.post("/players", json={"name": "Noor"}).json()["player_id"]
    paths = _get_paths(api.client, match_id, player)
    assert "/health" in paths and f"/matches/{match_id}/view" in paths and len(paths) > 10
    for path in paths:
        headers = bearer(token) if "/view" in path else bearer(SUPPORT_TOKEN)
        # when it is asked with GET and with HEAD
        got = api.client.get(path, headers=headers)
        head = api.client.head(path, headers=headers)
        # then HEAD has the GET's status and content type, and no body
        assert head.status_code == got.status_code, path
        assert head.headers.get("content-type") == got.headers.get("content-type"), path
        assert head.content == b"", path


def test_head_on_the_feed_answers_its_headers_and_spends_no_ticket(api: Api) -> None:
    # given an ended match and a ticket of its seat
    match_id, token = api.practice(seed="head-feed")
    assert api.client.post(f"/matches/{match_id}/leave", headers=bearer(token)).is_success
    ticket = api.client.post(f"/matches/{match_id}/tickets", headers=bearer(token)).json()["ticket"]
    # when the feed is asked with HEAD, with the ticket
    head = api.client.head(f"/matches/{match_id}/events", params={"ticket": ticket})
    # then it answers the feed's headers and nothing else
    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/event-stream")
    assert head.content == b""
    # and the ticket still opens its one feed afterwards
    feed = api.client.get(f"/matches/{match_id}/events", params={"ticket": ticket})
    assert feed.status_code == 200 and "match_ended" in feed.text


def test_a_405_allows_every_method_of_the_path_head_included(api: Api) -> None:
    refused = api.client.delete("/health")
    assert refused.status_code == 405
    assert {m.strip() for m in refused.headers["allow"].split(",")} >= {"GET", "HEAD"}
    matches = api.client.delete("/matches")
    assert {m.strip() for m in matches.headers["allow"].split(",")} >= {"GET", "HEAD", "POST"}
