"""The ``matches`` read model: one row per match, folded from the global log.

Every event is decoded, so a stream that cannot be read back is flagged in ``problem``; only
creation, seats, rounds, scores and the end change the other columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, assert_never

import msgspec

from app.errors import CorruptEventError
from app.store.decoding import TOPICS
from domain.events import (
    CardPlayed,
    CardsDealt,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    table_settings,
    tagged,
)
from domain.names import bot_name
from domain.recorded import RecordedEvent

if TYPE_CHECKING:
    from app.store.match_store import LogEntry

Row = dict[str, Any]
"""A ``matches`` row as sqlite-utils writes it (JSON columns as Python lists)."""

COLUMNS: dict[str, type] = {
    "match_id": str,
    "ruleset": str,
    "seats": int,
    "target": int,
    "status": str,
    "players": str,
    "bots": str,
    "bot_kind": str,
    "created": str,
    "ended": str,
    "winner": int,
    "end_reason": str,
    "totals": str,
    "rounds": int,
    "plays": int,
    "seq": int,
    "problem": str,
    "turn_seconds": int,
    "private": int,
    "spectators": int,
    "player_ids": str,
    "rematch_of": str,
    "rematch": str,
}
"""The ``matches`` table: players, bots, totals and player ids are JSON lists."""

JSON_COLUMNS = ("players", "bots", "totals", "player_ids")
"""Columns stored as JSON text."""

BOOL_COLUMNS = ("private", "spectators")
"""Columns stored as 0 or 1."""


class MatchSummaryView(msgspec.Struct, frozen=True, kw_only=True):
    """One row of ``basra matches``: a match at the last log position the read model applied."""

    match_id: str
    ruleset: str | None
    seats: int | None
    target: int | None
    status: str
    players: list[str | None]
    bots: list[int]
    bot_kind: str | None
    created: str | None
    ended: str | None
    winner: int | None
    end_reason: str | None
    totals: list[int]
    rounds: int
    plays: int
    seq: int
    problem: str | None = None
    turn_seconds: int | None = None
    private: bool = False
    spectators: bool = True
    player_ids: list[str | None] = msgspec.field(default_factory=list)
    rematch_of: str | None = None
    rematch: str | None = None


def view_of(row: Row) -> MatchSummaryView:
    """The typed view of a stored row."""
    fields = dict(row)
    for column in JSON_COLUMNS:
        value = fields.get(column)
        fields[column] = json.loads(value) if isinstance(value, str) else (value or [])
    for column in BOOL_COLUMNS:  # SQLite keeps a bool as 0 or 1
        fields[column] = bool(fields.get(column, column == "spectators"))
    return msgspec.convert(fields, MatchSummaryView)


def _kind_at(event: MatchCreated, seat: int) -> str:
    """The kind of the bot at ``seat``: its own where the match names one (``bot_kinds``)."""
    kinds = event.bot_kinds if isinstance(event.bot_kinds, dict) else {}
    return kinds.get(str(seat), event.bot_kind)


def blank_row(match_id: str) -> Row:
    """A row for a match whose first event has not been applied (or could not be read)."""
    return {
        "match_id": match_id,
        "ruleset": None,
        "seats": None,
        "target": None,
        "status": "unknown",
        "players": [],
        "bots": [],
        "bot_kind": None,
        "created": None,
        "ended": None,
        "winner": None,
        "end_reason": None,
        "totals": [0, 0],
        "rounds": 0,
        "plays": 0,
        "seq": 0,
        "problem": None,
        "turn_seconds": None,
        "private": False,
        "spectators": True,
        "player_ids": [],
        "rematch_of": None,
        "rematch": None,
    }


_PLAYED = TOPICS[CardPlayed]


def apply_entry(row: Row, entry: LogEntry, decode: Callable[[LogEntry], RecordedEvent]) -> None:
    """Fold one log entry into its match's row (in place)."""
    if entry.seq != row["seq"] + 1 and row["problem"] is None:
        row["problem"] = f"seq {entry.seq} follows seq {row['seq']}"
    row["seq"] = entry.seq
    if entry.topic == _PLAYED:
        row["plays"] += 1
    # Every entry is decoded, plays and deals too: a match whose stream cannot be read back
    # whole is flagged, as replaying or verifying it would fail.
    try:
        recorded = decode(entry)
    except CorruptEventError as error:
        if row["problem"] is None:
            row["problem"] = error.message
        return
    match tagged(recorded.event):
        case MatchCreated() as event:
            settings = table_settings(event)
            row.update(
                ruleset=event.ruleset,
                seats=event.seats,
                target=event.target,
                status="waiting",
                players=[
                    bot_name(_kind_at(event, s)) if s in event.bots else None
                    for s in range(event.seats)
                ],
                bots=list(event.bots),
                bot_kind=event.bot_kind,
                created=recorded.at,
                turn_seconds=settings.turn_seconds,
                private=settings.private,
                spectators=settings.spectators,
                player_ids=[None] * event.seats,
                rematch_of=settings.rematch_of,
            )
        case SeatTaken() as event:
            players = list(row["players"])
            if 0 <= event.seat < len(players):
                players[event.seat] = event.name
            row["players"] = players
            if isinstance(event.player_id, str):
                ids = list(row["player_ids"]) or [None] * len(players)
                if 0 <= event.seat < len(ids):
                    ids[event.seat] = event.player_id
                row["player_ids"] = ids
        case RoundStarted() as event:
            row.update(status="playing", rounds=event.round)
        case RoundScored() as event:
            row["totals"] = list(event.totals)
        case MatchEnded() as event:
            row.update(
                status="ended",
                winner=event.winner,
                end_reason=event.reason,
                totals=list(event.totals),
                ended=recorded.at,
            )
        case RematchCreated() as event:
            row["rematch"] = event.match_id
        case CardPlayed() | CardsDealt() | FloorDealt():
            pass  # plays are counted above; deals change nothing in this row
        case unreachable:
            assert_never(unreachable)
