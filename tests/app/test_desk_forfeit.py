"""The forfeit of a side by support (R29, R26) on every kind of store: the match stream ends as
a leave ends it, the agent's decision is in the player's sanctions and the case, and a refused
forfeit appends nothing anywhere."""

from __future__ import annotations

import pytest

from app.errors import InvalidActionError, ReasonRequiredError
from app.service import MatchService
from app.service.desk_forfeit import forfeit_side
from app.service.desk_open import open_desk
from app.service.players import PlayerService
from domain.desk import SideForfeited
from domain.errors import MatchEndedError
from domain.events import MatchEnded
from tests.app.results_helpers import play_once, register, seat_all


def test_support_ends_a_match_as_a_forfeit_of_one_side(service: MatchService) -> None:
    # given Amal and Badr in a match in play, a case on it
    players = PlayerService(service.store)
    amal, badr = register(players, "Amal", "Badr")
    seat_all(service, "m1", [amal, badr])
    play_once(service, "m1")
    _, desk = open_desk(service.store, players)
    case_id = desk.file_report(badr, "m1", "abuse", "insults")
    length = len(service.events("m1"))

    # when wrong forfeits are tried, then each is refused and nothing is appended
    with pytest.raises(ReasonRequiredError):
        forfeit_side(service, desk, "m1", "nadia", "", player_id=amal)
    with pytest.raises(InvalidActionError):
        forfeit_side(service, desk, "m1", "nadia", "x", player_id="p-nobody")
    assert len(service.events("m1")) == length and desk.sanctions(amal) == []

    # when the agent ends it as a forfeit of Badr's side
    done = forfeit_side(service, desk, "m1", "nadia", "abuse", player_id=badr, case_id=case_id)

    # then the match ended as Badr leaving would end it, by the agent
    last = service.events("m1")[-1]
    assert isinstance(last.event, MatchEnded) and last.caused_by == "support:nadia"
    assert (last.event.winner, last.event.reason, last.event.seat) == (0, "forfeit", 1)
    assert (done.seat, done.player_id, done.seq) == (1, badr, last.seq)
    [fact] = desk.sanctions(badr)
    assert isinstance(fact, SideForfeited) and (fact.match_id, fact.case_id) == ("m1", case_id)
    assert [a.action for a in desk.case(case_id).actions] == ["forfeit"]
    # and a second forfeit is refused as the end refuses a leave, nothing appended
    with pytest.raises(MatchEndedError):
        forfeit_side(service, desk, "m1", "nadia", "again", player_id=amal)
    assert len(service.events("m1")) == length + 1 and desk.sanctions(amal) == []
