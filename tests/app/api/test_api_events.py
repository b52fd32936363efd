"""Live events over SSE: exactly what the seat may see, id = seq, resumable, pushed as appended."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from litestar import Litestar

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.service import MatchService
from domain.recorded import event_line
from tests.app.api.conftest import Api
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    HttpSteps,
    SseReader,
    bearer,
    parse_sse,
    serving,
    two_servers_on_postgresql,
    wait_until,
)


def _finish_by_leaving(api: Api, match_id: str, token: str) -> None:
    assert api.client.post(f"/matches/{match_id}/leave", headers=bearer(token)).status_code == 200


def test_the_feed_of_an_ended_match_is_every_event_as_the_seat_sees_it(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="feed")
    api.play(match_id, token, api.view(match_id, token)["hand"][0])
    _finish_by_leaving(api, match_id, token)

    response = api.client.get(f"/matches/{match_id}/events", headers=bearer(token))

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = [m for m in parse_sse(response.text) if m.data is not None]
    stored = api_service.events(match_id)
    assert [m.id for m in messages] == [r.seq for r in stored]
    assert [m.data["seq"] for m in messages if m.data] == [r.seq for r in stored]
    # The data line is the replay-file line for this seat (the match has ended: all open),
    # with the table after the event as one more field at its end.
    for message, recorded in zip(messages, stored, strict=True):
        line = message.raw.split("data: ", 1)[1].strip()
        assert line.startswith(event_line(recorded, 0, True).decode()[:-1] + ',"after":{')


def test_resuming_after_last_event_id_sends_exactly_the_rest(api: Api) -> None:
    match_id, token = api.practice(seed="resume")
    api.play(match_id, token, api.view(match_id, token)["hand"][0])
    _finish_by_leaving(api, match_id, token)
    everything = [
        m.id
        for m in parse_sse(
            api.client.get(f"/matches/{match_id}/events", headers=bearer(token)).text
        )
        if m.data
    ]

    rest = api.client.get(
        f"/matches/{match_id}/events", headers=bearer(token) | {"Last-Event-ID": "5"}
    )
    by_query = api.client.get(f"/matches/{match_id}/events?after=5", headers=bearer(token))
    last = {"Last-Event-ID": str(everything[-1])}
    at_end = api.client.get(f"/matches/{match_id}/events", headers=bearer(token) | last)

    assert [m.id for m in parse_sse(rest.text) if m.data] == everything[5:]
    assert [m.id for m in parse_sse(by_query.text) if m.data] == everything[5:]
    assert [m for m in parse_sse(at_end.text) if m.data] == []


def test_the_live_feed_pushes_each_play_as_it_is_appended(
    api_app: Litestar, api_service: MatchService
) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="live")
        reader = steps.feed(match_id, token)
        support = steps.feed(match_id, SUPPORT_TOKEN)

        view = steps.view(match_id, token)
        for _ in range(6):
            played = steps.play(match_id, token, view["hand"][0]).json()
            reader.wait_for(played["seq"])  # pushed as appended, before the next play
            view = played["view"]
        steps.leave(match_id, token)
        messages = reader.join()
        support_messages = support.join()

    seqs = [r.seq for r in api_service.events(match_id)]
    assert [m.id for m in messages] == seqs  # nothing lost, nothing repeated
    assert [m.id for m in support_messages] == seqs


def test_an_append_by_another_process_reaches_an_open_feed(api_app: Litestar, api_db: Path) -> None:
    other = MatchService.open(api_db)  # another API process (or a CLI) on the same store
    try:
        with serving(api_app) as server, httpx.Client() as http:
            steps = HttpSteps(http, server.url)
            match_id, token = steps.practice(seed="cross")
            reader = steps.feed(match_id, token)
            other.leave(match_id, 0)
            messages = reader.join(timeout=10)
    finally:
        other.close()

    last = messages[-1]
    assert last.data is not None and last.data["type"] == "match_ended"
    assert [m.id for m in messages] == list(range(1, len(messages) + 1))


def test_a_client_resumes_after_the_server_restarts(
    api_service: MatchService, api_settings: ApiSettings, api_db: Path
) -> None:
    with serving(create_app(api_service, settings=api_settings)) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="restart")
        reader = steps.feed(match_id, token)
        played = steps.view(match_id, token)["seq"]
        steps.play_first_card(match_id, token)
        after = steps.view(match_id, token)["seq"]
        reader.wait_for(after)
        assert after > played
    # The server stopped mid-match: it ended the feed cleanly.
    seen = [m.id for m in reader.join() if m.id is not None]
    assert seen and seen == list(range(1, seen[-1] + 1))

    restarted = MatchService.open(api_db)
    try:
        app = create_app(restarted, settings=api_settings)
        with serving(app) as server, httpx.Client() as http:
            steps = HttpSteps(http, server.url)
            steps.play_first_card(match_id, token)
            steps.leave(match_id, token)
            resumed = steps.feed(match_id, token, Last_Event_ID=str(seen[-1])).join()
        total = len(restarted.events(match_id))
    finally:
        restarted.close()

    assert [m.id for m in resumed] == list(range(seen[-1] + 1, total + 1))


def test_many_feeds_at_once_each_get_everything(api_app: Litestar) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="fan-out")
        readers = [steps.feed(match_id, token) for _ in range(20)]
        for _ in range(3):
            steps.play_first_card(match_id, token)
        last = steps.leave(match_id, token)["seq"]
        results = [[m.id for m in r.join()] for r in readers]

    assert all(ids == list(range(1, last + 1)) for ids in results)


@pytest.mark.postgres
def test_two_api_processes_on_postgresql_share_live_events(
    pg_url: str, api_settings: ApiSettings
) -> None:
    with two_servers_on_postgresql(pg_url, api_settings) as (_, a, b), httpx.Client() as http:
        at_a, at_b = HttpSteps(http, a.url), HttpSteps(http, b.url)
        match_id = at_a.create(bots=[1], seed="pg")["match_id"]
        token = at_b.sit(match_id, 0)
        reader = at_a.feed(match_id, token)  # the feed on one process, plays on the other
        for _ in range(3):
            at_b.play_first_card(match_id, token)
        last = at_b.leave(match_id, token)["seq"]
        messages = reader.join(timeout=15)

    assert [m.id for m in messages] == list(range(1, last + 1))


def test_a_feed_is_closed_when_the_client_goes_away(api_app: Litestar) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="goes-away")
        runtime = api_app.state.runtime
        url = f"{server.url}/matches/{match_id}/events"
        with http.stream("GET", url, headers=bearer(token)) as stream:
            lines = stream.iter_lines()  # kept: dropping the iterator closes the stream
            next(lines)
            assert runtime.broker.open_streams == 1
        wait_until(lambda: runtime.broker.open_streams == 0, "the server to close the feed")

        assert runtime.broker.open_streams == 0


def test_a_browser_feed_may_carry_its_token_in_the_query(api: Api) -> None:
    match_id, token = api.practice(seed="event-source")
    _finish_by_leaving(api, match_id, token)

    by_query = api.client.get(f"/matches/{match_id}/events?access_token={token}&after=3")
    wrong = api.client.get(f"/matches/{match_id}/events?access_token=nonsense")

    assert by_query.status_code == 200
    assert next(m.id for m in parse_sse(by_query.text) if m.data) == 4
    assert wrong.status_code == 401


def test_a_quiet_feed_sends_keepalive_comments(api_app: Litestar) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="keepalive")
        reader = steps.feed(match_id, token)
        # The test settings send a keep-alive after 1 s of quiet: wait for it, however long.
        wait_until(
            lambda: any(m.data is None and "keepalive" in m.raw for m in reader.messages),
            "a keep-alive comment",
        )
        steps.leave(match_id, token)
        reader.join()

    comments = [m.raw for m in reader.messages if m.data is None]
    assert any("keepalive" in raw for raw in comments)


def test_a_feed_opened_on_a_table_set_up_here_does_not_read_the_store_again(
    api_service: MatchService, api_settings: ApiSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a table set up by this process while nobody watched it (created, seated, dealt),
    # its feed opened before the log's follower (every second) passed those appends
    settings = ApiSettings(**{**api_settings.__dict__, "follow_every_seconds": 1.0})
    api_app = create_app(api_service, settings=settings)
    reads: list[tuple[str, int]] = []
    events = api_service.events

    def counted(match_id: str, after_seq: int = 0) -> list[object]:
        reads.append((match_id, after_seq))
        return events(match_id, after_seq)  # type: ignore[return-value]

    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="quiet-setup")
        monkeypatch.setattr(api_service, "events", counted)
        # when a spectator's feed opens and the log's follower passes the table's appends
        reader = SseReader(f"{server.url}/matches/{match_id}/events", {}).start()
        wait_until(lambda: len(reader.messages) >= 2, "the backlog on the feed")
        time.sleep(2.5)  # the follower passed the appends
        opened_reads = list(reads)
        # and a play is made here afterwards
        played = steps.play_first_card(match_id, token)
        reader.wait_for(played["seq"])
        steps.leave(match_id, token)
        messages = reader.join()

    # then the feed read the store once, to open; the follower did not wake it to read again
    assert opened_reads == [(match_id, 0)]
    # and it still got every event, in order
    assert [m.id for m in messages] == [r.seq for r in api_service.events(match_id)]
