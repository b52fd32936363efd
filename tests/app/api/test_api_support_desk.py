"""The support desk over HTTP: refused commands kept as evidence, reports and cases, actions
that are events with a reason, suspension at every door, and what players never see."""

from __future__ import annotations

import time
from typing import Any

from app.service import MatchService
from domain.times import utc_micros, utc_text_us
from tests.app.api.conftest import Api
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    add_agent,
    bearer,
    client_runtime,
    register_player,
)


def _seated_match(api: Api, players: list[dict[str, Any]], **table: Any) -> str:
    match_id = str(api.create(seats=len(players), **table)["match_id"])
    for seat, player in enumerate(players):
        response = api.client.post(
            f"/matches/{match_id}/seats/{seat}", headers=bearer(player["token"])
        )
        assert response.status_code == 201, response.text
    return match_id


def test_a_late_play_is_answered_turn_expired_and_kept_with_its_lateness(
    api: Api, api_service: MatchService
) -> None:
    # given a table of two people with 600-second turns, the server's clock held by the test
    now = [time.time_ns() // 1000]
    api_service.clock = lambda: utc_text_us(now[0])
    match_id = api.create(turn_seconds=600)["match_id"]
    tokens = [api.sit(match_id, 0, "Amal"), api.sit(match_id, 1, "Badr")]
    view = api.view(match_id, tokens[0])
    seat, deadline = view["turn"], view["deadline"]
    card = api.view(match_id, tokens[seat])["hand"][0]

    # when the seat on turn plays 600 µs after its deadline
    now[0] = utc_micros(deadline) + 600
    late = api.play(match_id, tokens[seat], card)

    # then it is refused turn_expired, and support finds it with who, when and by how much
    assert (late.status_code, late.json()["error"]["code"]) == (409, "turn_expired")
    agent = add_agent(api.client, "nadia")
    refused = api.client.get(f"/support/matches/{match_id}/refused", headers=bearer(agent))
    assert refused.status_code == 200
    [record] = refused.json()["refused"]
    assert record["code"] == "turn_expired"
    assert (record["seat"], record["deadline"], record["late_us"]) == (seat, deadline, 600)
    assert record["at_us"] == utc_micros(deadline) + 600
    assert record["request_id"] == late.headers["x-request-id"]
    assert record["principal"].startswith(f"seat:{seat}/token:")
    # and the investigation page shows it in the one timeline, next to what happened
    page = api.client.get(f"/support/matches/{match_id}", headers=bearer(agent)).json()
    kinds = [(e["kind"], e["what"]) for e in page["timeline"]]
    assert ("refused", "turn_expired") in kinds and ("event", "match_created") in kinds
    # and a seat of the match never sees it
    for token in tokens:
        assert (
            api.client.get(f"/support/matches/{match_id}/refused", headers=bearer(token))
        ).status_code == 403
    # and both pages were recorded in the access trail under the agent's name
    trail = client_runtime(api.client).access.access_log(agent="nadia")
    assert sorted(r.what for r in trail) == ["investigation", "refused"]


def test_a_refusal_without_a_credential_is_only_counted(api: Api) -> None:
    match_id, _ = api.practice(seed="anon-refusal")
    response = api.play(match_id, "not-a-token", "7H")
    assert response.status_code == 401
    assert client_runtime(api.client).desk_records.refused(match_id).records == []


def test_a_report_opens_a_case_the_second_joins_it_and_the_reporter_sees_only_status(
    api: Api,
) -> None:
    amal, badr, carl = (register_player(api.client, n) for n in ("Amal", "Badr", "Carl"))
    match_id = _seated_match(api, [amal, badr], spectators=False)
    text = "<script>alert(1)</script> he \x1b[2J cheated"

    first = api.client.post(
        f"/matches/{match_id}/reports",
        json={"category": "cheating", "text": text},
        headers=bearer(amal["token"]),
    )
    second = api.client.post(
        f"/matches/{match_id}/reports",
        json={"category": "abuse", "text": "rude"},
        headers=bearer(badr["token"]),
    )
    outsider = api.client.post(
        f"/matches/{match_id}/reports",
        json={"category": "other", "text": "x"},
        headers=bearer(carl["token"]),
    )

    assert first.status_code == 201 and second.status_code == 201
    assert first.json()["case_id"] == second.json()["case_id"]
    assert (outsider.status_code, outsider.json()["error"]["code"]) == (403, "not_a_reporter")
    case_id = first.json()["case_id"]
    agent = add_agent(api.client, "omar")
    case = api.client.get(f"/support/cases/{case_id}", headers=bearer(agent)).json()
    assert [r["text"] for r in case["reports"]] == [text, "rude"]  # stored as text, as written
    assert case["categories"] == ["abuse", "cheating"]
    answered = api.client.post(
        f"/support/cases/{case_id}/answer",
        json={"reason": "We looked: the plays were fair."},
        headers=bearer(agent),
    )
    assert answered.status_code == 200
    mine = api.client.get("/players/me/reports", headers=bearer(amal["token"])).json()
    assert mine == {
        "reports": [
            {
                "case_id": case_id,
                "match_id": match_id,
                "category": "cheating",
                "at": mine["reports"][0]["at"],
                "status": "open",
                "answer": "We looked: the plays were fair.",
            }
        ]
    }
    assert api.client.get("/players/me/reports", headers=bearer(carl["token"])).json() == {
        "reports": []
    }
    # a player's token never opens a case, nor any support route
    for path in (f"/support/cases/{case_id}", "/support/cases", f"/support/matches/{match_id}"):
        response = api.client.get(path, headers=bearer(amal["token"]))
        assert response.status_code == 403, path
        assert api.client.get(path).status_code == 401


def test_reports_are_limited_to_ten_a_day(api: Api) -> None:
    amal, badr = register_player(api.client, "Amal"), register_player(api.client, "Badr")
    match_id = _seated_match(api, [amal, badr])
    codes = [
        api.client.post(
            f"/matches/{match_id}/reports",
            json={"category": "bug", "text": f"#{n}"},
            headers=bearer(amal["token"]),
        ).status_code
        for n in range(11)
    ]
    assert codes == [201] * 10 + [429]


def test_actions_need_a_named_agent_and_a_reason_and_change_nothing_otherwise(api: Api) -> None:
    amal = register_player(api.client, "Amal")
    agent = add_agent(api.client, "lina")
    desk = client_runtime(api.client).desk
    path = f"/support/players/{amal['player_id']}/suspend"

    blank = api.client.post(path, json={"reason": "  "}, headers=bearer(agent))
    shared = api.client.post(path, json={"reason": "spam"}, headers=bearer(SUPPORT_TOKEN))
    unknown = api.client.post(
        "/support/players/p-0000/suspend", json={"reason": "x"}, headers=bearer(agent)
    )

    assert (blank.status_code, blank.json()["error"]["code"]) == (422, "reason_required")
    assert (shared.status_code, shared.json()["error"]["code"]) == (403, "agent_only")
    assert unknown.status_code == 404
    assert desk.sanctions(amal["player_id"]) == []
    lift = api.client.post(
        f"/support/players/{amal['player_id']}/lift", json={"reason": "x"}, headers=bearer(agent)
    )
    assert (lift.status_code, lift.json()["error"]["code"]) == (422, "invalid_action")


def test_a_suspended_player_is_refused_at_every_door_and_let_back_in_when_lifted(
    api: Api,
) -> None:
    amal, badr = register_player(api.client, "Amal"), register_player(api.client, "Badr")
    played = _seated_match(api, [amal, badr])
    agent = add_agent(api.client, "sara")
    player_path = f"/support/players/{amal['player_id']}"
    until = "2999-01-01T00:00:00.000000Z"

    suspended = api.client.post(
        f"{player_path}/suspend", json={"reason": "abuse", "until": until}, headers=bearer(agent)
    )
    again = api.client.post(f"{player_path}/suspend", json={"reason": "x"}, headers=bearer(agent))

    assert suspended.status_code == 200
    assert (again.status_code, again.json()["error"]["code"]) == (409, "already_suspended")
    table = api.create()["match_id"]
    doors = {
        "sit": api.client.post(f"/matches/{table}/seats/0", headers=bearer(amal["token"])),
        "create": api.client.post(
            "/matches", json={"ruleset": "classic", "seats": 2}, headers=bearer(amal["token"])
        ),
        "report": api.client.post(
            f"/matches/{played}/reports",
            json={"category": "bug", "text": "x"},
            headers=bearer(amal["token"]),
        ),
    }
    for door, response in doors.items():
        assert response.status_code == 403, door
        assert response.json()["error"]["code"] == "account_suspended", door
        assert until in response.json()["error"]["message"], door
    # the match they were in goes on (R29): the other player's seat still answers
    assert (
        api.client.get(f"/matches/{played}/view", headers=bearer(badr["token"])).status_code == 200
    )

    lifted = api.client.post(
        f"{player_path}/lift", json={"reason": "appeal"}, headers=bearer(agent)
    )

    assert lifted.status_code == 200
    sit = api.client.post(f"/matches/{table}/seats/0", headers=bearer(amal["token"]))
    assert sit.status_code == 201


def test_a_warning_shows_once_on_the_next_players_me(api: Api) -> None:
    amal = register_player(api.client, "Amal")
    agent = add_agent(api.client, "rami")
    api.client.post(
        f"/support/players/{amal['player_id']}/warn",
        json={"reason": "Please keep the chat polite."},
        headers=bearer(agent),
    )
    first = api.client.get("/players/me", headers=bearer(amal["token"])).json()
    second = api.client.get("/players/me", headers=bearer(amal["token"])).json()
    assert first["warning"] == "Please keep the chat polite."
    assert "warning" not in second


def test_players_who_share_a_name_are_told_apart_and_a_rename_keeps_the_old_name(
    api: Api,
) -> None:
    one, two = register_player(api.client, "Samir"), register_player(api.client, "Samir")
    agent = add_agent(api.client, "huda")
    found = api.client.get("/support/players", params={"q": "sam"}, headers=bearer(agent))
    hits = found.json()["players"]
    assert sorted(h["player_id"] for h in hits) == sorted([one["player_id"], two["player_id"]])
    assert {h["name"] for h in hits} == {"Samir"}

    renamed = api.client.post(
        f"/support/players/{one['player_id']}/rename",
        json={"reason": "abusive name", "name": "Player 7"},
        headers=bearer(agent),
    )

    assert renamed.status_code == 200
    page = api.client.get(f"/support/players/{one['player_id']}", headers=bearer(agent)).json()
    assert page["player"]["name"] == "Player 7"
    # and the search finds the new name at once (the directory's 30-second bound does not apply)
    again = api.client.get("/support/players", params={"q": "player 7"}, headers=bearer(agent))
    assert [h["player_id"] for h in again.json()["players"]] == [one["player_id"]]
    left = api.client.get("/support/players", params={"q": "samir"}, headers=bearer(agent))
    assert [h["player_id"] for h in left.json()["players"]] == [two["player_id"]]
    [sanction] = page["sanctions"]
    assert (sanction["old_name"], sanction["new_name"], sanction["agent"]) == (
        "Samir",
        "Player 7",
        "huda",
    )


def test_a_revoked_agent_is_refused_on_every_support_route_at_once(api: Api) -> None:
    agent = add_agent(api.client, "tarek")
    assert api.client.get("/support/cases", headers=bearer(agent)).status_code == 200
    client_runtime(api.client).access.revoke_agent("tarek")
    response = api.client.get("/support/cases", headers=bearer(agent))
    assert (response.status_code, response.json()["error"]["code"]) == (401, "agent_revoked")
