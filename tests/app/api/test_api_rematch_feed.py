"""The live feed carries the rematch: a feed open when its match ends stays open for
``rematch_created`` (then ends), or for the rematch wait (then ends without it); a feed opened
after the end sends what is stored and ends at once."""

from __future__ import annotations

from dataclasses import replace

import httpx
from litestar import Litestar

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.service import MatchService
from tests.app.api.helpers import HttpSteps, SseMessage, SseReader, bearer, serving


class WholeFeed(SseReader):
    """Reads a feed until the server ends it (not only until ``match_ended``)."""

    def _done(self, message: SseMessage) -> bool:
        return False


def _types(messages: list[SseMessage]) -> list[str]:
    return [str(m.data["type"]) for m in messages if m.data is not None]


def test_a_feed_open_at_the_end_carries_the_rematch_live_then_ends(
    api_app: Litestar, api_service: MatchService
) -> None:
    with serving(api_app) as server, httpx.Client(timeout=10) as http:
        # given a practice match, its seat's feed and a spectator's feed open while it plays
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="rematch-live")
        url = f"{server.url}/matches/{match_id}/events"
        seat_feed = WholeFeed(url, bearer(token)).start()
        public_feed = WholeFeed(url, {}).start()
        seat_feed.wait_for(api_service.load(match_id).events)
        public_feed.wait_for(api_service.load(match_id).events)

        # when the seat leaves (the match ends), and then asks for a rematch
        steps.leave(match_id, token)
        ended_seq = api_service.load(match_id).events
        seat_feed.wait_for(ended_seq)
        public_feed.wait_for(ended_seq)
        answer = http.post(f"{server.url}/matches/{match_id}/rematch", headers=bearer(token))
        assert answer.status_code == 200, answer.text

        # then both feeds send rematch_created naming the new match, and end by themselves
        new_setup = api_service.load(answer.json()["match_id"]).setup
        assert new_setup is not None and new_setup.secret is not None
        for feed in (seat_feed, public_feed):
            messages = feed.join()
            assert _types(messages)[-2:] == ["match_ended", "rematch_created"]
            last = messages[-1]
            assert last.data is not None and last.data["match_id"] == answer.json()["match_id"]
            assert last.id == ended_seq + 1
            assert last.data["after"]["status"] == "ended"
            # no leak: the new match's secret (hidden until its own end) is in no message
            assert all(new_setup.secret.hex() not in m.raw for m in messages)


def test_a_feed_open_at_the_end_gives_up_after_the_rematch_wait(
    api_service: MatchService, api_settings: ApiSettings
) -> None:
    # given a server whose feeds wait half a second for a rematch
    app = create_app(api_service, settings=replace(api_settings, rematch_wait_seconds=0.5))
    with serving(app) as server, httpx.Client(timeout=10) as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="rematch-wait")
        feed = WholeFeed(f"{server.url}/matches/{match_id}/events", bearer(token)).start()
        feed.wait_for(api_service.load(match_id).events)

        # when the match ends and nobody asks for a rematch
        steps.leave(match_id, token)

        # then the feed ends after match_ended by itself (join waits on the server closing it)
        messages = feed.join(timeout=30)
    assert _types(messages)[-1] == "match_ended"
    assert api_service.load(match_id).rematch is None


def test_a_feed_opened_after_the_end_does_not_wait(
    api_app: Litestar, api_service: MatchService
) -> None:
    with serving(api_app) as server, httpx.Client(timeout=10) as http:
        # given a match that has ended, without a rematch
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed="rematch-after")
        steps.leave(match_id, token)

        # when a feed is opened on it, then it sends the stored events and ends at once
        # (the default rematch wait is 120 s; this read has 10 s)
        body = http.get(f"{server.url}/matches/{match_id}/events", headers=bearer(token)).text
    assert body.rstrip().endswith("}") and '"type":"match_ended"' in body
    assert api_service.load(match_id).rematch is None
