"""R27: what a finished match pays: points for win, draw, loss and forfeit at 2 and 4 seats;
practice (a bot, an anonymous seat, no play, an import, one player twice) pays nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.results import FinishedMatch, is_rated, seat_results, unscored_because


def finished(seats: int = 2, **changes: Any) -> FinishedMatch:
    fields: dict[str, object] = {
        "match_id": "m-1",
        "seats": seats,
        "player_ids": tuple(f"p-{i:02x}" for i in range(seats)),
        "bots": False,
        "imported": False,
        "played": True,
        "winner": 0,
        "reason": "target",
    }
    fields.update(changes)
    return FinishedMatch(**fields)  # type: ignore[arg-type]


def paid(match: FinishedMatch) -> list[tuple[str, int]]:
    return [(r.outcome, r.points) for r in seat_results(match)]


def test_two_seats_win_and_loss() -> None:
    assert paid(finished(winner=1)) == [("loss", 3), ("win", 24)]
    assert is_rated(finished(winner=1))


def test_two_seats_draw_pays_8_each() -> None:
    assert paid(finished(winner=None, reason="round_limit")) == [("draw", 8), ("draw", 8)]


@pytest.mark.parametrize("reason", ["timeout", "forfeit"])
def test_forfeit_is_a_loss_for_the_side_that_forfeited(reason: str) -> None:
    # given seat 0 ran out of time or left (R25, R26): side 1 is the winner
    match = finished(winner=1, reason=reason)
    assert paid(match) == [("loss", 3), ("win", 24)]


def test_four_seats_both_partners_share_the_side() -> None:
    # seats 0 and 2 are side 0, seats 1 and 3 side 1 (R2)
    assert paid(finished(4, winner=0)) == [("win", 24), ("loss", 3), ("win", 24), ("loss", 3)]
    assert paid(finished(4, winner=1, reason="forfeit")) == [
        ("loss", 3),
        ("win", 24),
        ("loss", 3),
        ("win", 24),
    ]
    assert paid(finished(4, winner=None, reason="round_limit")) == [("draw", 8)] * 4
    assert not is_rated(finished(4))


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"bots": True}, "practice"),
        ({"player_ids": ("p-00", None)}, "practice"),
        ({"played": False, "reason": "forfeit"}, "no_play"),
        ({"played": False, "reason": "abandoned", "winner": None}, "no_play"),
        ({"played": False, "reason": "timeout"}, "no_play"),
        ({"imported": True}, "imported"),
        ({"player_ids": ("p-00", "p-00")}, "one_player"),
    ],
)
def test_practice_pays_nothing(changes: dict[str, Any], why: str) -> None:
    match = finished(**changes)
    assert unscored_because(match) == why
    assert seat_results(match) == ()
    assert not is_rated(match)


@given(
    seats=st.sampled_from([2, 4]),
    winner=st.sampled_from([0, 1, None]),
    anonymous=st.sets(st.integers(0, 3)),
    bots=st.booleans(),
    played=st.booleans(),
)
def test_points_follow_the_sides(
    seats: int, winner: int | None, anonymous: set[int], bots: bool, played: bool
) -> None:
    ids = tuple(None if s in anonymous else f"p-{s:02x}" for s in range(seats))
    match = finished(seats, player_ids=ids, winner=winner, bots=bots, played=played)
    results = seat_results(match)
    if bots or not played or any(i is None for i in ids):
        assert results == ()
        return
    # partners always share an outcome; a win on one side is a loss on the other
    by_side = {r.seat % 2: r.outcome for r in results}
    assert all(by_side[r.seat % 2] == r.outcome for r in results)
    if winner is None:
        assert set(by_side.values()) == {"draw"}
    else:
        assert by_side[winner] == "win" and by_side[1 - winner] == "loss"
    assert sum(r.points for r in results) in (seats * 8, seats // 2 * 27)
