"""What a finished match pays (R27): profile points, and whether it is rated.

Only a match is a result, never a round. A match pays nothing when any seat is a bot or was
taken without a player (practice), when one player holds two seats, when it was imported from a
file, or when it ended before the first card was played (abandoned while waiting, or left before
the first play), so two accounts cannot farm points. Every other finished match pays each player
24 for a win, 8 for a draw and 3 for a loss; at four seats both players of a side share its
result. A forfeit by timeout or by leaving (R25, R26) is a loss for the side that forfeited and a
win for the other. A result between exactly two players is rated (domain.ratings).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from domain.state import side_of

WIN_POINTS: Final = 24
"""Profile points for a won match."""

DRAW_POINTS: Final = 8
"""Profile points for a drawn match."""

LOSS_POINTS: Final = 3
"""Profile points for a lost match (a forfeit too)."""

Outcome = Literal["win", "draw", "loss"]
"""One player's result of a match."""

POINTS: Final[dict[str, int]] = {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": LOSS_POINTS}
"""Profile points by outcome."""

SCORE: Final[dict[str, float]] = {"win": 1.0, "draw": 0.5, "loss": 0.0}
"""Glicko-2's score of each outcome."""


class FinishedMatch(msgspec.Struct, frozen=True, kw_only=True):
    """What results need of a match that ended: who sat where, and how it ended."""

    match_id: str
    seats: int
    player_ids: tuple[str | None, ...]
    """Each seat's registered player, None for a seat taken by name only (or never taken)."""
    bots: bool
    imported: bool
    played: bool
    """True once any card was played."""
    winner: int | None
    """The winning side (R2: seat s is on side s % 2), None for a draw or no winner."""
    reason: str


class SeatResult(msgspec.Struct, frozen=True, kw_only=True):
    """One player's result of one match: their seat, outcome and profile points."""

    player_id: str
    seat: int
    outcome: Outcome
    points: int


def unscored_because(match: FinishedMatch) -> str | None:
    """Why ``match`` pays nothing (``practice``, ``imported``, ``no_play``, ``one_player``),
    or None when it is a result."""
    if match.imported:
        return "imported"
    if match.bots or len(match.player_ids) != match.seats or None in match.player_ids:
        return "practice"
    if len(set(match.player_ids)) != match.seats:
        return "one_player"
    if not match.played or match.reason == "abandoned":
        return "no_play"
    return None


def seat_results(match: FinishedMatch) -> tuple[SeatResult, ...]:
    """Each player's outcome and points, in seat order; empty when the match pays nothing."""
    if unscored_because(match) is not None:
        return ()
    results = []
    for seat, player_id in enumerate(match.player_ids):
        assert player_id is not None
        outcome: Outcome
        if match.winner is None:
            outcome = "draw"
        elif side_of(seat) == match.winner:
            outcome = "win"
        else:
            outcome = "loss"
        results.append(
            SeatResult(player_id=player_id, seat=seat, outcome=outcome, points=POINTS[outcome])
        )
    return tuple(results)


def is_rated(match: FinishedMatch) -> bool:
    """True for a result between exactly two players (2 seats, two different players)."""
    return match.seats == 2 and len(seat_results(match)) == 2
