"""Connected now (docs/api.md): a seat is connected while a feed opened as that seat is open on
any server process; views say so in ``connected``, feed messages in ``after.connected``, and
every open feed of the match is sent ``event: presence`` when a flag changes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from litestar import Litestar
from typer.testing import CliRunner

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.runtime.runtime import ApiRuntime
from app.service import MatchService
from cli.main import app as cli_app
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    HttpSteps,
    SseReader,
    ThreadServer,
    bearer,
    serving,
    wait_until,
)

EXPIRY = 30.0


@pytest.fixture
def presence_app(api_service: MatchService, api_settings: ApiSettings) -> Litestar:
    """The app, reading the other processes' presence rows every 50 ms (keep-alives every
    0.3 s: a client that goes away is noticed at the next one)."""
    settings = dataclasses.replace(
        api_settings,
        presence_follow_seconds=0.05,
        presence_expiry_seconds=EXPIRY,
        keepalive_seconds=0.3,
    )
    return create_app(api_service, settings=settings)


class Table:
    """A two-seat table of people on a served app, and what anyone can read of it."""

    def __init__(self, server: ThreadServer, http: httpx.Client) -> None:
        self.url = server.url
        self.http = http
        self.steps = HttpSteps(http, server.url)
        self.match_id = str(self.steps.create(seed="presence")["match_id"])
        self.tokens = [self.steps.sit(self.match_id, 0, "Amal"), self.steps.sit(self.match_id, 1)]
        self.bodies: list[str] = []

    def connected(self) -> list[bool]:
        """``connected`` of ``GET /matches/{id}`` (no token: a spectator's question)."""
        response = self.http.get(f"{self.url}/matches/{self.match_id}")
        assert response.status_code == 200, response.text
        self.bodies.append(response.text)
        body = response.json()
        assert body["connected"] == body["after"]["connected"]
        return list(body["connected"])

    def feed(self, token: str | None) -> SseReader:
        """An open feed: a seat's (its token), support's, or a spectator's (None); returned once
        the server is streaming it (its first comment arrived)."""
        url = f"{self.url}/matches/{self.match_id}/events"
        reader = SseReader(url, bearer(token) if token else {}).start()
        wait_until(lambda: bool(reader.messages), "the feed's first line")
        return reader


def flags(reader: SseReader) -> list[list[bool]]:
    """The ``connected`` of each presence message the feed was sent so far."""
    return [list(data["connected"]) for data in reader.presence()]


def told(reader: SseReader, expected: list[bool]) -> None:
    """Wait until the feed's latest presence message says ``expected``."""
    wait_until(lambda: flags(reader)[-1:] == [expected], f"presence {expected} on the feed")


@contextmanager
def served_table(app: Litestar) -> Iterator[tuple[Table, ApiRuntime]]:
    """A fresh two-seat table on the app, served over real HTTP."""
    with serving(app) as server, httpx.Client(timeout=30) as http:
        runtime = app.state.runtime
        assert isinstance(runtime, ApiRuntime)
        yield Table(server, http), runtime


def test_a_seat_feed_connects_its_seat_in_views_and_every_feed_of_the_match_is_told(
    presence_app: Litestar,
) -> None:
    with served_table(presence_app) as (table, runtime):
        # given a spectator's feed and support's feed open on a table nobody's seat watches
        spectator = table.feed(None)
        support = table.feed(SUPPORT_TOKEN)
        assert runtime.broker.open_streams == 2
        # then neither connects any seat
        assert table.connected() == [False, False]
        # when seat 0 opens its feed
        seat0 = table.feed(table.tokens[0])
        # then the table shows seat 0 connected, and the feeds already open are told at once
        assert table.connected() == [True, False]
        told(spectator, [True, False])
        told(support, [True, False])
        # when seat 1 opens its feed too
        seat1 = table.feed(table.tokens[1])
        told(seat0, [True, True])
        told(spectator, [True, True])
        # then every view says so: the seat's, support's, and the answer to a play
        view = table.steps.view(table.match_id, table.tokens[0])
        assert view["connected"] == view["after"]["connected"] == [True, True]
        support_view = table.steps.view(table.match_id, SUPPORT_TOKEN)
        assert support_view["connected"] == [True, True]
        on_turn = view["after"]["turn"]
        token = table.tokens[on_turn]
        played = table.steps.play(
            table.match_id, token, table.steps.view(table.match_id, token)["hand"][0]
        )
        assert played.status_code == 200, played.text
        answer = played.json()["view"]
        assert answer["connected"] == answer["after"]["connected"] == [True, True]
        # and the play's message on a feed carries the flags in its after
        seat0.wait_for(answer["seq"])
        message = next(m for m in list(seat0.messages) if m.id == answer["seq"])
        assert message.data is not None and message.data["after"]["connected"] == [True, True]
        # when seat 1's feed closes (the client goes away)
        seat1.close()
        # then seat 1 is no longer connected, and the other feeds are told
        told(seat0, [True, False])
        told(spectator, [True, False])
        assert table.connected() == [True, False]
        # when seat 0's feed closes as well
        seat0.close()
        told(spectator, [False, False])
        assert table.connected() == [False, False]
        spectator.close()
        support.close()
        wait_until(lambda: runtime.broker.open_streams == 0, "every feed to end")
        # and the presence messages were exactly the changes, with no id, flags and now only
        assert flags(spectator) == [[True, False], [True, True], [True, False], [False, False]]
        for message in spectator.messages:
            if message.event == "presence":
                assert message.id is None and "id:" not in message.raw
                assert message.data is not None and set(message.data) == {"connected", "now"}
        # and nothing anyone read names the process holding a feed
        everything = [*table.bodies, *(m.raw for m in spectator.messages + seat0.messages)]
        assert all(runtime.presence.process not in text for text in everything)


def test_another_process_row_connects_a_seat_until_its_heartbeat_expires(
    presence_app: Litestar, api_service: MatchService
) -> None:
    backend = api_service.store.backend
    with served_table(presence_app) as (table, _runtime):
        # given seat 0's feed open here
        seat0 = table.feed(table.tokens[0])
        assert table.connected() == [True, False]
        # when another process holds a feed of seat 1 (its row in the store, beating now)
        backend.presence_write("another-process", [(table.match_id, 1)], [], time.time())
        # then this process's follower wakes seat 0's feed, and the table shows seat 1
        told(seat0, [True, True])
        wait_until(lambda: table.connected() == [True, True], "seat 1 connected")
        # when that process stops beating: its last beat older than the expiry (it crashed)
        backend.presence_write(
            "another-process", [(table.match_id, 1)], [], time.time() - 2 * EXPIRY
        )
        # then seat 1 counts as gone, on the feed and in the table
        told(seat0, [True, False])
        wait_until(lambda: table.connected() == [True, False], "seat 1 gone")
        seat0.close()


def test_a_stopping_server_deletes_its_rows_and_a_live_one_keeps_them(
    presence_app: Litestar, api_service: MatchService
) -> None:
    backend = api_service.store.backend

    def held(match_id: str) -> dict[str, Any]:
        found = backend.presence_seats([match_id], "someone-else", time.time() - EXPIRY)
        return {k: sorted(v) for k, v in found.items()}

    with served_table(presence_app) as (table, _runtime):
        # given seat 1's feed open on this server
        table.feed(table.tokens[1])
        # then its row is in the store, for the other processes to see
        wait_until(lambda: held(table.match_id) == {table.match_id: [1]}, "seat 1's row")
        match_id = table.match_id
    # when the server stops with the feed still open, then its rows are gone
    assert held(match_id) == {}


def test_a_players_ticket_feed_connects_their_seat_until_their_token_is_replaced(
    presence_app: Litestar,
) -> None:
    with serving(presence_app) as server, httpx.Client(timeout=30) as http:
        url = server.url
        steps = HttpSteps(http, url)
        # given a registered player seated at seat 0 of a table (seat 1 a bot)
        registered = http.post(f"{url}/players", json={"name": "Noor"})
        assert registered.status_code == 201, registered.text
        token = str(registered.json()["token"])
        match_id = str(steps.create(bots=[1], seed="presence-player")["match_id"])
        seated = http.post(f"{url}/matches/{match_id}/seats/0", headers=bearer(token))
        assert seated.status_code == 201, seated.text

        def connected() -> list[bool]:
            return list(http.get(f"{url}/matches/{match_id}").json()["connected"])

        # when the player's browser opens the feed with a ticket
        asked = http.post(f"{url}/matches/{match_id}/tickets", headers=bearer(token))
        assert asked.status_code == 201, asked.text
        feed_url = f"{url}/matches/{match_id}/events?ticket={asked.json()['ticket']}"
        feed = SseReader(feed_url, {}).start()
        wait_until(lambda: bool(feed.messages), "the feed's first line")
        # then the player's seat is connected
        assert connected() == [True, False]
        # when the player replaces their token (the feed's credential no longer holds)
        rotated = http.post(f"{url}/players/me/token", headers=bearer(token))
        assert rotated.status_code in (200, 201), rotated.text
        # then the feed ends, and with it the seat's connection
        feed.join(30)
        wait_until(lambda: connected() == [False, False], "seat 0 no longer connected")


def test_the_presence_settings_are_read_from_the_environment_and_checked() -> None:
    # given the three settings in the environment
    read = ApiSettings.from_env(
        {
            "BASRA_PRESENCE_FOLLOW_SECONDS": "0.25",
            "BASRA_PRESENCE_BEAT_SECONDS": "2",
            "BASRA_PRESENCE_EXPIRY_SECONDS": "12",
        }
    )
    # then they are the settings, and unset they are 1, 5 and 30 seconds
    assert (read.presence_follow_seconds, read.presence_beat_seconds) == (0.25, 2.0)
    assert read.presence_expiry_seconds == 12.0
    default = ApiSettings.from_env({})
    assert (default.presence_follow_seconds, default.presence_beat_seconds) == (1.0, 5.0)
    assert default.presence_expiry_seconds == 30.0
    # and a heartbeat no more often than its expiry, or a number of seconds that is none, is
    # refused before anything starts
    with pytest.raises(ValueError, match="BASRA_PRESENCE_BEAT_SECONDS"):
        ApiSettings.from_env({"BASRA_PRESENCE_EXPIRY_SECONDS": "5"})
    with pytest.raises(ValueError, match="BASRA_PRESENCE_FOLLOW_SECONDS"):
        ApiSettings.from_env({"BASRA_PRESENCE_FOLLOW_SECONDS": "soon"})


def test_basra_serve_refuses_contradicting_presence_settings_in_one_line() -> None:
    # when the server is started with a heartbeat slower than its expiry
    result = CliRunner().invoke(
        cli_app, ["serve", "--port", "0"], env={"BASRA_PRESENCE_BEAT_SECONDS": "40"}
    )
    # then it refuses in one line, naming the settings
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "BASRA_PRESENCE_BEAT_SECONDS (40.0)" in lines[0], lines
