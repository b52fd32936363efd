"""/metrics and the request lines: they move when commands run, and carry no token."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.api.edges.logs import JsonLines, redact_server_logs
from app.api.edges.metrics import FEED_ROUTE
from tests.app.api.conftest import Api
from tests.app.api.helpers import HttpSteps, bearer, serving, wait_until

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: TestClient[Litestar] | httpx.Client, url: str = "") -> Samples:
    """Every sample of /metrics by (name, sorted labels)."""
    response = client.get(f"{url}/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample, 0 when it has not been written yet."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_commands_requests_and_the_store_are_counted(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given a practice match and the metrics before a play
    match_id, token = api.practice(seed="metrics")
    card = api.view(match_id, token)["hand"][0]
    before = scrape(client)

    # when the seat plays one card, and sends one play out of turn order (a stale seq)
    assert api.play(match_id, token, card).status_code == 200
    refused = api.play(match_id, token, api.view(match_id, token)["hand"][0], seq=1)
    after = scrape(client)

    # then the play is counted ok and the refusal under its code
    assert refused.status_code == 409
    code = refused.json()["error"]["code"]
    assert value(after, "basra_commands_total", kind="play", outcome="ok") == (
        value(before, "basra_commands_total", kind="play", outcome="ok") + 1
    )
    assert value(after, "basra_commands_total", kind="play", outcome=code) == (
        value(before, "basra_commands_total", kind="play", outcome=code) + 1
    )
    # the request histogram is by route template, never the raw path with the match id
    route = "/matches/{match_id}/plays"
    count = "basra_request_seconds_count"
    assert value(after, count, method="POST", route=route, status="200") == (
        value(before, count, method="POST", route=route, status="200") + 1
    )
    assert not any(match_id in dict(labels).get("route", "") for _, labels in after)
    # each command appended once and read its stream at least once
    appends = "basra_store_seconds_count"
    assert (
        value(after, appends, operation="append") == value(before, appends, operation="append") + 1
    )
    assert value(after, appends, operation="read") > value(before, appends, operation="read")


def test_the_read_models_lag_is_what_they_have_not_folded(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given matches recorded and a lobby read (which folds the log) afterwards
    api.practice(seed="lag-1")
    assert client.get("/matches").status_code == 200
    assert value(scrape(client), "basra_readmodel_lag_events") == 0

    # when another match is recorded and nothing reads the read models
    api.practice(seed="lag-2")

    # then they are behind by that match's entries, and a lobby read catches up
    assert value(scrape(client), "basra_readmodel_lag_events") > 0
    assert client.get("/matches").status_code == 200
    assert value(scrape(client), "basra_readmodel_lag_events") == 0


def test_an_open_feed_is_counted_while_it_streams(api_app: Litestar) -> None:
    # given a real server and a practice match in play
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="feed-metrics")
        before = value(scrape(http, server.url), "basra_open_feeds")

        # when its feed is open
        feed = steps.feed(match_id, token)
        wait_until(
            lambda: value(scrape(http, server.url), "basra_open_feeds") == before + 1,
            "the open feed counted",
        )

        # then it stops counting once the match ends and the feed with it
        steps.leave(match_id, token)
        feed.join()
        wait_until(
            lambda: value(scrape(http, server.url), "basra_open_feeds") == before,
            "the ended feed no longer counted",
        )
        routes = {dict(labels).get("route") for _, labels in scrape(http, server.url)}
    assert FEED_ROUTE in routes


def test_ready_answers_while_the_store_does(client: TestClient[Litestar]) -> None:
    assert client.get("/ready").json() == {"status": "ok"}
    assert client.get("/health").json() == {"status": "ok"}


def test_a_request_line_is_json_with_its_request_id_and_no_token(
    api: Api, client: TestClient[Litestar], caplog: pytest.LogCaptureFixture
) -> None:
    # given a seat's token (its match ended, so the feed ends) and JSON request lines
    match_id, token = api.practice(seed="json-logs")
    assert client.post(f"/matches/{match_id}/leave", headers=bearer(token)).status_code == 200
    redact_server_logs()
    formatter = JsonLines()

    # when the feed is asked for with the token in the query string and a proxy's request id
    with caplog.at_level(logging.INFO, logger="basra.api.requests"):
        response = client.get(
            f"/matches/{match_id}/events?access_token={token}&after=2",
            headers={"X-Request-ID": "proxy-42", "Accept": "text/event-stream"},
            timeout=5,
        )
        caplog.handler.flush()
    records = [r for r in caplog.records if r.name == "basra.api.requests"]
    lines = [formatter.format(r) for r in records]

    # then one JSON line names the request id, route and status, and the token is nowhere
    assert response.headers["x-request-id"] == "proxy-42"
    parsed = [json.loads(line) for line in lines]
    feed = [p for p in parsed if p["request_id"] == "proxy-42"]
    assert len(feed) == 1
    assert feed[0]["route"] == FEED_ROUTE
    assert feed[0]["status"] == response.status_code
    assert "access_token=[redacted]" in feed[0]["path"]
    secret = token.rsplit(".", 1)[1]
    assert all(token not in line and secret not in line for line in lines)


def test_a_request_without_an_id_gets_a_fresh_one(client: TestClient[Litestar]) -> None:
    first = client.get("/health").headers["x-request-id"]
    second = client.get("/health", headers={"X-Request-ID": "bad id with spaces"}).headers[
        "x-request-id"
    ]
    assert first.startswith("req-") and second.startswith("req-") and first != second
