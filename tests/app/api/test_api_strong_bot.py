"""Creating a table with the strong bot over HTTP: kinds by seat, its budget, its replies."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from app.service import MatchService
from domain.events import MatchCreated
from replays.audit import audit
from tests.app.api.conftest import Api


def test_a_strong_and_an_easy_bot_by_seat_reply_to_a_person(
    api: Api, client: TestClient[Litestar], api_service: MatchService
) -> None:
    # given a 4-seat table: a person at seat 0, the strong bot at seats 1 and 2, easy at 3
    created = api.create(
        seats=4,
        bots=[1, 2, 3],
        bot_kind="strong",
        bot_kinds={"3": "easy"},
        bot_budget=3,
        seed="strong-api",
    )
    match_id = created["match_id"]
    # the lobby names each bot seat by its own kind
    lobby = client.get("/matches", params={"status": "waiting"}).json()["matches"]
    [table] = [t for t in lobby if t["match_id"] == match_id]
    assert [p["name"] for p in table["players"]][1:] == ["strong bot", "strong bot", "easy bot"]
    token = api.sit(match_id, 0)
    # when the person plays a few cards and the bots reply
    for _ in range(3):
        view = api.view(match_id, token)
        if view["turn"] != 0:
            break
        assert api.play(match_id, token, view["hand"][0]).status_code == 200
    # then the seats are named by their kinds, the creation records kinds and budget
    view = api.view(match_id, token)
    assert view["names"][1:] == ["strong bot", "strong bot", "easy bot"]
    events = api_service.events(match_id)
    first = events[0].event
    assert isinstance(first, MatchCreated)
    assert (first.bot_kind, first.bot_kinds, first.bot_budget) == ("strong", {"3": "easy"}, 3)
    # and every strong bot's reply is its own pick from its seat's view
    assert sum(1 for r in events if r.caused_by in ("bot:1", "bot:2")) >= 2
    assert audit(events, strong_bots=True).divergence is None


def test_an_unknown_kind_or_budget_is_refused(api: Api) -> None:
    assert api.create(expect=422, bots=[1], bot_kinds={"1": "genius"})
    refused = api.create(expect=422, bots=[1], bot_kind="strong", bot_budget=0)
    assert refused["error"]["code"]
