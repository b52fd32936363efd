"""Connected now across two `basra serve` processes on one PostgreSQL database: a seat's feed on
one process connects that seat in the other's views and feeds, and a process killed with SIGKILL
stops counting once its heartbeat expires (docs/api.md, "Connected now")."""

from __future__ import annotations

import contextlib
import signal
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.app.api.helpers import HttpSteps, SseReader, bearer, wait_until
from tests.e2e.test_serve import serve_process

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

PRESENCE_ENV = {"BASRA_PRESENCE_BEAT_SECONDS": "0.5", "BASRA_PRESENCE_EXPIRY_SECONDS": "3"}
"""A short heartbeat and expiry, so that a killed process is gone within seconds (the follower
reads every 1 s, the default)."""

A_FEW_SECONDS = 10.0
"""How long another process may take to see a change: the follower reads every second."""


def test_a_feed_on_one_process_connects_its_seat_on_the_other_until_that_process_dies(
    tmp_path: Path, pg_url: str
) -> None:
    with ExitStack() as stack, httpx.Client(timeout=30) as http:
        served = []
        for name in ("a", "b"):
            folder = tmp_path / name
            folder.mkdir()
            served.append(
                stack.enter_context(
                    serve_process(folder, "--database-url", pg_url, env=PRESENCE_ENV)
                )
            )
        (a, process_a), (b, _process_b) = served
        at_a, at_b = HttpSteps(http, a), HttpSteps(http, b)
        match_id = str(at_a.create(seed="pg-presence")["match_id"])
        tokens = [at_a.sit(match_id, 0), at_b.sit(match_id, 1, "Badr")]

        def connected_at_b() -> list[bool]:
            body = http.get(f"{b}/matches/{match_id}").json()
            return list(body["connected"])

        def feed(url: str, token: str) -> SseReader:
            reader = SseReader(f"{url}/matches/{match_id}/events", bearer(token)).start()
            wait_until(lambda: bool(reader.messages), "the feed's first line")
            return reader

        def opened_on_a(streams: ExitStack, token: str) -> None:
            """A feed of ``token`` on A, open until ``streams`` closes (once its first line
            came: the server holds it open)."""
            url = f"{a}/matches/{match_id}/events"
            response = streams.enter_context(http.stream("GET", url, headers=bearer(token)))
            assert response.status_code == 200
            next(streams.enter_context(contextlib.closing(response.iter_lines())))

        def told(reader: SseReader, expected: list[bool]) -> None:
            wait_until(
                lambda: [d["connected"] for d in reader.presence()][-1:] == [expected],
                f"presence {expected} on process B's feed",
                timeout=A_FEW_SECONDS,
            )

        # given seat 1's feed open on process B
        at_b_feed = feed(b, tokens[1])
        assert connected_at_b() == [False, True]
        # when seat 0 opens its feed on process A
        with ExitStack() as feed_on_a:
            opened_on_a(feed_on_a, tokens[0])
            # then within a few seconds B's feed is told, and B's views show seat 0 connected
            told(at_b_feed, [True, True])
            wait_until(lambda: connected_at_b() == [True, True], "B's table", timeout=A_FEW_SECONDS)
            assert at_b.view(match_id, tokens[1])["connected"] == [True, True]
        # when the feed on A closes (the client goes away)
        # then B sees seat 0 go
        told(at_b_feed, [False, True])
        assert connected_at_b() == [False, True]
        # when seat 0 opens a feed on A again, and A is killed with SIGKILL (no clean stop)
        opened_on_a(stack, tokens[0])
        told(at_b_feed, [True, True])
        process_a.send_signal(signal.SIGKILL)
        process_a.wait(15)
        # then seat 0 counts as gone once A's heartbeat expires (3 s here)
        told(at_b_feed, [False, True])
        assert connected_at_b() == [False, True]
        # and every presence message B's feed got is the flags and the time, nothing else
        presence = at_b_feed.presence()
        assert len(presence) == 4
        assert all(set(data) == {"connected", "now"} for data in presence)
