"""R29: support ends a suspended player's match in play as a forfeit of their side.

A suspension leaves a match the player is in going on (R29) unless an agent also ends it. The
match then ends as a seat that leaves it ends (R26): the seat's side loses, at four seats the
partner with it, the other side wins, and points and ratings follow as for any forfeit
(domain.results). The match stream gets only its ordinary ``match_ended`` (``reason``
``forfeit``, ``caused_by`` ``support:AGENT``); the agent's decision, with its reason and case,
goes to the player's sanctions and the case (app.service.desk).
"""

from __future__ import annotations

import msgspec

from app.errors import InvalidActionError
from app.service.desk import DeskService, acting, reason_of
from app.service.match_service import MatchService
from domain.errors import MatchEndedError


class Forfeited(msgspec.Struct, frozen=True):
    """A forfeit stored: the match, the seat whose side lost, its player, the ended seq."""

    match_id: str
    seat: int
    player_id: str | None
    seq: int


def forfeit_side(
    matches: MatchService,
    desk: DeskService,
    match_id: str,
    agent: str,
    reason: str | None,
    *,
    player_id: str | None = None,
    seat: int | None = None,
    case_id: str | None = None,
    request_id: str | None = None,
) -> Forfeited:
    """End ``match_id`` as a forfeit of the side of ``player_id`` (or of ``seat``).

    Everything is checked before anything is appended: a reason (422 ``reason_required``), a
    named agent (403 ``agent_only``), the case (404), the match (404), a match in play (409
    ``match_ended`` once it has ended, 422 ``invalid_action`` for a table still waiting), and a
    seat of that match held by a person (422 ``invalid_action``). The caller holds the match's
    lock, so the match cannot end between the check and the forfeit.
    """
    why, who = reason_of(reason), acting(agent)
    if case_id is not None:
        desk.case(case_id)
    state = matches.load(match_id)
    if state.status == "ended":
        raise MatchEndedError(f"match {match_id} has ended already: there is nothing to forfeit")
    if state.status != "playing" or state.setup is None:
        raise InvalidActionError(
            "only a match in play can be forfeited (a table still waiting has no result)"
        )
    found = _seat_of(state.player_ids, state.setup.seats, player_id, seat)
    if state.is_bot(found):
        raise InvalidActionError(f"seat {found} is a bot's: only a person's side can forfeit")
    holder = state.player_ids[found] if found < len(state.player_ids) else None
    if holder is None and case_id is None:
        raise InvalidActionError(
            f"seat {found} was taken by name, not by a registered player: name the 'case_id' "
            "the forfeit serves, where it is recorded"
        )
    outcome = matches.leave(
        match_id, found, reason="forfeit", caused_by=f"support:{who}", request_id=request_id
    )
    desk.record_forfeit(match_id, found, holder, who, why, case_id)
    return Forfeited(match_id, found, holder, outcome.seq)


def _seat_of(
    player_ids: tuple[str | None, ...], seats: int, player_id: str | None, seat: int | None
) -> int:
    """The seat named by a player's id, by its number, or by both when they agree."""
    by_player: int | None = None
    if player_id is not None:
        if player_id not in player_ids:
            raise InvalidActionError(f"player {player_id[:40]!r} holds no seat of this match")
        by_player = player_ids.index(player_id)
    if seat is None:
        if by_player is None:
            raise InvalidActionError("name the 'player' (an id) or the 'seat' whose side forfeits")
        return by_player
    if not 0 <= seat < seats:
        raise InvalidActionError(f"the match has seats 0 to {seats - 1}, not {seat}")
    if by_player is not None and by_player != seat:
        raise InvalidActionError(f"player {player_id!r} holds seat {by_player}, not {seat}")
    return seat
