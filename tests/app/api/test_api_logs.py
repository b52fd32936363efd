"""The log filter: tokens are blanked wherever they appear in a record."""

from __future__ import annotations

import logging
from urllib.parse import quote, quote_plus

import pytest

from app.api.edges.logs import REDACTED, RedactTokens, configure_redaction, redact
from app.api.edges.tokens import issue_player_token, issue_token

SEAT_TOKEN = issue_token("m-0123456789abcdef", 1).token


@pytest.mark.parametrize(
    "line",
    [
        f"GET /matches/m-1/events?access_token={SEAT_TOKEN}&after=2 HTTP/1.1",
        f"GET /matches/m-1/events?after=2&ACCESS_TOKEN={SEAT_TOKEN} HTTP/1.1",
        f"Authorization: Bearer {SEAT_TOKEN}",
        f"refused {SEAT_TOKEN!r} somewhere",
        "GET /x?access_token=support-secret-for-tests",
    ],
)
def test_every_token_is_blanked(line: str) -> None:
    cleaned = redact(line)

    assert SEAT_TOKEN.rsplit(".", 1)[1] not in cleaned
    assert "support-secret-for-tests" not in cleaned
    assert REDACTED in cleaned


def test_a_line_without_a_token_is_unchanged() -> None:
    line = 'GET /matches/m-0123456789abcdef/events?after=2 HTTP/1.1" 200'

    assert redact(line) == line


def test_the_filter_rewrites_uvicorns_access_record() -> None:
    # given uvicorn's access record: (client, method, path with query, version, status)
    path = f"/matches/m-1/events?access_token={SEAT_TOKEN}"
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", path, "1.1", 200),
        None,
    )

    assert RedactTokens().filter(record)

    assert SEAT_TOKEN not in record.getMessage()
    assert "access_token=[redacted]" in record.getMessage()


PLAYER_TOKEN = issue_player_token("p-0123456789abcdef0123456789abcdef").token


@pytest.mark.parametrize(
    "line",
    [
        f"refused {PLAYER_TOKEN} somewhere",
        f"token={PLAYER_TOKEN!r}",
        f"{{'token': '{PLAYER_TOKEN}'}}",
        f"a player token {PLAYER_TOKEN}. The end",
    ],
)
def test_a_player_token_is_blanked_by_its_own_pattern_anywhere(line: str) -> None:
    # given a player token (player_PLAYER_ID.SECRET) with no Bearer or access_token= before it
    # when the line is cleaned
    cleaned = redact(line)

    # then nothing after the prefix survives, the secret after the dot least of all
    assert PLAYER_TOKEN.rsplit(".", 1)[1] not in cleaned
    assert "player_" + REDACTED in cleaned


def test_words_that_begin_like_a_prefix_are_not_tokens() -> None:
    line = "seat_taken player_seated ticket_used agent_revoked player_id"

    assert redact(line) == line


SUPPORT_SECRET = "Operator's support token: 32+ chars/&?"
PLAYER_TOKEN = issue_player_token("p-0123456789ab").token


@pytest.mark.parametrize(
    "line",
    [
        f"GET /m/events?access%5Ftoken={SEAT_TOKEN} HTTP/1.1",
        f"GET /m/events?%61ccess_token={PLAYER_TOKEN} HTTP/1.1",
        f"GET /m/events?after=1;%61ccess%5ftoken=%20{PLAYER_TOKEN} HTTP/1.1",
        f"GET /m/events?tick%65t=ticket_{'x' * 43} HTTP/1.1",
        f"GET /matches/{PLAYER_TOKEN.replace('_', '%5F')}/view HTTP/1.1",
        f"GET /matches/{quote(SUPPORT_SECRET, safe='')}/view HTTP/1.1",
        f'{{"path": "/matches/{SUPPORT_SECRET}/view"}}',
        f"GET /x?q={quote_plus(SUPPORT_SECRET)} HTTP/1.1",
    ],
)
def test_every_spelling_the_server_decodes_is_blanked(line: str) -> None:
    # given the server's support token configured for redaction
    configure_redaction(SUPPORT_SECRET)
    try:
        cleaned = redact(line)
    finally:
        configure_redaction(None)
    # then no token survives in any spelling
    for secret in (SEAT_TOKEN.rsplit(".", 1)[1], PLAYER_TOKEN.rsplit(".", 1)[1], "x" * 43):
        assert secret not in cleaned and quote(secret) not in cleaned
    assert SUPPORT_SECRET not in cleaned
    assert quote(SUPPORT_SECRET, safe="") not in cleaned
    assert quote_plus(SUPPORT_SECRET) not in cleaned
    assert REDACTED in cleaned
