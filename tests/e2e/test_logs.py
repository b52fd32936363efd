"""No token reaches a log: ``basra serve --access-log`` as a real process, its log captured."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.app.api.helpers import HttpSteps, bearer
from tests.e2e.test_serve import SUPPORT, basra_serve

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_tokens_in_query_strings_and_headers_never_reach_the_access_log(
    tmp_path: Path, server: str
) -> None:
    pytest.importorskip(server)
    served = basra_serve(
        tmp_path, "--db", str(tmp_path / "logs.db"), "--access-log", "--server", server
    )
    with served as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, token = steps.practice(seed="logs")
        assert http.post(f"{url}/matches/{match_id}/leave", headers=bearer(token)).is_success
        events = f"{url}/matches/{match_id}/events"
        by_seat = http.get(f"{events}?access_token={token}&after=2")
        by_support = http.get(f"{events}?after=1&access_token={SUPPORT}")
        by_header = http.get(f"{url}/matches/{match_id}/view", headers=bearer(SUPPORT))
    log = "".join(p.read_text(errors="replace") for p in tmp_path.glob("serve-*.log"))

    assert f"/matches/{match_id}/events" in log  # the requests were logged...
    assert token not in log and token.rsplit(".", 1)[1] not in log  # ...without the tokens
    assert SUPPORT not in log
    assert by_seat.status_code == 200
    assert by_support.status_code == 401  # support's token is not taken from a query string
    assert by_header.status_code == 200
