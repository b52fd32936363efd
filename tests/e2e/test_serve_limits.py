"""End to end: ``basra serve``'s CORS, trusted-proxy and limit options reach a real server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests.e2e.test_serve import basra_serve

NEW_MATCH = {"ruleset": "classic", "seats": 2}


def test_serve_options_set_cors_the_client_address_and_the_limits(tmp_path: Path) -> None:
    served = basra_serve(
        tmp_path,
        "--db",
        str(tmp_path / "limits.db"),
        "--cors-origin",
        "https://play.example",
        "--trusted-proxy",
        "127.0.0.0/8",
        "--rate-limit",
        "matches=2/minute",
        env={"BASRA_RATE_LIMITS": "feeds=4"},
    )
    with served as url, httpx.Client(base_url=url, timeout=30) as http:
        # given two clients behind the same (trusted) proxy on 127.0.0.1
        one = {"X-Forwarded-For": "198.51.100.7", "Origin": "https://play.example"}
        two = {"X-Forwarded-For": "198.51.100.8"}

        # when the first creates three matches in a row, then the second one
        burst = [http.post("/matches", json=NEW_MATCH, headers=one) for _ in range(3)]
        other = http.post("/matches", json=NEW_MATCH, headers=two)

    # then only the first client's third is refused, and the allowed origin may read it
    assert [r.status_code for r in burst] == [201, 201, 429]
    assert burst[2].json()["error"]["code"] == "rate_limited"
    assert int(burst[2].headers["Retry-After"]) >= 1
    assert burst[2].headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert other.status_code == 201
    log = next(tmp_path.glob("serve-*.log")).read_text()
    assert "limits: players=20/hour,matches=2/minute,wrong_tokens=20/minute,feeds=4" in log
    assert "trusted proxies: 127.0.0.0/8" in log


def test_a_limit_written_wrong_stops_serve_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--rate-limit", "matches=lots"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: matches is written COUNT/UNIT (second, minute, hour or day), not 'lots'"
    ]
    assert not (tmp_path / "basra.db").exists()
