"""Feed tickets: one feed of one match within 60 s, as whoever asked; never another seat's cards."""

from __future__ import annotations

from datetime import timedelta

from litestar import Litestar
from litestar.testing import TestClient

from app.runtime.runtime import ApiRuntime
from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    SseReader,
    bearer,
    cards_in,
    parse_sse,
    serving,
    timeless,
)
from tests.app.test_access_service import FakeClock


def _runtime(client: TestClient[Litestar]) -> ApiRuntime:
    runtime = client.app.state.runtime
    assert isinstance(runtime, ApiRuntime)
    return runtime


def _ended_match(api: Api, seed: str) -> tuple[str, str]:
    match_id, token = api.practice(seed=seed)
    assert api.client.post(f"/matches/{match_id}/leave", headers=bearer(token)).status_code == 200
    return match_id, token


def _ticket(api: Api, match_id: str, token: str) -> str:
    response = api.client.post(f"/matches/{match_id}/tickets", headers=bearer(token))
    assert response.status_code == 201, response.text
    assert set(response.json()) == {"ticket"}
    return str(response.json()["ticket"])


def _feed(api: Api, match_id: str, ticket: str) -> tuple[int, dict[str, object] | str]:
    response = api.client.get(f"/matches/{match_id}/events", params={"ticket": ticket})
    if response.status_code != 200:
        return response.status_code, dict(response.json()["error"])
    return 200, response.text


def test_a_seats_ticket_opens_that_seats_feed_once(api: Api) -> None:
    match_id, token = _ended_match(api, "ticket-once")
    ticket = _ticket(api, match_id, token)
    assert ticket.startswith("ticket_")

    status, text = _feed(api, match_id, ticket)
    again = _feed(api, match_id, ticket)

    assert status == 200
    by_token = api.client.get(f"/matches/{match_id}/events", headers=bearer(token)).text
    # The same messages (each after's now is the time of sending).
    assert [timeless(m.data) for m in parse_sse(str(text))] == [
        timeless(m.data) for m in parse_sse(by_token)
    ]
    assert again[0] == 401 and again[1]["code"] == "ticket_used"  # type: ignore[index]


def test_a_tickets_feed_resumes_after_last_event_id_which_wins_over_after(api: Api) -> None:
    # given an ended match, every event id of its seat's feed, and two tickets of that seat
    match_id, token = _ended_match(api, "ticket-resume")
    whole = api.client.get(f"/matches/{match_id}/events", headers=bearer(token)).text
    every_id = [m.id for m in parse_sse(whole) if m.data]
    url = f"/matches/{match_id}/events"
    # when one feed is opened with Last-Event-ID, the other with it and an older ?after= too
    by_header = api.client.get(
        url, params={"ticket": _ticket(api, match_id, token)}, headers={"Last-Event-ID": "4"}
    )
    by_both = api.client.get(
        url,
        params={"ticket": _ticket(api, match_id, token), "after": "2"},
        headers={"Last-Event-ID": "4"},
    )
    # then each sends exactly the events after seq 4, once
    assert len(every_id) > 4 and every_id[:4] == [1, 2, 3, 4]
    assert [m.id for m in parse_sse(by_header.text) if m.data] == every_id[4:]
    assert [m.id for m in parse_sse(by_both.text) if m.data] == every_id[4:]


def test_a_ticket_is_refused_after_60_seconds(api: Api) -> None:
    match_id, token = _ended_match(api, "ticket-late")
    clock = FakeClock()
    _runtime(api.client).access.clock = clock
    on_time, late = _ticket(api, match_id, token), _ticket(api, match_id, token)

    clock.now += timedelta(seconds=59)
    assert _feed(api, match_id, on_time)[0] == 200
    clock.now += timedelta(seconds=1)
    status, error = _feed(api, match_id, late)

    assert status == 401 and error["code"] == "ticket_expired"  # type: ignore[index]


def test_a_ticket_of_another_match_unknown_or_malformed_is_refused(api: Api) -> None:
    match_id, token = _ended_match(api, "ticket-here")
    other_id, other_token = _ended_match(api, "ticket-there")
    ticket = _ticket(api, other_id, other_token)

    wrong = _feed(api, match_id, ticket)
    unknown = _feed(api, match_id, "ticket_" + "A" * 43)
    malformed = _feed(api, match_id, token)  # a seat token is no ticket

    assert wrong[0] == 403 and wrong[1]["code"] == "ticket_wrong_match"  # type: ignore[index]
    assert unknown[0] == 401 and unknown[1]["code"] == "unknown_ticket"  # type: ignore[index]
    assert malformed[0] == 401 and malformed[1]["code"] == "unknown_ticket"  # type: ignore[index]
    assert _feed(api, other_id, ticket)[0] == 200  # refusing it elsewhere did not spend it


def test_a_ticket_needs_a_token_of_the_match(api: Api) -> None:
    match_id, _ = _ended_match(api, "ticket-auth")
    _, other_token = _ended_match(api, "ticket-auth-other")
    url = f"/matches/{match_id}/tickets"
    assert api.client.post(url).json()["error"]["code"] == "missing_token"
    assert api.client.post(url, headers=bearer(other_token)).status_code == 403
    unknown = api.client.post("/matches/nope/tickets", headers=bearer(SUPPORT_TOKEN))
    assert unknown.status_code == 404


def test_a_support_ticket_gives_supports_feed_and_is_recorded_on_use(api: Api) -> None:
    match_id, _ = _ended_match(api, "ticket-support")
    ticket = _ticket(api, match_id, SUPPORT_TOKEN)
    access = _runtime(api.client).access
    assert access.access_log() == []

    assert _feed(api, match_id, ticket)[0] == 200

    assert [(r.agent, r.what) for r in access.access_log()] == [("env", "events")]


def test_a_ticket_of_seat_0_never_yields_seat_1s_cards(
    api_app: Litestar, api_service: MatchService
) -> None:
    with TestClient(api_app) as client:
        api = Api(client)
        match_id = api.create(seats=2, seed="ticket-leak")["match_id"]
        seat0, seat1 = api.sit(match_id, 0, "Amal"), api.sit(match_id, 1, "Badr")
        hidden = set(api.view(match_id, seat1)["hand"])
        ticket = _ticket(api, match_id, seat0)
        last = len(api_service.events(match_id))
        with serving(api_app) as server:
            url = f"{server.url}/matches/{match_id}/events?ticket={ticket}"
            reader = SseReader(url, {}, stop_after=last).start()
            messages = reader.join()

    assert reader.status == 200 and len(messages) == last
    seen = set().union(*(cards_in(m.raw) for m in messages))
    assert hidden and not hidden & seen
    assert ticket not in "".join(m.raw for m in messages)
