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


@pytest.mark.parametrize("log_format", ["text", "json"])
@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_no_spelling_of_a_token_reaches_either_log_format_of_either_server(
    tmp_path: Path, server: str, log_format: str
) -> None:
    pytest.importorskip(server)
    served = basra_serve(
        tmp_path,
        "--db",
        str(tmp_path / "logs.db"),
        "--access-log",
        "--log-format",
        log_format,
        "--server",
        server,
    )
    with served as url, httpx.Client() as http:
        # given a seat's token, a player's token, a ticket and the support token
        steps = HttpSteps(http, url)
        match_id, token = steps.practice(seed="log-spellings")
        player = http.post(f"{url}/players", json={"name": "Noor"}).json()["token"]
        ticket = http.post(f"{url}/matches/{match_id}/tickets", headers=bearer(token))
        assert ticket.status_code == 201, ticket.text
        assert http.post(f"{url}/matches/{match_id}/leave", headers=bearer(token)).is_success
        events = f"{url}/matches/{match_id}/events"
        # when each is sent under a spelling the server decodes, or pasted into a path
        answers = {
            "seat, %5F": http.get(f"{events}?access%5Ftoken={token}"),
            "seat, %61": http.get(f"{events}?%61ccess_token={token}&after=1"),
            "player, %5F": http.get(f"{events}?access%5Ftoken={player}"),
            "player, %61": http.get(f"{events}?%61ccess_token=%20{player}"),
            "support, %61": http.get(f"{events}?%61ccess_token={SUPPORT}"),
            "support, %5F": http.get(f"{events}?access%5Ftoken={SUPPORT}"),
            "support in a path": http.get(f"{url}/matches/{SUPPORT}/view"),
            "ticket, %65": http.get(f"{events}?tick%65t={ticket.json()['ticket']}"),
            "wrong seat token, 401": http.get(f"{events}?access%5Ftoken={token[:-4]}AAAA"),
        }
    log = "".join(p.read_text(errors="replace") for p in tmp_path.glob("serve-*.log"))
    # then the requests were logged, and no token in any spelling was
    assert f"/matches/{match_id}/events" in log
    secrets = {
        "seat": token.rsplit(".", 1)[1],
        "player": player.rsplit(".", 1)[1],
        "ticket": ticket.json()["ticket"].removeprefix("ticket_"),
        "support": SUPPORT,
    }
    for name, secret in secrets.items():
        assert secret[:16] not in log, name
    assert answers["seat, %5F"].status_code == 200
    assert answers["player, %5F"].status_code == 401
    assert answers["support, %61"].status_code == 401
    assert answers["ticket, %65"].status_code == 200
    assert answers["wrong seat token, 401"].status_code == 401
