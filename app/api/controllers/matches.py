"""Creating matches, the public table, and taking seats (anyone)."""

from __future__ import annotations

from litestar import Controller, get, post

from app.api import operations as ops
from app.api.auth import AnyRequest, authenticate_player
from app.api.bodies import read_body
from app.api.docs import errors, json_body
from app.api.errors import SeedRefusedError
from app.api.params import MatchIdPath, Runtime, SeatPath, seat_number
from app.api.schemas import (
    CreateMatchRequest,
    MatchCreatedResponse,
    SeatTokenResponse,
    TakeSeatRequest,
)
from app.api.tokens import bearer, is_player_token
from domain.views import TableView


class MatchesController(Controller):
    """``POST /matches``, ``GET /matches/{id}``, ``POST /matches/{id}/seats/{seat}``."""

    path = "/matches"
    tags = ("matches",)

    @post(
        "/",
        status_code=201,
        responses=errors(400, 403, 413, 422),
        operation_class=json_body(CreateMatchRequest),
    )
    async def create(self, request: AnyRequest, runtime: Runtime) -> MatchCreatedResponse:
        """Create a match. Bot seats play by themselves; a table of bots only plays through."""
        data = await read_body(request, CreateMatchRequest)
        if data.seed is not None and not runtime.settings.test_mode:
            raise SeedRefusedError("a text seed is accepted only in test mode (BASRA_TEST_MODE=1)")
        return await runtime.call(
            ops.create_match,
            runtime.service,
            ruleset=data.ruleset,
            seats=data.seats,
            target=data.target,
            bots=data.bots,
            bot_kind=data.bot_kind,
            seed=data.seed,
            request_id=ops.new_request_id(),
        )

    @get("/{match_id:str}", responses=errors(404))
    async def table(self, runtime: Runtime, match_id: MatchIdPath) -> TableView:
        """The public table: status, open seats by name, floor, counts, scores; no hand (R23)."""
        return await runtime.call(ops.table, runtime.service, match_id, runtime.players)

    @post(
        "/{match_id:str}/seats/{seat:str}",
        status_code=201,
        responses=errors(400, 401, 404, 409, 413, 422),
        operation_class=json_body(TakeSeatRequest, required=False),
    )
    async def take_seat(
        self, request: AnyRequest, runtime: Runtime, match_id: MatchIdPath, seat: SeatPath
    ) -> SeatTokenResponse:
        """Take a seat; the response holds its bearer token (kept nowhere but as a hash).

        With ``Authorization: Bearer PLAYER_TOKEN`` the player sits under their own name (the
        body may be left out) and the player token also works on this seat's routes.
        """
        number = seat_number(seat)
        authorization = request.headers.get("authorization")
        token = bearer(authorization)
        if token is None or not is_player_token(token):
            data = await read_body(request, TakeSeatRequest)
            name, player_id = data.name, None
        else:
            # A registered player sits under their own name; a body, if sent, must still be valid.
            player = await authenticate_player(runtime, authorization)
            if (await request.body()).strip():
                await read_body(request, TakeSeatRequest)
            name, player_id = player.shown_name, player.player_id
        async with runtime.match_lock(match_id):
            return await runtime.call(
                ops.take_seat,
                runtime.service,
                match_id,
                number,
                name,
                ops.new_request_id(),
                player_id,
            )
