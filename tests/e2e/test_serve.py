"""End to end: ``basra serve`` as a real process on a free port, a whole match over real HTTP."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.app.api.helpers import HttpSteps, bearer, parse_sse

pytestmark = pytest.mark.e2e

SUPPORT = "e2e-support-token-0123456789abcdef"
"""The support token the served process is started with."""


def free_port() -> int:
    """A port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_process(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``basra serve`` on ``port`` (a free one by default); (URL, process) once it answers;
    SIGINT after, if alive."""
    port = port or free_port()
    log = (tmp_path / f"serve-{port}.log").open("wb")
    environ = os.environ | {"BASRA_TEST_MODE": "1", "BASRA_SUPPORT_TOKEN": SUPPORT} | (env or {})
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--port", str(port), *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=environ,
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise AssertionError((tmp_path / f"serve-{port}.log").read_text())
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "basra serve did not start"
            time.sleep(0.05)
        yield url, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


@contextmanager
def basra_serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``basra serve`` on a free port; its URL once it answers; stopped with SIGINT after."""
    with serve_process(tmp_path, *args, env=env) as (url, _process):
        yield url


def _play_to_the_end(steps: HttpSteps, match_id: str, token: str) -> dict[str, object]:
    view = steps.view(match_id, token)
    while view["status"] == "playing":
        key = {"Idempotency-Key": f"play-{view['seq']}"}
        response = steps.play(match_id, token, view["hand"][-1], seq=view["seq"], headers=key)
        assert response.status_code == 200, response.text
        view = response.json()["view"]
    return view


def _granian_missing() -> bool:
    try:
        import granian  # noqa: F401
    except ImportError:
        return True
    return False


SERVER_ARGS = [
    pytest.param(("--server", "uvicorn"), id="uvicorn-httptools-uvloop"),
    pytest.param(("--server", "uvicorn", "--http", "h11", "--loop", "asyncio"), id="uvicorn-h11"),
    pytest.param(
        ("--server", "granian"),
        id="granian",
        marks=pytest.mark.skipif(_granian_missing(), reason="granian is not installed"),
    ),
]
"""Every way ``basra serve`` can run: the default C parser and loop, the pure-Python pair."""


@pytest.mark.parametrize("server_args", SERVER_ARGS)
def test_a_whole_practice_match_over_real_http_with_sse(
    tmp_path: Path, server_args: tuple[str, ...]
) -> None:
    served = basra_serve(tmp_path, "--db", str(tmp_path / "e2e.db"), *server_args)
    with served as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        assert http.get(f"{url}/schema").status_code == 200
        assert http.get(f"{url}/schema/openapi.json").json()["openapi"].startswith("3.1")
        match_id, token = steps.practice(seed="e2e-match")
        feed = steps.feed(match_id, token)
        final = _play_to_the_end(steps, match_id, token)
        messages = feed.join(timeout=60)
        replay = http.get(f"{url}/matches/{match_id}/replay")
        mid_feed = http.get(
            f"{url}/matches/{match_id}/events", headers=bearer(token) | {"Last-Event-ID": "10"}
        )

    assert final["status"] == "ended"
    assert [m.id for m in messages] == list(range(1, final["seq"] + 1))  # type: ignore[operator]
    lines = replay.text.splitlines()
    assert replay.status_code == 200 and len(lines) == final["seq"] + 1  # type: ignore[operator]
    assert json.loads(lines[0])["seed"] is not None
    assert [json.loads(line)["seq"] for line in lines[1:]] == [m.id for m in messages]
    assert [m.id for m in parse_sse(mid_feed.text) if m.data] == [m.id for m in messages][10:]


def test_a_feed_resumes_after_the_server_process_restarts(tmp_path: Path) -> None:
    db = str(tmp_path / "restart.db")
    with basra_serve(tmp_path, "--db", db) as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, token = steps.practice(seed="e2e-restart")
        feed = steps.feed(match_id, token)
        after = int(steps.play_first_card(match_id, token)["seq"])
        feed.wait_for(after)
    seen = [m.id for m in feed.join() if m.id is not None]
    assert seen == list(range(1, len(seen) + 1)) and seen[-1] >= after

    with basra_serve(tmp_path, "--db", db) as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        resumed_feed = steps.feed(match_id, token, Last_Event_ID=str(seen[-1]))
        final = _play_to_the_end(steps, match_id, token)
        resumed = resumed_feed.join(timeout=60)

    last = int(final["seq"])  # type: ignore[call-overload]
    assert [m.id for m in resumed] == list(range(seen[-1] + 1, last + 1))


def test_several_workers_need_postgresql(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "cli.main", "serve", "--workers", "2"]
    command += ["--db", str(tmp_path / "x.db"), "--port", str(free_port())]
    sqlite_only = {
        k: v for k, v in os.environ.items() if not k.startswith(("POSTGRES_", "BASRA_DATABASE"))
    }

    result = subprocess.run(
        command, capture_output=True, text=True, timeout=60, cwd=tmp_path, env=sqlite_only
    )

    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0
    assert "PostgreSQL" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_a_taken_port_is_refused_in_one_line_before_anything_starts(
    tmp_path: Path, server: str
) -> None:
    # given a port another process listens on
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "cli.main", "serve", "--db", str(tmp_path / "x.db")]
        command += ["--port", str(port), "--server", server]
        # when basra serve is started on it
        result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    # then it fails, saying so in one line, with no banner and no start-up
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert f"127.0.0.1:{port}" in result.stderr and "taken" in result.stderr
    assert "startup complete" not in result.stderr.lower() and "basra API on" not in result.stderr
    assert "Traceback" not in result.stderr


def test_a_support_token_shorter_than_32_characters_is_refused_at_start(tmp_path: Path) -> None:
    # given a support token of 31 characters
    command = [sys.executable, "-m", "cli.main", "serve", "--db", str(tmp_path / "x.db")]
    command += ["--port", str(free_port())]
    env = os.environ | {"BASRA_SUPPORT_TOKEN": "s" * 31}
    # when the server is started, then it refuses in one line, naming the minimum
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert "BASRA_SUPPORT_TOKEN" in result.stderr and "32" in result.stderr
    assert "Traceback" not in result.stderr and "s" * 31 not in result.stderr


@pytest.mark.postgres
def test_two_workers_on_postgresql_play_a_match_with_live_events(
    tmp_path: Path, pg_url: str
) -> None:
    served = basra_serve(tmp_path, "--workers", "2", "--database-url", pg_url)
    with served as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, token = steps.practice(seed="e2e-workers")
        feeds = [steps.feed(match_id, token) for _ in range(4)]  # spread over both workers
        final = _play_to_the_end(steps, match_id, token)
        results = [[m.id for m in feed.join(timeout=60)] for feed in feeds]

    assert all(ids == list(range(1, final["seq"] + 1)) for ids in results)  # type: ignore[operator]
