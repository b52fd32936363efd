"""Feeds at capacity: a slow consumer is cut off with bounded memory and resumes; every feed
gets every event in order under a burst, each redacted for its viewer (R23); a process that
sheds load answers 503 ``overloaded`` with ``Retry-After`` and changes nothing."""

from __future__ import annotations

import asyncio
import threading

import httpx
from litestar import Litestar
from litestar.testing import TestClient

from app.api.app import create_app
from app.api.live.feed import open_feed
from app.api.settings import ApiSettings
from app.runtime.broker import MAX_UNSENT_EVENTS
from app.runtime.runtime import ApiRuntime
from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import HttpSteps, SseReader, serving


def test_a_slow_consumer_is_cut_off_with_its_memory_bounded_and_resumes(
    api: Api, api_service: MatchService, api_settings: ApiSettings
) -> None:
    # Given a feed that has sent its backlog and then is not read any more
    match_id, token = api.practice(seed="slow-consumer")
    api.play(match_id, token, api.view(match_id, token)["hand"][0])
    stored = api_service.events(match_id)

    async def run() -> tuple[int, bool, int, int, list[int]]:
        runtime = ApiRuntime(api_service, api_settings)
        await runtime.start()
        try:
            feed = await open_feed(runtime, match_id, 0, 0)
            sent = [m.id async for m in _take(feed, len(stored) + 1) if m.id is not None]
            assert sent == [r.seq for r in stored]
            (subscription,) = runtime.broker._subs[match_id]
            # When 3,000 events are pushed for it meanwhile
            most = 0
            for _ in range(3 * MAX_UNSENT_EVENTS):
                runtime.broker.publish(match_id, stored[-1:])
                most = max(most, subscription.unsent)
            cut = subscription.overflowed
            # Then its feed ends at its next step (the client resumes with Last-Event-ID)
            ended = [m async for m in feed]
            assert ended == []
            resumed = await open_feed(runtime, match_id, 0, stored[-3].seq)
            again = [m.id async for m in _take(resumed, 3) if m.id is not None]
            await resumed.aclose()
            return most, cut, runtime.broker.cut_off, runtime.broker.open_streams, again
        finally:
            await runtime.stop()

    most, cut, cut_off, still_open, again = asyncio.run(run())

    assert cut and cut_off == 1
    assert most < MAX_UNSENT_EVENTS  # never more than the bound held for it
    assert still_open == 0
    assert again == [r.seq for r in stored[-2:]]


async def _take(feed, count: int):  # type: ignore[no-untyped-def]
    """The first ``count`` messages of ``feed`` (its opening comment included)."""
    for _ in range(count):
        yield await anext(feed)


def test_every_feed_gets_every_event_in_order_under_a_burst(api_app: Litestar) -> None:
    # Given four tables, each with its seat's feed twice and three spectators' feeds
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        tables = [steps.practice(seed=f"burst-{k}") for k in range(4)]
        readers = {
            match_id: (
                [steps.feed(match_id, token) for _ in range(2)],
                [_spectator(server.url, match_id) for _ in range(3)],
            )
            for match_id, token in tables
        }

        # When every table plays at once, as fast as it can, and then ends
        def play_out(match_id: str, token: str) -> None:
            with httpx.Client() as own:
                mine = HttpSteps(own, server.url)
                for _ in range(8):
                    mine.play_first_card(match_id, token)
                mine.leave(match_id, token)

        threads = [threading.Thread(target=play_out, args=table) for table in tables]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        stored = {m: [r.seq for r in api_app.state.runtime.service.events(m)] for m, _ in tables}
        got = {
            m: ([r.join() for r in seats], [r.join() for r in spectators])
            for m, (seats, spectators) in readers.items()
        }

    # Then every feed got every event, once, in order; each redacted for its viewer
    for match_id, (seat_feeds, spectator_feeds) in got.items():
        assert len(stored[match_id]) > 16
        for messages in seat_feeds + spectator_feeds:
            assert [m.id for m in messages] == stored[match_id]
        for messages in seat_feeds:
            deals = [m.data for m in messages if m.data and m.data["type"] == "cards_dealt"]
            assert deals and all(d["hands"][0] and d["hands"][1] is None for d in deals[:1])
        for messages in spectator_feeds:
            deals = [m.data for m in messages if m.data and m.data["type"] == "cards_dealt"]
            assert deals and all(h is None for h in deals[0]["hands"])


def _spectator(url: str, match_id: str) -> SseReader:
    """A started public feed (no token)."""
    return SseReader(f"{url}/matches/{match_id}/events", {}).start()


def test_an_overloaded_process_refuses_new_work_with_retry_after_and_changes_nothing(
    api_service: MatchService, api_settings: ApiSettings
) -> None:
    # Given a process that may hold one feed, with a table in play
    settings = ApiSettings(**{**api_settings.__dict__, "max_feeds": 1})
    app = create_app(api_service, settings=settings)
    with TestClient(app) as client:
        api = Api(client)
        match_id, token = api.practice(seed="shed")
        view_before = api.view(match_id, token)
        runtime: ApiRuntime = app.state.runtime
        held = runtime.broker.subscribe(match_id)  # the one feed it may hold, open
        position = api_service.store.max_position()

        # When new work comes: a table, a spectator's feed, a lobby read
        created = client.post("/matches", json={"ruleset": "classic", "seats": 2})
        spectator = client.get(f"/matches/{match_id}/events")
        lobby = client.get("/matches")
        refused_at = api_service.store.max_position()
        # ... and the tables already playing go on
        view = api.view(match_id, token)
        played = api.play(match_id, token, view["hand"][0])
        metrics = client.get("/metrics").text
        held.close()
        lobby_again = client.get("/matches")

    # Then the new work is refused early and cheaply, counted; the match state is unchanged
    for refused in (created, spectator, lobby):
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "5"
        assert refused.json()["error"]["code"] == "overloaded"
    assert view == view_before | {"after": view["after"]}
    assert played.status_code == 200
    assert refused_at == position  # nothing recorded for what was refused
    assert len(api_service.events(match_id)) > view_before["seq"]
    assert lobby_again.status_code == 200  # the feed closed: no longer overloaded
    for kind in ("table", "spectator_feed", "lobby"):
        assert f'basra_shed_total{{kind="{kind}"}}' in metrics


def test_a_seated_players_feed_and_play_are_never_shed() -> None:
    from app.api.edges.shedding import shed_kind

    def scope(method: str, path: str, headers=(), query=b""):  # type: ignore[no-untyped-def]
        return {
            "type": "http",
            "method": method,
            "path": path,
            "headers": list(headers),
            "query_string": query,
        }

    assert shed_kind(scope("POST", "/matches")) == "table"  # type: ignore[arg-type]
    assert shed_kind(scope("GET", "/matches/")) == "lobby"  # type: ignore[arg-type]
    assert shed_kind(scope("GET", "/matches/m1/events")) == "spectator_feed"  # type: ignore[arg-type]
    seat_feed = scope("GET", "/matches/m1/events", [(b"authorization", b"Bearer x")])
    assert shed_kind(seat_feed) is None  # type: ignore[arg-type]
    assert shed_kind(scope("GET", "/matches/m1/events", query=b"ticket=t")) is None  # type: ignore[arg-type]
    assert shed_kind(scope("GET", "/matches/m1/events", query=b"access_token=t")) is None  # type: ignore[arg-type]
    assert shed_kind(scope("POST", "/matches/m1/plays")) is None  # type: ignore[arg-type]
    assert shed_kind(scope("GET", "/matches/m1/view")) is None  # type: ignore[arg-type]
    assert shed_kind(scope("POST", "/matches/m1/seats/1")) is None  # type: ignore[arg-type]
