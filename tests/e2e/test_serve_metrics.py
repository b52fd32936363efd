"""/metrics and JSON request lines from real ``basra serve`` processes."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.app.api.helpers import HttpSteps, bearer
from tests.e2e.test_serve import SUPPORT, basra_serve

pytestmark = pytest.mark.e2e


def created(url: str) -> float:
    """``basra_commands_total{kind="create", outcome="ok"}`` as one fresh connection reads it."""
    with httpx.Client() as http:  # a new connection: any worker may answer
        text = http.get(f"{url}/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "basra_commands_total" and sample.labels == {
                "kind": "create",
                "outcome": "ok",
            }:
                return sample.value
    return 0.0


def json_lines(tmp_path: Path) -> list[dict[str, object]]:
    """The JSON lines of the served processes' log (the CLI's start-up text left out)."""
    text = "".join(p.read_text(errors="replace") for p in tmp_path.glob("serve-*.log"))
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def create(url: str, seed: str) -> None:
    """Create a match over a connection of its own."""
    with httpx.Client() as http:
        HttpSteps(http, url).create(seed=seed)


def creating_pids(tmp_path: Path) -> set[object]:
    """The processes that logged a match creation so far."""
    lines = json_lines(tmp_path)
    return {line["pid"] for line in lines if line.get("route") == "/matches"}


@pytest.mark.postgres
def test_two_workers_metrics_are_summed_and_their_request_lines_are_json(
    tmp_path: Path, pg_url: str
) -> None:
    # given two worker processes on one PostgreSQL schema, logging JSON lines
    served = basra_serve(
        tmp_path, "--database-url", pg_url, "--workers", "2", "--log-format", "json"
    )
    with served as url:
        # when matches are created over fresh connections, eight at a time, until both
        # workers have created some (the kernel hands each connection to one of them)
        total = 0
        for round_ in range(25):
            with ThreadPoolExecutor(8) as pool:
                seeds = [f"summed-{round_}-{n}" for n in range(8)]
                list(pool.map(create, [url] * 8, seeds))
            total += 8
            if len(creating_pids(tmp_path)) == 2:
                break
        assert len(creating_pids(tmp_path)) == 2, "one worker took every connection"

        # then every scrape, whichever worker answers it, counts all of them
        assert [created(url) for _ in range(6)] == [float(total)] * 6
    requests = [line for line in json_lines(tmp_path) if line["logger"] == "basra.api.requests"]
    assert len([line for line in requests if line["route"] == "/matches"]) == total
    assert all(str(line["request_id"]).startswith("req-") for line in requests)


def test_json_request_lines_never_hold_a_token(tmp_path: Path) -> None:
    # given one process on SQLite logging JSON lines
    served = basra_serve(tmp_path, "--db", str(tmp_path / "json.db"), "--log-format", "json")
    with served as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, token = steps.practice(seed="json-lines")
        # when tokens travel in a header, in a query string and in a wrong Authorization
        assert http.post(f"{url}/matches/{match_id}/leave", headers=bearer(token)).is_success
        feed = http.get(f"{url}/matches/{match_id}/events?access_token={token}&after=2")
        wrong = http.get(f"{url}/matches/{match_id}/view", headers=bearer(SUPPORT + "x"))
        http.get(f"{url}/matches/{match_id}/view", headers={"X-Request-ID": "edge-7"})
    lines = json_lines(tmp_path)
    text = json.dumps(lines)

    # then each request has a JSON line with its id, and no token or its secret is anywhere
    assert feed.status_code == 200 and wrong.status_code == 401
    assert any(line.get("request_id") == "edge-7" for line in lines)
    paths = [str(line.get("path")) for line in lines if line["logger"] == "basra.api.requests"]
    assert any(f"/matches/{match_id}/events?access_token=[redacted]" in p for p in paths)
    assert token not in text and token.rsplit(".", 1)[1] not in text
    assert SUPPORT not in text


def test_a_client_that_leaves_mid_body_is_counted_as_client_closed_not_500(
    tmp_path: Path,
) -> None:
    import socket
    import time

    with basra_serve(tmp_path, "--db", str(tmp_path / "cut.db")) as url, httpx.Client() as http:
        host, port = url.removeprefix("http://").split(":")
        # given a client that sends a play's headers and half its body, then hangs up
        for _ in range(3):
            with socket.create_connection((host, int(port))) as raw:
                raw.sendall(
                    b"POST /matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b'Content-Length: 400\r\n\r\n{"ruleset": "cla'
                )
                time.sleep(0.05)
        time.sleep(0.5)
        # when the server's metrics are read
        families = text_string_to_metric_families(http.get(f"{url}/metrics").text)
        statuses = {
            sample.labels.get("status")
            for family in families
            if family.name == "basra_request_seconds"
            for sample in family.samples
            if sample.labels.get("route") == "/matches" and sample.labels.get("method") == "POST"
        }
    # then the cut requests are counted as 499 (client closed), never as a server error
    assert "499" in statuses, statuses
    assert not any(s and s.startswith("5") for s in statuses), statuses
