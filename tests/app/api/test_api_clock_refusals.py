"""Bad input at the clock over HTTP (R25): a play at its deadline and a play after the timeout
are each a precise 409, and append nothing; the server's clock is driven by the test."""

from __future__ import annotations

import time

from app.service import MatchService
from domain.events import CardPlayed, MatchEnded
from domain.times import utc_micros, utc_text
from tests.app.api.conftest import Api
from tests.app.api.helpers import wait_until


def test_a_play_at_the_deadline_and_after_the_timeout_is_409_and_appends_nothing(
    api: Api, api_service: MatchService
) -> None:
    # given the server's clock held at T, and a 2-seat table of people with 30-second turns
    now = [time.time_ns() // 1_000_000]
    api_service.clock = lambda: utc_text(now[0])
    match_id = api.create(turn_seconds=30)["match_id"]
    tokens = [api.sit(match_id, 0, "Amal"), api.sit(match_id, 1, "Badr")]
    view = api.view(match_id, tokens[0])
    seat = view["turn"]
    token = tokens[seat]
    card = api.view(match_id, token)["hand"][0]
    deadline_ms = utc_micros(view["deadline"]) // 1000

    # when the clock reaches the deadline and the seat on turn plays
    now[0] = deadline_ms
    at_deadline = api.play(match_id, token, card)

    # then the play is refused (the clock acts for the seat: turn_expired, or match_ended if the
    # server's clock task got there first), and no card of that seat was appended
    code = at_deadline.json()["error"]["code"]
    assert (at_deadline.status_code, code in ("turn_expired", "match_ended")) == (409, True)
    plays = [r for r in api_service.events(match_id) if isinstance(r.event, CardPlayed)]
    assert plays == []

    # and once the clock has ended the match by timeout, a play is 409 match_ended
    wait_until(lambda: api_service.load(match_id).status == "ended", "the timeout")
    stream = api_service.events(match_id)
    ended = stream[-1].event
    assert isinstance(ended, MatchEnded) and (ended.reason, ended.seat) == ("timeout", seat)
    after_timeout = api.play(match_id, token, card)
    other = api.play(match_id, tokens[1 - seat], api.view(match_id, tokens[1 - seat])["hand"][0])
    assert (after_timeout.status_code, after_timeout.json()["error"]["code"]) == (
        409,
        "match_ended",
    )
    assert (other.status_code, other.json()["error"]["code"]) == (409, "match_ended")
    assert api_service.events(match_id) == stream
