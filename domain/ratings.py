"""The rated ladder (R27): Glicko-2 as Glickman's "Example of the Glicko-2 system" gives it.

A match between exactly two players is one rating period of one game for both (docs/ratings.md).
Before it, each player's deviation grows for the time since their last rated match, one period
per day, fractional days counted, capped at ``MAX_RD`` (the cap is for this idle growth only,
not for the paper's own step 6). Times are the recorded ``match_ended`` times, never a clock, so
a rebuild from the streams gives the same numbers.
"""

from __future__ import annotations

import math
from typing import Final

import msgspec

from domain.times import utc_micros

START_RATING: Final = 1500.0
"""A new player's rating."""

START_RD: Final = 350.0
"""A new player's rating deviation (RD)."""

START_VOLATILITY: Final = 0.06
"""A new player's volatility."""

TAU: Final = 0.5
"""Glicko-2's system constant: how far volatility may move in one period."""

MAX_RD: Final = 350.0
"""The most an idle player's RD grows to."""

PROVISIONAL_RD: Final = 110.0
"""A rating with an RD above this is provisional (listed after the settled ones)."""

SCALE: Final = 173.7178
"""Glicko-2's factor between the Glicko scale (1500, 350) and its own (0, 2.01)."""

EPSILON: Final = 0.000001
"""The convergence tolerance of the paper's volatility iteration (step 5)."""

SECONDS_PER_PERIOD: Final = 86_400
"""An idle rating period is one day."""


class Rating(msgspec.Struct, frozen=True, gc=False):
    """A player's rating, deviation and volatility on the Glicko scale."""

    rating: float
    rd: float
    volatility: float

    @property
    def provisional(self) -> bool:
        """True while the RD is above ``PROVISIONAL_RD``: the rating is not settled yet."""
        return self.rd > PROVISIONAL_RD


NEW_PLAYER: Final = Rating(START_RATING, START_RD, START_VOLATILITY)
"""Where every player starts."""


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the paper's Illinois iteration."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, games: list[tuple[Rating, float]], *, tau: float = TAU) -> Rating:
    """The player after one rating period of ``games`` (opponent, score 1 / 0.5 / 0).

    The paper's steps 2-8; a period with no games only widens the deviation (step 6 alone).
    """
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    v_inverse = 0.0
    improvement = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - START_RATING) / SCALE
        g_j = _g(opponent.rd / SCALE)
        e = _expected(mu, mu_j, g_j)
        v_inverse += g_j * g_j * e * (1.0 - e)
        improvement += g_j * (score - e)
    v = 1.0 / v_inverse
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(new_mu * SCALE + START_RATING, new_phi * SCALE, new_sigma)


def idle(player: Rating, days: float) -> Rating:
    """The player after ``days`` idle periods: phi grows as sqrt(phi^2 + days * sigma^2), the RD
    capped at ``MAX_RD`` (never lowered by the cap if it is above it already)."""
    if days <= 0:
        return player
    phi = player.rd / SCALE
    grown = math.sqrt(phi * phi + days * player.volatility * player.volatility) * SCALE
    return Rating(player.rating, max(player.rd, min(grown, MAX_RD)), player.volatility)


def days_between(earlier: str, later: str) -> float:
    """Days (fractional) from one recorded time to a later one; 0 when ``later`` is not later."""
    micros = utc_micros(later) - utc_micros(earlier)
    return max(0.0, micros / (SECONDS_PER_PERIOD * 1_000_000))


def rate_match(first: Rating, second: Rating, first_score: float) -> tuple[Rating, Rating]:
    """Both players after their match (``first_score``: 1 won, 0.5 drew, 0 lost), each rated
    against the other as they stood before it."""
    return (
        update(first, [(second, first_score)]),
        update(second, [(first, 1.0 - first_score)]),
    )
