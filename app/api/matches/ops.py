"""The online table over HTTP: live turns, spectators, the lobby and rematches (docs/api.md).

Blocking functions over the service, run by the runtime like app.api.table.ops. What leaves
here for anyone not seated is built from ``table_view`` (no hand at all, R23) or from the
matches read model, which holds no card, token or secret.
"""

from __future__ import annotations

import secrets
from collections.abc import Set

import msgspec

from app.api.edges.errors import (
    InvalidFilterError,
    SpectatorsRefusedError,
)
from app.api.table.after import after_of
from app.api.table.ops import named
from app.api.table.schemas import (
    LobbyPage,
    LobbySeat,
    LobbyTable,
    RematchResponse,
    SeatViewResponse,
    SupportViewResponse,
    TableResponse,
)
from app.errors import ConflictError
from app.readmodels.matches import MatchSummaryView
from app.readmodels.models import ReadModels
from app.readmodels.projections import Projections
from app.service import MatchService
from app.service.players import PlayerService
from domain.errors import MatchNotEndedError, RematchExistsError
from domain.redaction import SUPPORT
from domain.rulesets import RULESETS
from domain.state import MatchState
from domain.views import seat_view, support_view, table_view

LOBBY_STATUSES = ("waiting", "playing", "ended")
"""The statuses a lobby filter may name."""

LOBBY_LIMIT = (1, 100)
"""The fewest and most tables one lobby page holds (20 when not asked)."""


# -- spectators ---------------------------------------------------------------------------------


def check_spectators(state: MatchState) -> None:
    """403 ``spectators_refused`` when the table shows itself to seated players only."""
    if state.setup is not None and not state.setup.spectators:
        raise SpectatorsRefusedError(
            "this table was created without spectators: only its seats and support see it"
        )


def public_table(
    service: MatchService,
    match_id: str,
    players: PlayerService | None,
    *,
    seated: bool,
    connected: Set[int] = frozenset(),
) -> TableResponse:
    """The public table (no hand, R23) with its live turn and the ``connected`` seats' flags;
    ``seated`` callers pass the spectators check (a seat of the match, or support)."""
    state = named(service, players, match_id)
    if not seated:
        check_spectators(state)
    view = table_view(state)
    chain = service.chain_head(match_id, state.events)
    after = after_of(state, service.clock(), chain, connected)
    return TableResponse(**msgspec.structs.asdict(view), after=after, connected=after.connected)


def spectators_allowed(service: MatchService, match_id: str) -> bool:
    """Whether the table shows itself to anyone (404 for an unknown match)."""
    setup = service.load(match_id).setup
    return setup is None or setup.spectators


def seat_or_support_view(
    service: MatchService,
    match_id: str,
    seat: int,
    players: PlayerService | None = None,
    connected: Set[int] = frozenset(),
) -> SeatViewResponse | SupportViewResponse:
    """The table as ``seat`` (or SUPPORT) sees it, with its live turn and who is connected."""
    state = named(service, players, match_id)
    chain = service.chain_head(match_id, state.events)
    after = after_of(state, service.clock(), chain, connected)
    if seat == SUPPORT:
        shown = support_view(state)
        return SupportViewResponse(
            **msgspec.structs.asdict(shown), after=after, connected=after.connected
        )
    return SeatViewResponse(
        **msgspec.structs.asdict(seat_view(state, seat)), after=after, connected=after.connected
    )


# -- the lobby ----------------------------------------------------------------------------------


def lobby_filters(
    status: str | None, ruleset: str | None, seats: str | None, limit: str | None
) -> tuple[str | None, str | None, int | None, int]:
    """The lobby's filters, checked: 400 ``invalid_filter`` for one that names nothing."""
    if status is not None and status not in LOBBY_STATUSES:
        raise InvalidFilterError(f"status must be waiting, playing or ended, not {status[:40]!r}")
    if ruleset is not None and ruleset not in RULESETS:
        raise InvalidFilterError(
            f"ruleset must be one of {', '.join(RULESETS)}, not {ruleset[:40]!r}"
        )
    if seats is not None and seats not in ("2", "4"):
        raise InvalidFilterError(f"seats must be 2 or 4, not {seats[:40]!r}")
    count = 20
    if limit is not None:
        low, high = LOBBY_LIMIT
        if not (limit.isascii() and limit.isdigit() and low <= int(limit[:4]) <= high):
            raise InvalidFilterError(
                f"limit must be a whole number {low}-{high}, not {limit[:40]!r}"
            )
        count = int(limit)
    return status, ruleset, None if seats is None else int(seats), count


def lobby(
    projections: Projections,
    players: PlayerService,
    *,
    status: str | None,
    ruleset: str | None,
    seats: int | None,
    limit: int,
    cursor: str | None,
) -> LobbyPage:
    """A page of public tables, newest first, brought up to the log first; 400
    ``invalid_cursor`` unless ``cursor`` is one this server handed out for a table it lists."""
    models = projections.matches
    models.catch_up()
    page = models.lobby_page(
        status=status, ruleset=ruleset, seats=seats, limit=limit, cursor=cursor
    )
    ids = {pid for row in page.rows for pid in row.player_ids if pid is not None}
    shown = players.shown_names(sorted(ids))
    return LobbyPage(
        matches=[_lobby_table(models, row, shown) for row in page.rows], next=page.next
    )


def _lobby_table(models: ReadModels, row: MatchSummaryView, shown: dict[str, str]) -> LobbyTable:
    """One table as the lobby lists it: names by player id now, bots by their names."""
    assert row.ruleset is not None and row.seats is not None and row.target is not None
    assert row.created is not None
    kept = _reserved_from_row(models, row) if row.status == "waiting" else {}
    seats = []
    for seat in range(row.seats):
        pid = row.player_ids[seat] if seat < len(row.player_ids) else None
        name = row.players[seat] if seat < len(row.players) else None
        if pid is not None:
            name = shown.get(pid, name)
        seats.append(LobbySeat(seat=seat, name=name, bot=seat in row.bots, reserved=seat in kept))
    waiting = row.status == "waiting"
    return LobbyTable(
        match_id=row.match_id,
        ruleset=row.ruleset,
        seats=row.seats,
        target=row.target,
        turn_seconds=row.turn_seconds,
        status=row.status,
        players=seats,
        open_seats=[s.seat for s in seats if waiting and s.name is None and not s.reserved],
        scores=list(row.totals),
        winner=row.winner,
        end_reason=row.end_reason,
        created=row.created,
        rematch_of=row.rematch_of,
        rematch=row.rematch,
    )


def _reserved_from_row(models: ReadModels, row: MatchSummaryView) -> dict[int, str]:
    """The rematch seats still kept for their players, from the previous match's row."""
    if row.rematch_of is None:
        return {}
    previous = models.match(row.rematch_of)
    if previous is None:
        return {}
    return {
        seat: pid
        for seat, pid in enumerate(previous.player_ids)
        if pid is not None and seat < len(row.player_ids) and row.player_ids[seat] is None
    }


# -- rematch ------------------------------------------------------------------------------------


def reserved_seats(state: MatchState) -> dict[int, str]:
    """The seats of a rematch kept for the registered players who held them in the match it
    follows: seat -> player id, as its ``match_created`` records them (``reserved``); the rules
    refuse anyone else those seats (``seat_reserved``)."""
    setup = state.setup
    if setup is None:
        return {}
    return {seat: pid for seat, pid in enumerate(setup.reserved) if pid is not None}


def kept_for_rematch(previous: MatchState) -> tuple[str | None, ...]:
    """The seats a rematch of the ended ``previous`` keeps: each registered player's own."""
    setup = previous.setup
    assert setup is not None
    ids = previous.player_ids
    return tuple(
        ids[seat] if seat < len(ids) and seat not in setup.bots else None
        for seat in range(setup.seats)
    )


def rematch(
    service: MatchService, match_id: str, caused_by: str, request_id: str
) -> RematchResponse:
    """The next match after the ended ``match_id``, created once: asked again, the same one.

    The link is recorded first on the old stream (``rematch_created``, where the store's
    optimistic concurrency lets one caller win), then the new match is created under that id
    with the same settings and a fresh secret. A caller that finds the link but no match (a
    crash in between) creates it.
    """
    before = service.load(match_id)
    if before.status != "ended":
        raise MatchNotEndedError("a rematch follows only a match that has ended")
    new_id = before.rematch
    made = False
    if new_id is None:
        candidate = f"m-{secrets.token_hex(8)}"
        try:
            service.record_rematch(match_id, candidate, caused_by=caused_by, request_id=request_id)
            new_id, made = candidate, True
        except (ConflictError, RematchExistsError):
            new_id = service.load(match_id).rematch  # another caller linked one first
            if new_id is None:
                raise
    created: MatchState | None = None  # the new match as its creation left it, if made here
    if not service.store.last_seq(new_id):
        setup = before.setup
        assert setup is not None
        created = service.create_match(
            ruleset=setup.ruleset,
            seats=setup.seats,
            target=setup.target,
            bots=setup.bots,
            bot_kind=setup.bot_kind,
            match_id=new_id,
            caused_by="server",  # the new match's own first line; the link names the caller
            request_id=request_id,
            # R25: the same turn time, whether the table or the server chose it.
            server_turn_seconds=setup.turn_seconds,
            private=setup.private,
            spectators=setup.spectators,
            rematch_of=match_id,
            reserved=kept_for_rematch(before),
        ).after
        made = True
    state = created if created is not None else service.load(new_id)
    return _rematch_response(state, new_id, match_id, made)


def _rematch_response(state: MatchState, new_id: str, old_id: str, made: bool) -> RematchResponse:
    """The rematch ``new_id`` as its callers see it: its settings, open and kept seats."""
    setup = state.setup
    assert setup is not None
    kept = reserved_seats(state)
    waiting = state.status == "waiting"
    taken = {s for s, name in enumerate(state.names) if name is not None}
    return RematchResponse(
        match_id=new_id,
        rematch_of=old_id,
        ruleset=setup.ruleset,
        seats=setup.seats,
        target=setup.target,
        turn_seconds=setup.turn_seconds,
        bots=setup.bots,
        bot_kind=setup.bot_kind,
        private=setup.private,
        spectators=setup.spectators,
        reserved=tuple(sorted(s for s in kept if s not in taken)),
        open_seats=tuple(
            s
            for s in range(setup.seats)
            if waiting and s not in setup.bots and s not in kept and s not in taken
        ),
        commitment=setup.commitment,
        status=state.status,
        created=made,
    )
