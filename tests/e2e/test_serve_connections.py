"""End to end: connections that hold a socket for nothing are closed by ``basra serve``, counted.

A connection that never sends a request, or trickles its head a byte at a time, is closed once
the head's bound has passed (``BASRA_API_HEAD_SECONDS``, 1 s here), while the players' own
requests, and a kept-alive connection idle between its requests, are served as before.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.e2e.test_serve import basra_serve

HEAD_SECONDS = 1.0


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closed ``sock`` (EOF or reset) within ``within`` seconds."""
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def _closed_count(metrics: str, reason: str) -> float:
    found = re.search(
        rf'^basra_connections_closed_total\{{reason="{reason}"\}} (\S+)$', metrics, re.M
    )
    return float(found.group(1)) if found else 0.0


@pytest.mark.parametrize("http", ["httptools", "h11"])
def test_silent_and_trickling_connections_are_closed_and_counted_while_players_are_served(
    tmp_path: Path, http: str
) -> None:
    served = basra_serve(
        tmp_path,
        "--db",
        str(tmp_path / "conn.db"),
        "--http",
        http,
        env={"BASRA_API_HEAD_SECONDS": str(HEAD_SECONDS)},
    )
    with served as url, httpx.Client(base_url=url, timeout=30) as http_client:
        address = urlsplit(url)
        host, port = address.hostname or "127.0.0.1", address.port or 80
        # given 40 connections that send nothing and one that trickles its head
        silent = [socket.create_connection((host, port)) for _ in range(40)]
        trickling = socket.create_connection((host, port))
        trickling.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        # and a kept-alive client that made a request and then waits longer than the bound
        kept = httpx.Client(base_url=url, timeout=30)
        assert kept.get("/health").status_code == 200

        # when the bound passes (the trickler still sending a header byte every 0.2 s)
        started = time.monotonic()
        while time.monotonic() - started < HEAD_SECONDS + 1.0:
            try:
                trickling.sendall(b"X")
            except OSError:
                break
            time.sleep(0.2)

        # then a player's request is served meanwhile and after
        assert (
            http_client.post("/matches", json={"ruleset": "classic", "seats": 2}).status_code == 201
        )
        # the silent and trickling connections were closed by the server
        assert all(_closed_by_server(s, within=5.0) for s in silent)
        assert _closed_by_server(trickling, within=5.0)
        # the kept-alive connection was not (its idle time is the keep-alive's, 75 s)
        second = kept.get("/health")
        assert second.status_code == 200
        assert kept.get("/health").headers.get("connection", "keep-alive") != "close"
        # and each closing was counted, with the connections open now
        metrics = http_client.get("/metrics").text
        assert _closed_count(metrics, "slow_head") >= 41
        open_now = re.search(r"^basra_open_connections (\S+)$", metrics, re.M)
        assert open_now is not None and 1 <= float(open_now.group(1)) <= 5
        kept.close()
        for s in [*silent, trickling]:
            s.close()


def test_a_head_bound_written_wrong_stops_serve_with_one_line(tmp_path: Path) -> None:
    # given a head bound that is not a number, when serve starts
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--db", str(tmp_path / "x.db")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "BASRA_API_HEAD_SECONDS": "soon"},
    )
    # then it stops before serving, in one line
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: BASRA_API_HEAD_SECONDS is a number of seconds above 0, not 'soon'"
    ]
