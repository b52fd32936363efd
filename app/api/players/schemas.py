"""Bodies of the players' routes (docs/api.md, "Players")."""

from __future__ import annotations

from typing import Annotated

import msgspec

PlayerName = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=32,
        description=(
            "1 to 32 characters; nothing invisible, no blank but the space, not read as a"
            " bot's name or 'deleted player'"
        ),
    ),
]
"""A player's display name."""


class PlayerNameRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /players`` and ``PATCH /players/me``: the name to show."""

    name: PlayerName


class PlayerTokenResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A player's id and a new token (shown once; only its hash is kept)."""

    player_id: str
    name: str
    token: str


class PlayerResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A player as others see them: the id, and the name (``deleted player`` once erased)."""

    player_id: str
    name: str
    name_erased: bool


class PlayerMeResponse(PlayerResponse, frozen=True, kw_only=True, omit_defaults=True):
    """``GET /players/me``: the player, and a warning from support shown once (left out when
    there is none)."""

    warning: str | None = None


class PlayerMatch(msgspec.Struct, frozen=True, kw_only=True):
    """One match of the player's: where they sit, how it stands, whose turn it is."""

    match_id: str
    ruleset: str
    seats: int
    seat: int
    status: str
    turn: int | None
    your_turn: bool
    names: tuple[str | None, ...]
    totals: tuple[int, ...]
    winner: int | None


class PlayerMatchesResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The player's matches, newest first, at most ``limit`` of them."""

    player_id: str
    matches: tuple[PlayerMatch, ...]
