"""Creating matches, the public table, and taking seats (anyone)."""

from __future__ import annotations

from litestar import Controller, get, post

from app.api import operations as ops
from app.api.auth import AnyRequest
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
        return await runtime.call(ops.table, runtime.service, match_id)

    @post(
        "/{match_id:str}/seats/{seat:str}",
        status_code=201,
        responses=errors(400, 404, 409, 413, 422),
        operation_class=json_body(TakeSeatRequest),
    )
    async def take_seat(
        self, request: AnyRequest, runtime: Runtime, match_id: MatchIdPath, seat: SeatPath
    ) -> SeatTokenResponse:
        """Take a seat; the response holds its bearer token (kept nowhere but as a hash)."""
        number = seat_number(seat)
        data = await read_body(request, TakeSeatRequest)
        async with runtime.match_lock(match_id):
            return await runtime.call(
                ops.take_seat, runtime.service, match_id, number, data.name, ops.new_request_id()
            )
