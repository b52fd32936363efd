"""The dispute trail and players: ``seat:N/player:ID`` only on the seat that player took."""

from __future__ import annotations

import pytest

from domain.cards import parse_card
from domain.events import CardPlayed, SeatTaken
from domain.state import MatchState
from replays.audit_text import Diverged
from replays.audit_trail import TrailReferee

STATE = MatchState()
PLAY = CardPlayed(seat=0, card=parse_card("7D"), captured=(), basra=0)


def _referee_with_seat_taken_by(player_id: str | None) -> TrailReferee:
    referee = TrailReferee()
    taken = (
        SeatTaken(seat=0, name="Amal", token_id="abcd0123", player_id=player_id)
        if player_id
        else SeatTaken(seat=0, name="Amal", token_id="abcd0123")
    )
    referee.check_cause(taken, "seat:0/token:abcd0123", STATE)
    return referee


def test_the_player_who_took_the_seat_may_act_on_it() -> None:
    referee = _referee_with_seat_taken_by("p-aa")

    referee.check_cause(PLAY, "seat:0/player:p-aa", STATE)  # no Diverged


@pytest.mark.parametrize(
    ("taken_by", "cause"),
    [
        ("p-aa", "seat:0/player:p-bb"),  # another player
        (None, "seat:0/player:p-aa"),  # a seat taken by name only
        ("p-aa", "seat:1/player:p-aa"),  # a seat nobody took
    ],
)
def test_a_forged_player_cause_is_refused(taken_by: str | None, cause: str) -> None:
    referee = _referee_with_seat_taken_by(taken_by)

    with pytest.raises(Diverged):
        referee.check_cause(PLAY, cause, STATE)


def test_a_seat_is_never_taken_under_a_player_cause() -> None:
    referee = TrailReferee()
    taken = SeatTaken(seat=0, name="Amal", token_id="abcd0123", player_id="p-aa")

    with pytest.raises(Diverged):
        referee.check_cause(taken, "seat:0/player:p-aa", STATE)
