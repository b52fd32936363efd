"""Bodies of the online table (docs/api.md): views with their live turn, the lobby, rematches."""

from __future__ import annotations

import msgspec

from app.api.table.after import After
from domain.views import SeatView, SupportView, TableView


class TableResponse(TableView, frozen=True, kw_only=True):
    """``GET /matches/{id}``: the public table (no hand, R23), its live turn, and which seats
    are connected now (a feed of the seat open: true or false, nothing more)."""

    after: After
    connected: tuple[bool, ...]


class SeatViewResponse(SeatView, frozen=True, kw_only=True):
    """A seat's view (its own hand only, R23), the live turn, and which seats are connected."""

    after: After
    connected: tuple[bool, ...]


class SupportViewResponse(SupportView, frozen=True, kw_only=True):
    """Support's view, the live turn, and which seats are connected."""

    after: After
    connected: tuple[bool, ...]


ViewResponse = SeatViewResponse | SupportViewResponse
"""``GET /matches/{id}/view``: a seat's view, or support's view of every hand."""


class LobbySeat(msgspec.Struct, frozen=True, kw_only=True):
    """Who sits at one seat: a person's name, a bot's name, or nobody yet (``name`` null)."""

    seat: int
    name: str | None
    bot: bool
    reserved: bool


class LobbyTable(msgspec.Struct, frozen=True, kw_only=True):
    """One listed table: public fields only (no hand, no token, no secret)."""

    match_id: str
    ruleset: str
    seats: int
    target: int
    turn_seconds: int | None
    status: str
    players: list[LobbySeat]
    open_seats: list[int]
    scores: list[int]
    winner: int | None
    end_reason: str | None
    created: str
    rematch_of: str | None
    rematch: str | None


class LobbyPage(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /matches``: a page of tables, newest first; ``next`` is the cursor of the next page
    (null on the last)."""

    matches: list[LobbyTable]
    next: str | None


class RematchResponse(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /matches/{id}/rematch``: the next match, the same settings, the same players.

    ``reserved`` lists the seats kept for the registered players who held them (only that
    player's token takes such a seat); ``open_seats`` are free for anyone (name-only seats).
    ``created`` is false when the rematch already existed (the same answer again).
    """

    match_id: str
    rematch_of: str
    ruleset: str
    seats: int
    target: int
    turn_seconds: int | None
    bots: tuple[int, ...]
    bot_kind: str
    private: bool
    spectators: bool
    reserved: tuple[int, ...]
    open_seats: tuple[int, ...]
    commitment: str | None
    status: str
    created: bool
