"""Revoking closes every door at once: tickets and open feeds die with their credential.

A ticket records which credential asked for it (an id, never the token) and is refused when
that credential no longer holds as the store says at redemption; a feed already open for a
revoked agent or a replaced player token ends within ``RECHECK_SECONDS``. Revocations made
through another process count, since every check reads the store.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from app.api.app import create_app
from app.api.edges.credentials import RECHECK_SECONDS
from app.api.edges.tokens import AGENT_PREFIX, issue_prefixed
from app.api.settings import ApiSettings
from app.service import MatchService
from app.service.access import AccessService
from tests.app.api.helpers import HttpSteps, SseReader, bearer, serving, two_servers_on_postgresql

CLOSE_WITHIN = 2 * RECHECK_SECONDS + 3
"""Seconds a feed may stay open after its credential was revoked (one check period, its
wait for the next event, and slack for a busy machine)."""


def _agent(access: AccessService, name: str) -> str:
    token, token_hash = issue_prefixed(AGENT_PREFIX)
    access.add_agent(name, token_hash)
    return token


def _ticket(http: httpx.Client, url: str, match_id: str, token: str) -> str:
    answer = http.post(f"{url}/matches/{match_id}/tickets", headers=bearer(token))
    assert answer.status_code == 201, answer.text
    return str(answer.json()["ticket"])


def _player_at_a_table(steps: HttpSteps) -> tuple[str, str]:
    """A registered player seated at a practice table still playing: (match id, token)."""
    registered = steps.http.post(f"{steps.url}/players", json={"name": "Noor"})
    assert registered.status_code == 201, registered.text
    token = str(registered.json()["token"])
    match_id = str(steps.create(bots=[1], seed="revocation-player")["match_id"])
    seated = steps.http.post(f"{steps.url}/matches/{match_id}/seats/0", headers=bearer(token))
    assert seated.status_code == 201, seated.text
    return match_id, token


def _redeem(http: httpx.Client, url: str, match_id: str, ticket: str) -> tuple[int, str]:
    """Open the feed with ``ticket``: its status and, when refused, its error code (an accepted
    feed is closed at once instead of read: it would not end)."""
    with http.stream("GET", f"{url}/matches/{match_id}/events", params={"ticket": ticket}) as r:
        if r.status_code == 200:
            return 200, ""
        r.read()
        return r.status_code, str(r.json()["error"]["code"])


@contextmanager
def _one_server(service: MatchService, settings: ApiSettings) -> Iterator[tuple[str, Any]]:
    with serving(create_app(service, settings=settings)) as server:
        yield server.url, server


def _closes(feed: SseReader) -> float:
    """Seconds until ``feed`` ends (AssertionError past ``CLOSE_WITHIN``)."""
    started = time.monotonic()
    feed.join(CLOSE_WITHIN)
    return time.monotonic() - started


def test_a_revoked_agents_ticket_is_refused_and_its_open_feed_closes(
    api_service: MatchService, api_settings: ApiSettings
) -> None:
    with _one_server(api_service, api_settings) as (url, _), httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, _ = steps.practice(seed="revoked-agent")
        access = AccessService(api_service.store)
        token = _agent(access, "omar")
        # given a ticket the agent asked for, and a feed it has open
        ticket = _ticket(http, url, match_id, token)
        feed = SseReader(f"{url}/matches/{match_id}/events", bearer(token)).start()
        # when the agent is revoked (as `basra support revoke` would, from another process)
        other = api_service.store.reopen()
        try:
            AccessService(other).revoke_agent("omar")
        finally:
            other.close()
        # then the ticket is refused, and the open feed ends
        assert _redeem(http, url, match_id, ticket) == (401, "agent_revoked")
        assert _closes(feed) < CLOSE_WITHIN
        assert feed.status == 200


def test_a_players_ticket_and_feed_die_when_the_player_rotates_their_token(
    api_service: MatchService, api_settings: ApiSettings
) -> None:
    with _one_server(api_service, api_settings) as (url, _), httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, token = _player_at_a_table(steps)
        # given a ticket the player asked for, one feed opened by a ticket and one by the token
        ticket = _ticket(http, url, match_id, token)
        by_ticket = SseReader(
            f"{url}/matches/{match_id}/events?ticket={_ticket(http, url, match_id, token)}", {}
        ).start()
        by_token = SseReader(f"{url}/matches/{match_id}/events", bearer(token)).start()
        # when the player replaces their token
        rotated = http.post(f"{url}/players/me/token", headers=bearer(token))
        assert rotated.status_code in (200, 201), rotated.text
        new_token = rotated.json()["token"]
        # then the old token's ticket is refused, and both open feeds end
        assert _redeem(http, url, match_id, ticket) == (401, "unknown_token")
        assert _closes(by_ticket) < CLOSE_WITHIN
        assert _closes(by_token) < CLOSE_WITHIN
        # and the new token's ticket works
        fresh = _ticket(http, url, match_id, new_token)
        assert (
            SseReader(f"{url}/matches/{match_id}/events?ticket={fresh}", {}).start().status == 200
        )


def test_a_seats_ticket_and_feed_are_not_touched_by_rechecks(
    api_service: MatchService, api_settings: ApiSettings
) -> None:
    with _one_server(api_service, api_settings) as (url, _), httpx.Client() as http:
        steps = HttpSteps(http, url)
        match_id, token = steps.practice(seed="seat-feed")
        # given a seat's feed open longer than a recheck period
        feed = SseReader(f"{url}/matches/{match_id}/events", bearer(token), stop_after=None).start()
        time.sleep(RECHECK_SECONDS + 0.5)
        # when the seat leaves, then the feed carries the end: it was never closed early
        assert http.post(f"{url}/matches/{match_id}/leave", headers=bearer(token)).is_success
        events = feed.join(30)
        assert events[-1].data is not None and events[-1].data["type"] == "match_ended"


@pytest.mark.postgres
def test_a_revocation_on_one_process_closes_the_doors_on_the_other(
    pg_url: str, api_settings: ApiSettings
) -> None:
    with two_servers_on_postgresql(pg_url, api_settings) as (one, a, b), httpx.Client() as http:
        steps = HttpSteps(http, a.url)
        match_id, _ = steps.practice(seed="revoked-across")
        token = _agent(AccessService(one.store), "lina")
        # given a ticket asked for on process B and a feed open on process A
        ticket = _ticket(http, b.url, match_id, token)
        feed = SseReader(f"{a.url}/matches/{match_id}/events", bearer(token)).start()
        # when the agent is revoked through another connection to the database (process B's
        # side, or the CLI)
        other = one.store.reopen()
        try:
            AccessService(other).revoke_agent("lina")
        finally:
            other.close()
        # then process A refuses B's ticket and closes its own feed
        assert _redeem(http, a.url, match_id, ticket) == (401, "agent_revoked")
        assert _closes(feed) < CLOSE_WITHIN
