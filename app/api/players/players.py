"""Players: registering, the player's own record, token rotation, names, and their matches.

A player token (``player_…``) is checked against the player's stream on every request, so a
rotated token is refused at once by every API process (docs/api.md, "Players").
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, delete, get, patch, post
from litestar.params import QueryParameter

from app.api.edges.auth import AnyRequest, authenticate_device, authenticate_player
from app.api.edges.bodies import read_body
from app.api.edges.openapi import SEAT_SECURITY, errors, json_body
from app.api.edges.params import Runtime
from app.api.edges.tokens import issue_player_token
from app.api.players.schemas import (
    PlayerMatch,
    PlayerMatchesResponse,
    PlayerMeResponse,
    PlayerNameRequest,
    PlayerResponse,
    PlayerTokenResponse,
)
from app.readmodels.projections import Projections
from app.service.players import PlayerService, new_player_id
from domain.players import PlayerState, shown_seat_names

MAX_MATCHES = 50
"""The most matches one ``GET /players/me/matches`` returns."""

Limit = Annotated[
    int,
    QueryParameter(description="how many matches at most, newest first", ge=1, le=MAX_MATCHES),
]
"""``?limit=N`` of a player's match list."""


def _response(player: PlayerState) -> PlayerResponse:
    return PlayerResponse(
        player_id=player.player_id, name=player.shown_name, name_erased=player.name is None
    )


def _register(players: PlayerService, name: str) -> PlayerTokenResponse:
    player_id = new_player_id()
    issued = issue_player_token(player_id)
    player = players.register(name, issued.token_hash, player_id)
    return PlayerTokenResponse(player_id=player_id, name=player.shown_name, token=issued.token)


def _rotate(players: PlayerService, player: PlayerState, device_id: str) -> PlayerTokenResponse:
    issued = issue_player_token(player.player_id)
    rotated = players.rotate(player, issued.token_hash, device_id)
    return PlayerTokenResponse(
        player_id=rotated.player_id, name=rotated.shown_name, token=issued.token
    )


def _matches(
    projections: Projections, players: PlayerService, player_id: str, limit: int
) -> PlayerMatchesResponse:
    """The player's matches from the players read model, brought up to the log first.

    The log only: the names shown are read from the listed players' own streams in one query,
    so the request never re-reads the whole players directory (docs/performance.md, "The lobby's
    games list and a profile"). Only the public table of each match is listed (names, status,
    turn, totals), never a hand.
    """
    models = projections.matches
    models.catch_up(refresh=False)
    rows = models.player_matches(player_id, limit=limit)
    matches = {row.match_id: models.match(row.match_id) for row in rows}
    shown = players.shown_names(
        {pid for match in matches.values() if match is not None for pid in match.player_ids}
    )
    listed = []
    for row in rows:
        match = matches[row.match_id]
        if match is None or row.ruleset is None or row.seats is None:
            continue
        names = shown_seat_names(match.players, match.player_ids, shown)
        listed.append(
            PlayerMatch(
                match_id=row.match_id,
                ruleset=row.ruleset,
                seats=row.seats,
                seat=row.seat,
                status=row.status,
                turn=row.turn,
                deadline=row.deadline if row.status == "playing" else None,
                your_turn=row.status == "playing" and row.turn == row.seat,
                names=names,
                totals=tuple(row.totals),
                winner=row.winner,
            )
        )
    return PlayerMatchesResponse(player_id=player_id, matches=tuple(listed))


class PlayersController(Controller):
    """``/players`` and ``/players/me``: a player's identity, token, name and matches."""

    path = "/players"
    tags = ("players",)

    @post(
        "/",
        status_code=201,
        responses=errors(400, 413, 422),
        operation_class=json_body(PlayerNameRequest),
    )
    async def register(self, request: AnyRequest, runtime: Runtime) -> PlayerTokenResponse:
        """Register a player; the response holds the player's token (shown once)."""
        data = await read_body(request, PlayerNameRequest)
        return await runtime.call(_register, runtime.players, data.name)

    @get("/me", responses=errors(401), security=SEAT_SECURITY)
    async def me(self, request: AnyRequest, runtime: Runtime) -> PlayerMeResponse:
        """The player whose token this is, with a warning from support shown once (then null)."""
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        warning = await runtime.call(runtime.desk.take_warning, player.player_id)
        shown = _response(player)
        return PlayerMeResponse(**msgspec.structs.asdict(shown), warning=warning)

    @patch(
        "/me",
        responses=errors(400, 401, 409, 413, 422),
        operation_class=json_body(PlayerNameRequest),
        security=SEAT_SECURITY,
    )
    async def rename(self, request: AnyRequest, runtime: Runtime) -> PlayerResponse:
        """Change the display name; every view and export shows the new one."""
        data = await read_body(request, PlayerNameRequest)
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return _response(await runtime.call(runtime.players.rename, player, data.name))

    @delete("/me/name", status_code=200, responses=errors(401, 409), security=SEAT_SECURITY)
    async def erase_name(self, request: AnyRequest, runtime: Runtime) -> PlayerResponse:
        """Erase the name: ``deleted player`` shows in every view and export from now on."""
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return _response(await runtime.call(runtime.players.erase_name, player))

    @post("/me/token", status_code=200, responses=errors(401, 409), security=SEAT_SECURITY)
    async def rotate(self, request: AnyRequest, runtime: Runtime) -> PlayerTokenResponse:
        """A new token for this device; its old token and every other device's stop working at
        once."""
        player, device = await authenticate_device(runtime, request.headers.get("authorization"))
        return await runtime.call(_rotate, runtime.players, player, device.device_id)

    @get("/me/matches", responses=errors(401, 422), security=SEAT_SECURITY)
    async def matches(
        self, request: AnyRequest, runtime: Runtime, limit: Limit = 20
    ) -> PlayerMatchesResponse:
        """The player's matches, newest first: seat, status, whose turn it is, and scores."""
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return await runtime.offload(
            _matches, runtime.projections, runtime.players, player.player_id, limit
        )
