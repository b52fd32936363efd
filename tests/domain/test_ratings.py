"""Glicko-2 (R27, docs/ratings.md): the paper's worked example, two new players' first match,
idle growth of the deviation, and invariants of a rated match."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from domain.ratings import (
    MAX_RD,
    NEW_PLAYER,
    Rating,
    days_between,
    idle,
    rate_match,
    update,
)

ratings = st.builds(
    Rating,
    rating=st.floats(800, 2600),
    rd=st.floats(30, 350),
    volatility=st.floats(0.03, 0.09),
)
scores = st.sampled_from([0.0, 0.5, 1.0])


def test_the_papers_worked_example() -> None:
    # given Glickman's player at 1500/200/0.06 and three opponents
    player = Rating(1500, 200, 0.06)
    games = [
        (Rating(1400, 30, 0.06), 1.0),
        (Rating(1550, 100, 0.06), 0.0),
        (Rating(1700, 300, 0.06), 0.0),
    ]
    # when one period is rated
    after = update(player, games)
    # then the paper's figures (1464.06 in print, from rounded intermediates)
    assert round(after.rating, 2) == 1464.05
    assert round(after.rd, 2) == 151.52
    assert abs(after.volatility - 0.05999) < 0.00001  # 0.059996


def test_two_new_players_first_match() -> None:
    # given two new players, when the first beats the second
    winner, loser = rate_match(NEW_PLAYER, NEW_PLAYER, 1.0)
    # then about 1662.3 and 1337.7, both with RD about 290.3, both still provisional
    assert round(winner.rating, 1) == 1662.3
    assert round(loser.rating, 1) == 1337.7
    assert round(winner.rd, 1) == round(loser.rd, 1) == 290.3
    assert winner.provisional and loser.provisional


def test_a_draw_between_equals_moves_nobody() -> None:
    first, second = rate_match(NEW_PLAYER, NEW_PLAYER, 0.5)
    assert math.isclose(first.rating, 1500) and math.isclose(second.rating, 1500)
    assert first.rd < NEW_PLAYER.rd


def test_idle_growth_one_period_per_day_fractional_and_capped() -> None:
    settled = Rating(1700, 50, 0.06)
    # half a day is half a period: phi^2 grows by sigma^2 / 2
    half = idle(settled, 0.5)
    phi, sigma = 50 / 173.7178, 0.06
    assert math.isclose(half.rd, math.sqrt(phi * phi + 0.5 * sigma * sigma) * 173.7178)
    assert half.rating == settled.rating and half.volatility == settled.volatility
    # a long absence stops at 350
    assert idle(settled, 10_000).rd == MAX_RD
    assert idle(settled, 0).rd == 50


def test_days_between_recorded_times() -> None:
    assert days_between("2026-01-01T00:00:00.000000Z", "2026-01-02T12:00:00.000000Z") == 1.5
    assert days_between("2026-01-02T00:00:00.000000Z", "2026-01-01T00:00:00.000000Z") == 0


@given(ratings, st.floats(0, 100_000))
def test_idle_never_lifts_the_rd_above_350(player: Rating, days: float) -> None:
    grown = idle(player, days)
    assert player.rd <= grown.rd <= MAX_RD
    assert grown.rating == player.rating


@given(ratings, ratings, scores)
def test_a_rated_match_is_symmetric(a: Rating, b: Rating, score: float) -> None:
    # given two players, rating (a beats b) equals rating (b loses to a), seen from each side
    a1, b1 = rate_match(a, b, score)
    b2, a2 = rate_match(b, a, 1.0 - score)
    assert math.isclose(a1.rating, a2.rating) and math.isclose(b1.rating, b2.rating)
    assert math.isclose(a1.rd, a2.rd) and math.isclose(b1.rd, b2.rd)


@given(ratings, ratings, scores)
def test_winner_gains_loser_loses_and_deviation_narrows(a: Rating, b: Rating, s: float) -> None:
    a1, b1 = rate_match(a, b, s)
    if s == 1.0:
        assert a1.rating > a.rating and b1.rating < b.rating
    if s == 0.0:
        assert a1.rating < a.rating and b1.rating > b.rating
    # one game is information: each RD after is below sqrt(phi^2 + sigma'^2) of before
    assert a1.rd < math.hypot(a.rd, a1.volatility * 173.7178)
    assert all(math.isfinite(x) for x in (a1.rating, a1.rd, a1.volatility, b1.rating))


@given(scores)
def test_equal_players_trade_rating_exactly(score: float) -> None:
    # between players with the same RD, what one gains the other loses
    a1, b1 = rate_match(NEW_PLAYER, NEW_PLAYER, score)
    assert math.isclose(a1.rating + b1.rating, 3000)
