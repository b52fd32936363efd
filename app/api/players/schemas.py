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
    """One match of the player's: where they sit, how it stands, whose turn it is and when that
    turn runs out (``deadline``, UTC, R25; null when no clock runs on the seat on turn)."""

    match_id: str
    ruleset: str
    seats: int
    seat: int
    status: str
    turn: int | None
    deadline: str | None
    your_turn: bool
    names: tuple[str | None, ...]
    totals: tuple[int, ...]
    winner: int | None


class PlayerMatchesResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The player's matches, newest first, at most ``limit`` of them."""

    player_id: str
    matches: tuple[PlayerMatch, ...]


LinkCodeText = Annotated[
    str,
    msgspec.Meta(min_length=1, max_length=32, description="the code shown on the other device"),
]
"""A linking code as typed (spaces and dashes are ignored, case too)."""


class LinkCodeResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A one-use code for linking another device (shown once) and when it stops working."""

    code: str
    expires: str


class LinkRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /players/links``: the code another device of the player was given."""

    code: LinkCodeText


class LinkedResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The player this device is now linked to, and its own token (shown once)."""

    player_id: str
    token: str
    device_id: str


class DeviceEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One device holding a token of the player: made when, last used in which hour, and
    whether it is the one asking (never its token, nor its hash)."""

    device_id: str
    made: str | None
    last_used: str | None
    this_device: bool


class DevicesResponse(msgspec.Struct, frozen=True, kw_only=True):
    """Every device holding a token of the player, in the order they were linked."""

    player_id: str
    devices: tuple[DeviceEntry, ...]
