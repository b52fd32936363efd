"""Matches between players played through the service to each kind of end, for results tests."""

from __future__ import annotations

from app.service import MatchService
from app.service.players import PlayerService


def register(players: PlayerService, *names: str) -> list[str]:
    """Register players under ``names``; their ids in order."""
    return [players.register(name, "0" * 64).player_id for name in names]


def seat_all(service: MatchService, match_id: str, ids: list[str | None], **table: object) -> None:
    """Create a table of ``len(ids)`` seats (target 1: one round) and seat each id (None: a
    seat taken by name only)."""
    service.create_match(
        ruleset="classic",
        seats=len(ids),
        target=1,
        match_id=match_id,
        **table,  # type: ignore[arg-type]
    )
    for seat, pid in enumerate(ids):
        service.take_seat(match_id, seat, f"S{seat}", player_id=pid)


def play_to_end(service: MatchService, match_id: str) -> None:
    """Play the first card of whoever is on turn until the match ends."""
    state = service.load(match_id)
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        service.play_card(match_id, seat, state.hands[seat][0])
        state = service.load(match_id)


def play_once(service: MatchService, match_id: str) -> None:
    """The seat on turn plays its first card."""
    state = service.load(match_id)
    seat = state.turn
    assert seat is not None
    service.play_card(match_id, seat, state.hands[seat][0])


def finished_match(
    service: MatchService, match_id: str, ids: list[str | None], end: str = "target"
) -> None:
    """A match between ``ids`` ended by ``end``: ``target`` (played out), ``forfeit`` (seat 0
    leaves after one play), ``no_play`` (seat 0 leaves before any play), ``abandoned``."""
    if end == "abandoned":
        service.create_match(ruleset="classic", seats=len(ids), target=1, match_id=match_id)
        service.take_seat(match_id, 0, "S0", player_id=ids[0])
        service.leave(match_id, 0)
        return
    seat_all(service, match_id, ids)
    if end == "target":
        play_to_end(service, match_id)
    elif end == "forfeit":
        play_once(service, match_id)
        service.leave(match_id, 0)
    elif end == "no_play":
        service.leave(match_id, 0)
    else:
        raise ValueError(end)
