"""The online table over HTTP: creation settings, the lobby, live turns, spectators, leaving at
four seats (R26) and rematches; every refusal checked to append nothing."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from litestar import Litestar

from app.readmodels.models import ReadModels
from app.service import MatchService
from domain.events import MatchCreated
from domain.evolve import evolve
from domain.recorded import event_line
from domain.redaction import EVERYONE
from domain.state import INITIAL_STATE
from tests.app.api.conftest import Api
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    HttpSteps,
    SseReader,
    bearer,
    parse_sse,
    serving,
    timeless,
)


def _register(api: Api, name: str) -> dict[str, Any]:
    response = api.client.post("/players", json={"name": name})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _seat_as_player(api: Api, match_id: str, seat: int, token: str) -> Any:
    return api.client.post(f"/matches/{match_id}/seats/{seat}", headers=bearer(token))


def _leave(api: Api, match_id: str, token: str) -> Any:
    return api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))


def _error(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


# -- creation -----------------------------------------------------------------------------------


def test_a_table_is_created_with_its_turn_time_privacy_and_spectators(
    api: Api, api_service: MatchService
) -> None:
    created = api.create(turn_seconds=45, private=True, spectators=False)

    setup = api_service.load(created["match_id"]).setup
    assert setup is not None
    assert (setup.turn_seconds, setup.private, setup.spectators) == (45, True, False)
    assert (created["turn_seconds"], created["private"], created["spectators"]) == (45, True, False)


def test_without_a_turn_time_the_servers_applies(api: Api) -> None:
    created = api.create()

    assert created["turn_seconds"] == 120


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"turn_seconds": 4}, 422, "invalid_turn_seconds"),
        ({"turn_seconds": 601}, 422, "invalid_turn_seconds"),
        ({"turn_seconds": "60"}, 422, "wrong_type"),
        ({"private": "yes"}, 422, "wrong_type"),
        ({"spectators": 0}, 422, "wrong_type"),
    ],
)
def test_bad_table_settings_are_refused_and_nothing_is_created(
    api: Api, api_service: MatchService, body: dict[str, Any], status: int, code: str
) -> None:
    before = api_service.match_ids()

    response = api.client.post("/matches", json={"ruleset": "classic", "seats": 2, **body})

    assert _error(response) == (status, code)
    assert api_service.match_ids() == before


# -- the lobby ----------------------------------------------------------------------------------


def test_the_lobby_lists_public_tables_newest_first_a_page_at_a_time(api: Api) -> None:
    oldest = api.create(seats=4, ruleset="egyptian")["match_id"]
    middle = api.create()["match_id"]
    api.create(private=True)
    newest = api.create(bots=[1])["match_id"]

    first = api.client.get("/matches?limit=2").json()
    second = api.client.get(f"/matches?limit=2&cursor={first['next']}").json()

    assert [t["match_id"] for t in first["matches"]] == [newest, middle]
    assert [t["match_id"] for t in second["matches"]] == [oldest]
    assert second["next"] is None
    listed = first["matches"][0]
    assert listed["players"][1] == {"seat": 1, "name": "easy bot", "bot": True, "reserved": False}
    assert listed["open_seats"] == [0] and listed["status"] == "waiting"
    assert listed["turn_seconds"] == 120 and listed["scores"] == [0, 0]


def test_the_lobby_filters_by_status_ruleset_and_seats(api: Api) -> None:
    four = api.create(seats=4, ruleset="egyptian")["match_id"]
    playing, _ = api.practice(seed="lobby-playing")

    def ids(query: str) -> list[str]:
        response = api.client.get(f"/matches?{query}")
        assert response.status_code == 200, response.text
        return [t["match_id"] for t in response.json()["matches"]]

    assert ids("status=playing") == [playing]
    assert ids("status=waiting") == [four]
    assert ids("seats=4") == [four]
    assert ids("ruleset=egyptian&seats=4&status=waiting") == [four]
    assert ids("ruleset=egyptian&status=playing") == []


def test_the_lobby_shows_a_players_name_now(api: Api) -> None:
    player = _register(api, "Noura")
    match_id = api.create(bots=[1])["match_id"]
    assert _seat_as_player(api, match_id, 0, player["token"]).status_code == 201
    renamed = api.client.patch(
        "/players/me", json={"name": "Nour"}, headers=bearer(player["token"])
    )
    assert renamed.status_code == 200, renamed.text

    listed = api.client.get("/matches").json()["matches"][0]

    assert listed["players"][0]["name"] == "Nour"
    assert player["token"] not in str(listed) and player["player_id"] not in str(listed)


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("status=over", "invalid_filter"),
        ("ruleset=poker", "invalid_filter"),
        ("seats=3", "invalid_filter"),
        ("limit=0", "invalid_filter"),
        ("limit=101", "invalid_filter"),
        ("limit=ten", "invalid_filter"),
        ("cursor=not-a-cursor", "invalid_cursor"),
        # Well-formed, but pointing at no table this server lists.
        ("cursor=WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJtLTAwMDAiXQ", "invalid_cursor"),
    ],
)
def test_a_lobby_filter_or_cursor_that_names_nothing_is_400(
    api: Api, query: str, code: str
) -> None:
    api.create()

    assert _error(api.client.get(f"/matches?{query}")) == (400, code)


def test_a_private_tables_id_is_no_cursor(api: Api, api_service: MatchService) -> None:
    hidden = api.create(private=True)["match_id"]
    api.create()
    models = ReadModels.for_store(api_service.store)
    models.catch_up()
    row = models.match(hidden)
    assert row is not None
    text = json.dumps([row.created, hidden], separators=(",", ":")).encode()
    cursor = base64.urlsafe_b64encode(text).decode().rstrip("=")

    assert _error(api.client.get(f"/matches?cursor={cursor}")) == (400, "invalid_cursor")


# -- live turns ---------------------------------------------------------------------------------


def test_every_view_carries_whose_turn_its_deadline_the_servers_now_and_the_banner(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="banner", turn_seconds=60)

    view = api.view(match_id, token)
    table = api.client.get(f"/matches/{match_id}").json()

    state = api_service.load(match_id)
    for body in (view, table, api.support_view(match_id)):
        after = body["after"]
        assert after["seq"] == state.events and after["turn"] == state.turn == 0
        assert after["deadline"] == state.deadline is not None
        assert after["stock"] == len(state.stock) and after["carry"] == state.carry
        assert after["now"].endswith("Z") and after["now"] < after["deadline"]


def test_every_feed_message_carries_the_table_after_its_event_also_when_resumed(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="after-feed")
    for _ in range(6):  # seat 0 plays; the bot answers each play at once
        assert api.play(match_id, token, api.view(match_id, token)["hand"][0]).status_code == 200
    assert _leave(api, match_id, token).status_code == 200

    whole = parse_sse(api.client.get(f"/matches/{match_id}/events", headers=bearer(token)).text)
    resumed = parse_sse(
        api.client.get(
            f"/matches/{match_id}/events", headers=bearer(token) | {"Last-Event-ID": "17"}
        ).text
    )

    state = INITIAL_STATE
    expected: dict[int, dict[str, Any]] = {}
    for recorded in api_service.events(match_id):
        state = evolve(state, recorded.event)
        expected[recorded.seq] = {
            "seq": recorded.seq,
            "status": state.status,
            "turn": state.turn,
            "deadline": state.deadline,
            "now": None,
            "stock": len(state.stock) if state.status == "playing" else 0,
            "carry": state.carry,
            "chain": recorded.chain,  # the receipt: the chain link after this event
            "connected": [True, False],  # seat 0's own feed is open as it is sent
        }
    sent = {m.id: timeless(m.data)["after"] for m in whole if m.data is not None}
    again = {m.id: timeless(m.data)["after"] for m in resumed if m.data is not None}
    assert sent == expected
    assert again == {seq: after for seq, after in expected.items() if seq > 17}


# -- spectators ---------------------------------------------------------------------------------


def test_a_feed_without_a_token_is_the_public_one(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="spectator", seats=4)
    api.play(match_id, token, api.view(match_id, token)["hand"][0])
    assert _leave(api, match_id, token).status_code == 200
    stream = api_service.events(match_id)
    ended_at = stream[-1].seq

    messages = [m for m in parse_sse(api.client.get(f"/matches/{match_id}/events").text) if m.data]

    assert [m.id for m in messages] == [r.seq for r in stream]
    assert messages[-1].id == ended_at
    # Each line is the public replay line (ended: all open, R23) with the table after it.
    for message, recorded in zip(messages, stream, strict=True):
        line = message.raw.split("data: ", 1)[1].strip()
        assert line.startswith(event_line(recorded, EVERYONE, True).decode()[:-1] + ',"after":{')


def test_the_public_feed_of_a_match_in_play_shows_no_hand_and_no_secret(
    api_app: Litestar, api_service: MatchService
) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, _ = steps.practice(seed="spectator-live", seats=4)
        url = f"{server.url}/matches/{match_id}/events"
        messages = SseReader(url, {}, stop_after=6).start().join()

    created = api_service.events(match_id)[0].event
    assert isinstance(created, MatchCreated) and created.secret
    assert all(created.secret not in m.raw for m in messages)
    deals = [m.data for m in messages if m.data and m.data["type"] == "cards_dealt"]
    assert deals and all(hand is None for deal in deals for hand in deal["hands"])
    assert all(m.data and "hand" not in m.data["after"] for m in messages)


def test_a_table_without_spectators_refuses_anyone_not_seated(
    api: Api, api_service: MatchService
) -> None:
    created = api.create(bots=[1], spectators=False, seed="closed")
    match_id = created["match_id"]
    token = api.sit(match_id, 0)
    other, _ = api.practice(seed="elsewhere")
    stranger = api.sit(api.create()["match_id"], 0, "Stranger")
    seq = api_service.load(match_id).events

    assert _error(api.client.get(f"/matches/{match_id}")) == (403, "spectators_refused")
    assert _error(api.client.get(f"/matches/{match_id}/events")) == (403, "spectators_refused")
    assert _error(api.client.get(f"/matches/{match_id}", headers=bearer(stranger))) == (
        403,
        "wrong_match",
    )
    assert api.client.get(f"/matches/{match_id}", headers=bearer(token)).status_code == 200
    assert api.client.get(f"/matches/{match_id}", headers=bearer(SUPPORT_TOKEN)).status_code == 200
    assert api.client.get(f"/matches/{other}").status_code == 200
    assert api_service.load(match_id).events == seq


# -- leaving at four seats (R26) ----------------------------------------------------------------


def test_leaving_at_four_seats_loses_for_the_pair_and_a_second_leave_is_409(
    api: Api, api_service: MatchService
) -> None:
    match_id = api.create(seats=4, bots=[2, 3], seed="leave-four")["match_id"]
    first = api.sit(match_id, 0, "Amal")
    second = api.sit(match_id, 1, "Badr")

    left = _leave(api, match_id, second)
    ended = api_service.events(match_id)[-1]
    again = _leave(api, match_id, first)

    assert left.status_code == 200
    end = left.json()["events"][-1]
    # Seat 1 sits with seat 3 (side 1): both lose; seats 0 and 2 (side 0) win.
    assert (end["type"], end["reason"], end["seat"], end["winner"]) == (
        "match_ended",
        "forfeit",
        1,
        0,
    )
    assert _error(again) == (409, "match_ended")
    assert api_service.events(match_id)[-1].seq == ended.seq


# -- rematch ------------------------------------------------------------------------------------


def test_a_rematch_has_the_same_settings_its_own_secret_and_both_links(
    api: Api, api_service: MatchService
) -> None:
    match_id = api.create(seats=4, bots=[1, 3], bot_kind="random", turn_seconds=30)["match_id"]
    token = api.sit(match_id, 0)
    api.sit(match_id, 2, "Badr")
    assert _leave(api, match_id, token).status_code == 200

    made = api.client.post(f"/matches/{match_id}/rematch", headers=bearer(token))
    again = api.client.post(f"/matches/{match_id}/rematch", headers=bearer(token))

    assert made.status_code == again.status_code == 200
    body = made.json()
    assert body["created"] is True and again.json() == body | {"created": False}
    new_id = body["match_id"]
    old, new = api_service.load(match_id), api_service.load(new_id)
    assert old.setup is not None and new.setup is not None
    same = ("ruleset", "seats", "target", "turn_seconds", "bots", "bot_kind", "private")
    assert all(getattr(old.setup, f) == getattr(new.setup, f) for f in same)
    assert new.setup.secret != old.setup.secret and new.setup.commitment != old.setup.commitment
    assert old.rematch == new_id and new.setup.rematch_of == match_id
    assert api.client.get(f"/matches/{match_id}").json()["rematch"] == new_id
    assert api.client.get(f"/matches/{new_id}").json()["rematch_of"] == match_id
    assert [r.event.__struct_config__.tag for r in api_service.events(match_id)].count(
        "rematch_created"
    ) == 1
    assert body["open_seats"] == [0, 2] and body["reserved"] == []


def test_a_rematch_keeps_a_registered_players_seat_for_that_player(api: Api) -> None:
    player = _register(api, "Noura")
    other = _register(api, "Salma")
    match_id = api.create(bots=[1])["match_id"]
    assert _seat_as_player(api, match_id, 0, player["token"]).status_code == 201
    assert _leave(api, match_id, player["token"]).status_code == 200

    rematch = api.client.post(f"/matches/{match_id}/rematch", headers=bearer(player["token"]))
    new_id = rematch.json()["match_id"]
    listed = api.client.get("/matches?status=waiting").json()["matches"][0]

    assert rematch.json()["reserved"] == [0] and rematch.json()["open_seats"] == []
    assert listed["match_id"] == new_id and listed["players"][0]["reserved"] is True
    assert listed["open_seats"] == []
    by_name = api.client.post(f"/matches/{new_id}/seats/0", json={"name": "Intruder"})
    assert _error(by_name) == (403, "seat_reserved")
    assert _error(_seat_as_player(api, new_id, 0, other["token"])) == (403, "seat_reserved")
    assert _seat_as_player(api, new_id, 0, player["token"]).status_code == 201


def test_a_rematch_before_the_end_by_a_stranger_or_of_no_match_is_refused(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="rematch-early")
    stranger = api.sit(api.create()["match_id"], 0, "Stranger")
    seq = api_service.load(match_id).events

    early = api.client.post(f"/matches/{match_id}/rematch", headers=bearer(token))
    assert _leave(api, match_id, token).status_code == 200
    ended = api_service.load(match_id).events
    by_stranger = api.client.post(f"/matches/{match_id}/rematch", headers=bearer(stranger))
    by_support = api.client.post(f"/matches/{match_id}/rematch", headers=bearer(SUPPORT_TOKEN))
    anonymous = api.client.post(f"/matches/{match_id}/rematch")
    unknown = api.client.post("/matches/m-0000000000000000/rematch", headers=bearer(token))

    assert _error(early) == (409, "match_not_ended")
    assert ended == seq + 1  # only the leave's match_ended
    assert _error(by_stranger) == (403, "wrong_match")
    assert _error(by_support) == (403, "seat_only")
    assert _error(anonymous) == (401, "missing_token")
    assert _error(unknown) == (404, "match_not_found")
    assert api_service.load(match_id).events == ended
    assert api_service.load(match_id).rematch is None
