"""Bodies of the results routes: profiles, histories, the ladder and rating charts (docs/api.md,
"Results"; docs/ratings.md)."""

from __future__ import annotations

import msgspec


class ProfileResponse(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /players/{id}``: a player's profile points, record and rating."""

    player_id: str
    name: str
    points: int
    wins: int
    draws: int
    losses: int
    rating: float
    rd: float
    volatility: float
    provisional: bool
    rated_matches: int


class SeatedPlayer(msgspec.Struct, frozen=True, kw_only=True):
    """A player at a seat of an ended match, under the name they show now."""

    seat: int
    player_id: str
    name: str


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One ended match of the player's: where they sat, against whom, the score (``totals``, the
    match totals by side, side 0 first: seat ``seat`` plays for side ``seat % 2``, R2), what it
    paid and did to their rating (``rated`` false and the ratings null for a match that was not
    rated)."""

    match_id: str
    ended: str
    ruleset: str
    seats: int
    seat: int
    private: bool
    reason: str
    result: str
    points: int
    totals: tuple[int, ...]
    partner: SeatedPlayer | None
    opponents: tuple[SeatedPlayer, ...]
    rated: bool
    rating_before: float | None
    rating_after: float | None
    rd_before: float | None
    rd_after: float | None


class HistoryPage(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /players/{id}/matches``: the player's results, the latest first; ``next`` is the
    cursor of the next page (null on the last)."""

    player_id: str
    name: str
    matches: tuple[HistoryEntry, ...]
    next: str | None


class LadderEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One rated player on the ladder."""

    rank: int
    player_id: str
    name: str
    rating: float
    rd: float
    provisional: bool
    rated_matches: int
    points: int
    last_played: str | None = None
    """When the player's last rated match ended (UTC), None before any."""


class LadderPage(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /ladder``: settled players by rating, then provisional ones; ``next`` is the cursor
    of the next page (null on the last)."""

    players: tuple[LadderEntry, ...]
    next: str | None


class RatingPoint(msgspec.Struct, frozen=True, kw_only=True):
    """The player's rating right after one rated match (``match_id`` null for a private table,
    unless the player themself or support asks)."""

    match_id: str | None
    ended: str
    rating: float
    rd: float
    volatility: float


class RatingHistory(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /players/{id}/ratings``: the rating after every rated match, oldest first."""

    player_id: str
    name: str
    ratings: tuple[RatingPoint, ...]
