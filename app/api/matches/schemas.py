"""Request and response bodies of the HTTP API (docs/api.md), separate from domain events.

Requests refuse unknown fields; cards travel in their text form (R1) and are parsed by the
domain, so a card that is not a card is ``unknown_card``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from app.api.table.schemas import SeatViewResponse
from domain.rulesets import RULESETS

Name = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=64,
        description=(
            "1 to 64 characters; nothing invisible, no blank but the space, not read as a"
            " bot's name or 'deleted player'"
        ),
    ),
]
"""A seat's display name."""

CardText = Annotated[
    str, msgspec.Meta(min_length=1, max_length=8, description="a card, rank then suit: 7D, 10H")
]
"""A card as a client writes it (R1: case-insensitive)."""

SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=3, description="a seat number, 0-based")]
"""A seat of a table of at most four (R2)."""


class CreateMatchRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /matches``: rule set, seats, optional target, bot seats and (test mode) a seed."""

    # The rules decide these (unknown_ruleset, invalid_seat_count, invalid_target, invalid_seat);
    # the schema states the same limits so that clients can read them.
    ruleset: Annotated[
        str,
        msgspec.Meta(
            max_length=32, description="the rule set", extra_json_schema={"enum": list(RULESETS)}
        ),
    ]
    seats: Annotated[
        int,
        msgspec.Meta(
            description="2, or 4 in two partnerships (R2)", extra_json_schema={"enum": [2, 4]}
        ),
    ]
    target: (
        Annotated[
            int,
            msgspec.Meta(
                description="points to win (R22)", extra_json_schema={"minimum": 1, "maximum": 1000}
            ),
        ]
        | None
    ) = None
    bots: Annotated[
        tuple[SeatNumber, ...],
        msgspec.Meta(
            max_length=4,
            description="seats played by bots",
            extra_json_schema={"uniqueItems": True},
        ),
    ] = ()
    bot_kind: Literal["easy", "random", "strong"] = "easy"
    bot_kinds: (
        Annotated[
            dict[SeatNumber, Literal["easy", "random", "strong"]],
            msgspec.Meta(
                description="a kind per bot seat where it is not bot_kind, e.g."
                ' {"1": "strong", "3": "easy"} (docs/bots.md)'
            ),
        ]
        | None
    ) = None
    bot_budget: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=4096,
                description="deals the strong bot samples per decision (docs/bots.md)",
            ),
        ]
        | None
    ) = None
    # The rules decide the turn time (invalid_turn_seconds); the schema states the same range.
    turn_seconds: (
        Annotated[
            int,
            msgspec.Meta(
                description="seconds each person has for a turn (R25); the server's default if"
                " left out",
                extra_json_schema={"minimum": 5, "maximum": 600},
            ),
        ]
        | None
    ) = None
    private: Annotated[
        bool, msgspec.Meta(description="keep the table out of the lobby (its id invites)")
    ] = False
    spectators: Annotated[
        bool, msgspec.Meta(description="false: only seated players and support see the table")
    ] = True
    seed: (
        Annotated[
            str,
            msgspec.Meta(
                max_length=256, description="a text seed (docs/fairness.md); test mode only"
            ),
        ]
        | None
    ) = None


class MatchCreatedResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A new match: its id, its table, which seats are still open, and the last ``seq``."""

    match_id: str
    ruleset: str
    seats: int
    target: int
    bots: tuple[int, ...]
    bot_kind: str
    status: str
    open_seats: tuple[int, ...]
    commitment: str | None
    seq: int
    turn_seconds: int | None = None
    private: bool = False
    spectators: bool = True


class TakeSeatRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /matches/{id}/seats/{seat}``: the name to sit under, and the seat's client seed."""

    name: Name
    client_seed: Annotated[
        str,
        msgspec.Meta(
            max_length=64,
            description="text of at most 64 bytes of UTF-8 that enters the deal with the match"
            " secret (docs/fairness.md); empty for none. Fixed once given: every seed is known"
            " before the first deal",
        ),
    ] = ""


class PlayerSeatRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /matches/{id}/seats/{seat}`` with a player token: the body is optional, and so is
    each field (``{}`` is the same as no body); the player sits under their own name, so a
    ``name`` sent is checked and not used."""

    name: Name | None = None
    client_seed: Annotated[
        str,
        msgspec.Meta(max_length=64, description="as for TakeSeatRequest"),
    ] = ""


class SeatTokenResponse(msgspec.Struct, frozen=True, kw_only=True):
    """A taken seat: the bearer token for every seat route (shown once, never stored)."""

    match_id: str
    seat: int
    name: str
    token: str
    token_id: str
    status: str
    seq: int


class PreviewRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /matches/{id}/preview``: the card to look at."""

    card: CardText


class PreviewResponse(msgspec.Struct, frozen=True, kw_only=True):
    """R24: what the card would take now, by group, and its Basra points; nothing changed."""

    match_id: str
    seat: int
    seq: int
    card: str
    captured: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]
    basra: int
    sweep: bool


class PlayRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /matches/{id}/plays``: the card, and optionally the last ``seq`` the client saw."""

    card: CardText
    seq: (
        Annotated[int, msgspec.Meta(ge=0, description="409 unless this is the match's last seq")]
        | None
    ) = None


class PlayResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The play and everything that followed it (bot replies, deals), as this seat sees them."""

    match_id: str
    seat: int
    card: str
    captured: tuple[str, ...]
    basra: int
    seq: int
    events: list[msgspec.Raw]
    view: SeatViewResponse


class LeaveResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The match as it ended after the seat left."""

    match_id: str
    seat: int
    seq: int
    events: list[msgspec.Raw]
