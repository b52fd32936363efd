"""R29: support ends a suspended player's match as a forfeit of their side (R26), over HTTP.

The match stream gets its ordinary ``match_ended`` (reason ``forfeit``, caused by the agent);
the agent's decision, with its reason and case, goes to the player's sanctions and the case;
the result and the ratings follow as for any forfeit. Every refusal appends nothing."""

from __future__ import annotations

from typing import Any

import pytest

from app.service import MatchService
from domain.desk import ActionTaken, SideForfeited
from domain.events import MatchEnded
from tests.app.api.conftest import Api
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    add_agent,
    bearer,
    client_runtime,
    register_player,
)


def _seated_match(api: Api, players: list[dict[str, Any]]) -> str:
    match_id = str(api.create(seats=len(players))["match_id"])
    for seat, player in enumerate(players):
        response = api.client.post(
            f"/matches/{match_id}/seats/{seat}", headers=bearer(player["token"])
        )
        assert response.status_code == 201, response.text
    return match_id


def _one_play(api: Api, match_id: str, players: list[dict[str, Any]]) -> None:
    """The seat on turn plays its first card (a match left before any play pays nothing)."""
    turn = api.view(match_id, players[0]["token"])["turn"]
    hand = api.view(match_id, players[turn]["token"])["hand"]
    assert api.play(match_id, players[turn]["token"], hand[0]).status_code == 200


def _case_on(api: Api, match_id: str, reporter: dict[str, Any]) -> str:
    response = api.client.post(
        f"/matches/{match_id}/reports",
        json={"category": "abuse", "text": "insults in the name"},
        headers=bearer(reporter["token"]),
    )
    assert response.status_code == 201, response.text
    return str(response.json()["case_id"])


def test_a_suspended_players_match_ends_as_a_forfeit_of_their_side(
    api: Api, api_service: MatchService
) -> None:
    # given Amal and Badr in a match in play, a case on it, and Amal suspended
    amal, badr = register_player(api.client, "Amal"), register_player(api.client, "Badr")
    match_id = _seated_match(api, [amal, badr])
    _one_play(api, match_id, [amal, badr])
    case_id = _case_on(api, match_id, badr)
    agent = add_agent(api.client, "sara")
    suspended = api.client.post(
        f"/support/players/{amal['player_id']}/suspend",
        json={"reason": "abuse", "case_id": case_id},
        headers=bearer(agent),
    )
    assert suspended.status_code == 200
    # the match goes on without the agent's forfeit (R29)
    assert api.support_view(match_id)["status"] == "playing"

    # when the agent ends it as a forfeit of Amal's side
    response = api.client.post(
        f"/support/matches/{match_id}/forfeit",
        json={"player": amal["player_id"], "reason": "suspended for abuse", "case_id": case_id},
        headers=bearer(agent),
    )

    # then the match stream ends as a leave ends it (R26): Amal's side loses, by the agent
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["done"], body["seat"], body["player_id"]) == ("forfeit", 0, amal["player_id"])
    last = api_service.events(match_id)[-1]
    assert isinstance(last.event, MatchEnded)
    assert (last.event.winner, last.event.reason, last.event.seat) == (1, "forfeit", 0)
    assert last.caused_by == "support:sara"
    assert last.seq == body["seq"]
    # and only there: the agent's decision is in Amal's sanctions and in the case, with reason
    desk = client_runtime(api.client).desk
    forfeits = [e for e in desk.sanctions(amal["player_id"]) if isinstance(e, SideForfeited)]
    assert [(f.agent, f.match_id, f.seat, f.reason, f.case_id) for f in forfeits] == [
        ("sara", match_id, 0, "suspended for abuse", case_id)
    ]
    actions = [(a.action, a.target, a.reason) for a in desk.case(case_id).actions]
    assert ("forfeit", match_id, "suspended for abuse") in actions
    # and the result follows as for any forfeit: a loss for Amal, a win for Badr
    pages = {
        who["name"]: api.client.get(
            f"/support/players/{who['player_id']}", headers=bearer(agent)
        ).json()
        for who in (amal, badr)
    }
    outcome = {
        name: [r["outcome"] for r in page["results"] if r["match_id"] == match_id]
        for name, page in pages.items()
    }
    assert outcome == {"Amal": ["loss"], "Badr": ["win"]}
    # and the players see the match ended, the seat's view saying so
    assert api.view(match_id, badr["token"])["status"] == "ended"


def test_a_forfeit_is_refused_without_a_reason_off_the_table_or_after_the_end(
    api: Api, api_service: MatchService
) -> None:
    # given Amal and Badr in a match in play, Dana elsewhere, a table still waiting
    amal, badr = register_player(api.client, "Amal"), register_player(api.client, "Badr")
    dana = register_player(api.client, "Dana")
    match_id = _seated_match(api, [amal, badr])
    waiting = api.create()["match_id"]
    agent = add_agent(api.client, "omar")
    path = f"/support/matches/{match_id}/forfeit"
    events_before = len(api_service.events(match_id))

    def forfeit(body: dict[str, Any], token: str = agent, at: str = path) -> tuple[int, str]:
        response = api.client.post(at, json=body, headers=bearer(token))
        return response.status_code, response.json()["error"]["code"]

    # when each wrong forfeit is sent
    refusals = {
        "no reason": forfeit({"player": amal["player_id"]}),
        "blank reason": forfeit({"player": amal["player_id"], "reason": " \u200b "}),
        "shared token": forfeit({"player": amal["player_id"], "reason": "x"}, SUPPORT_TOKEN),
        "not seated": forfeit({"player": dana["player_id"], "reason": "x"}),
        "nobody named": forfeit({"reason": "x"}),
        "no such seat": forfeit({"seat": 5, "reason": "x"}),
        "seat and player disagree": forfeit(
            {"player": amal["player_id"], "seat": 1, "reason": "x"}
        ),
        "unknown case": forfeit({"player": amal["player_id"], "reason": "x", "case_id": "c-0"}),
        "unknown match": forfeit(
            {"seat": 0, "reason": "x"}, at="/support/matches/m-nothing/forfeit"
        ),
        "waiting table": forfeit(
            {"seat": 0, "reason": "x", "case_id": _case_on(api, match_id, badr)},
            at=f"/support/matches/{waiting}/forfeit",
        ),
    }

    # then each is a clear 4xx and nothing is appended anywhere
    assert refusals == {
        "no reason": (422, "reason_required"),
        "blank reason": (422, "reason_required"),
        "shared token": (403, "agent_only"),
        "not seated": (422, "invalid_action"),
        "nobody named": (422, "invalid_action"),
        "no such seat": (422, "invalid_action"),
        "seat and player disagree": (422, "invalid_action"),
        "unknown case": (404, "case_not_found"),
        "unknown match": (404, "match_not_found"),
        "waiting table": (422, "invalid_action"),
    }
    desk = client_runtime(api.client).desk
    assert len(api_service.events(match_id)) == events_before
    for who in (amal, badr, dana):
        assert desk.sanctions(who["player_id"]) == []
    assert api.support_view(match_id)["status"] == "playing"

    # and once it has ended (a seat left), a forfeit is refused as the end refuses a leave
    left = api.client.post(f"/matches/{match_id}/leave", headers=bearer(badr["token"]))
    assert left.status_code == 200
    ended = len(api_service.events(match_id))
    assert forfeit({"player": amal["player_id"], "reason": "x"}) == (409, "match_ended")
    assert len(api_service.events(match_id)) == ended
    assert desk.sanctions(amal["player_id"]) == []


@pytest.mark.parametrize("by", ["seat", "player"])
def test_at_four_seats_the_partner_loses_with_the_forfeiting_seat(
    api: Api, api_service: MatchService, by: str
) -> None:
    # given four players at a four-seat table: seats 0 and 2 one side, 1 and 3 the other
    players = [register_player(api.client, name) for name in ("Amal", "Badr", "Dana", "Eyad")]
    match_id = _seated_match(api, players)
    agent = add_agent(api.client, "lina")
    named = {"seat": 3} if by == "seat" else {"player": players[3]["player_id"]}

    # when the agent ends it as a forfeit of seat 3's side (Eyad's)
    response = api.client.post(
        f"/support/matches/{match_id}/forfeit",
        json={**named, "reason": "suspended: abuse"},
        headers=bearer(agent),
    )

    # then side 0 (seats 0 and 2) wins and Eyad's sanctions record it
    assert response.status_code == 200, response.text
    last = api_service.events(match_id)[-1].event
    assert isinstance(last, MatchEnded)
    assert (last.winner, last.reason, last.seat) == (0, "forfeit", 3)
    desk = client_runtime(api.client).desk
    [fact] = desk.sanctions(players[3]["player_id"])
    assert isinstance(fact, SideForfeited) and fact.seat == 3
    assert all(not isinstance(e, ActionTaken) for e in desk.sanctions(players[1]["player_id"]))
