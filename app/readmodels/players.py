"""The players read models: the player directory and each player's matches (docs/storage.md).

``player_matches`` has one row per (player, match) a registered player took a seat at. It is
folded from the global log in the same batch, transaction and tracked position as ``matches``,
so a rebuild gives what following the log gave, and a kill mid-batch counts nothing twice. The
rows copy the match's status, totals and winner from its ``matches`` row and keep whose turn it
is (R3: the seat after the dealer opens a round; each play passes the turn on; none between
rounds or once the match ends) and when that turn runs out (R25: the deadline recorded on the
``floor_dealt`` or ``card_played`` that passed the turn; none where no clock runs).

``players`` (the directory: id, name or erased, stream version) is folded from the players'
own streams, which have no global order: each catch-up compares every stream's last version
(one index scan of ``stored_players``) with the version the directory holds and re-reads only
the streams that moved on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from app.errors import CorruptEventError
from app.store.decoding import TOPICS
from domain.events import (
    CardPlayed,
    FloorDealt,
    MatchEnded,
    RoundScored,
    RoundStarted,
    optional,
)
from domain.players import DELETED_NAME, PlayerState
from domain.recorded import RecordedEvent

if TYPE_CHECKING:
    from app.store.match_store import LogEntry

Row = dict[str, Any]
"""A row as sqlite-utils writes it."""

PLAYER_COLUMNS: dict[str, type] = {
    "player_id": str,
    "name": str,
    "erased": int,
    "version": int,
}
"""The ``players`` directory: the current name (None once erased) and the stream's version."""

PLAYER_MATCH_COLUMNS: dict[str, type] = {
    "player_id": str,
    "match_id": str,
    "seat": int,
    "ruleset": str,
    "seats": int,
    "created": str,
    "status": str,
    "turn": int,
    "deadline": str,
    "totals": str,
    "winner": int,
}
"""``player_matches``: one row per seat a registered player took (totals as JSON)."""

_TURN_TOPICS = frozenset(
    TOPICS[cls] for cls in (RoundStarted, FloorDealt, CardPlayed, RoundScored, MatchEnded)
)


class PlayerMatchView(msgspec.Struct, frozen=True, kw_only=True):
    """One of a player's matches as the read model last saw it."""

    match_id: str
    seat: int
    ruleset: str | None
    seats: int | None
    created: str | None
    status: str
    turn: int | None
    deadline: str | None = None
    totals: list[int]
    winner: int | None


def player_match_view(row: Row) -> PlayerMatchView:
    """The typed view of a stored ``player_matches`` row."""
    fields = {k: v for k, v in row.items() if k != "player_id"}
    totals = fields.get("totals")
    fields["totals"] = json.loads(totals) if isinstance(totals, str) else (totals or [0, 0])
    return msgspec.convert(fields, PlayerMatchView)


def directory_row(player: PlayerState) -> Row:
    """The directory row of a player as their stream says now."""
    return {
        "player_id": player.player_id,
        "name": player.name,
        "erased": int(player.name is None),
        "version": player.version,
    }


def shown_name(row: Row) -> str:
    """The name a directory row shows under: the name, or ``deleted player`` once erased."""
    return str(row["name"]) if not row["erased"] and row["name"] is not None else DELETED_NAME


def fold_player_matches(
    rows: dict[str, dict[str, Row]],
    match_row: Row,
    entry: LogEntry,
    decode: Callable[[LogEntry], RecordedEvent],
) -> None:
    """Bring the player rows of ``entry``'s match (``rows[match_id][player_id]``) up to date
    after ``match_row`` folded the entry."""
    match_id = entry.match_id
    ids = [pid for pid in match_row.get("player_ids") or [] if pid is not None]
    if not ids:
        return
    mine = rows.setdefault(match_id, {})
    held = next(iter(mine.values())) if mine else {}
    turn, deadline = held.get("turn"), held.get("deadline")
    if entry.topic in _TURN_TOPICS:
        turn, deadline = _turn_after(entry, decode, match_row, turn, deadline)
    for seat, pid in enumerate(match_row["player_ids"]):
        if pid is None:
            continue
        row = mine.setdefault(pid, {"player_id": pid})
        row.update(
            match_id=match_id,
            seat=seat,
            ruleset=match_row["ruleset"],
            seats=match_row["seats"],
            created=match_row["created"],
            status=match_row["status"],
            turn=turn,
            deadline=deadline,
            totals=json.dumps(list(match_row["totals"])),
            winner=match_row["winner"],
        )


def _turn_after(
    entry: LogEntry,
    decode: Callable[[LogEntry], RecordedEvent],
    match_row: Row,
    turn: int | None,
    deadline: str | None,
) -> tuple[int | None, str | None]:
    """Whose turn it is after ``entry`` and when that turn runs out (R25)."""
    try:
        event = decode(entry).event
    except CorruptEventError:
        return turn, deadline  # the matches row flags the stream; the turn stays where it was
    seats = match_row["seats"] or 1
    if isinstance(event, RoundStarted):
        return (event.dealer + 1) % seats, None  # R3: the seat after the dealer plays first
    if isinstance(event, FloorDealt):
        return turn, optional(event.deadline)  # R25: the first seat's clock starts here
    if isinstance(event, CardPlayed):
        return (event.seat + 1) % seats, optional(event.deadline)
    return None, None  # between rounds and after the end nobody is to play


def changed_players(stored: dict[str, int], known: Iterable[Row]) -> list[str]:
    """Ids whose stream moved past (or is not yet in) the directory, in id order."""
    held = {row["player_id"]: row["version"] for row in known}
    return sorted(pid for pid, version in stored.items() if held.get(pid) != version)
