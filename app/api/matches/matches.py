"""Creating matches, the public table, and taking seats (anyone)."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from litestar import Controller, get, post
from litestar.params import QueryParameter

from app.api.edges.auth import AnyRequest, authenticate_player
from app.api.edges.bodies import read_body
from app.api.edges.callers import OptionalCaller
from app.api.edges.errors import SeedRefusedError
from app.api.edges.openapi import OPTIONAL_SECURITY, errors, json_body
from app.api.edges.params import MatchIdPath, Runtime, SeatPath, seat_number
from app.api.edges.tokens import bearer, is_player_token, new_request_id
from app.api.matches import ops as table_ops
from app.api.matches.ops import lobby_filters
from app.api.matches.schemas import (
    CreateMatchRequest,
    MatchCreatedResponse,
    PlayerSeatRequest,
    SeatTokenResponse,
    TakeSeatRequest,
)
from app.api.support.doors import refuse_suspended_creator
from app.api.table import ops
from app.api.table.schemas import LobbyPage, TableResponse
from domain.rulesets import RULESETS

LobbyStatus: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="only tables in this state",
        schema_extra={"enum": ["waiting", "playing", "ended"], "one_of": None},
    ),
]
"""``?status=``: waiting, playing or ended."""

LobbyRuleset: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="only tables of this rule set",
        schema_extra={"enum": list(RULESETS), "one_of": None},
    ),
]
"""``?ruleset=``: one rule set."""

LobbySeats: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="only tables of this size",
        schema_extra={"type": "integer", "enum": [2, 4], "one_of": None},
    ),
]
"""``?seats=2`` or ``?seats=4``."""

LobbyLimit: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="tables per page (default 20)",
        schema_extra={"type": "integer", "minimum": 1, "maximum": 100, "one_of": None},
    ),
]
"""``?limit=``: 1 to 100 tables per page."""

LobbyCursor: TypeAlias = Annotated[
    str | None,
    QueryParameter(description="the `next` of the previous page", schema_extra={"one_of": None}),
]
"""``?cursor=``: where the next page starts."""


class MatchesController(Controller):
    """``POST /matches``, the lobby, ``GET /matches/{id}``, ``POST /matches/{id}/seats/{seat}``."""

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
        await refuse_suspended_creator(runtime, request.headers.get("authorization"))
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
            bot_kinds=data.bot_kinds,
            bot_budget=data.bot_budget,
            seed=data.seed,
            request_id=new_request_id(),
            turn_seconds=data.turn_seconds,
            private=data.private,
            spectators=data.spectators,
        )

    @get("/", responses=errors(400))
    async def lobby(
        self,
        runtime: Runtime,
        status: LobbyStatus = None,
        ruleset: LobbyRuleset = None,
        seats: LobbySeats = None,
        limit: LobbyLimit = None,
        cursor: LobbyCursor = None,
    ) -> LobbyPage:
        """The lobby: public tables, newest first, a page at a time (``next``: the cursor).

        Private tables are never listed; only public fields (no hand, token or secret).
        """
        checked_status, checked_ruleset, checked_seats, count = lobby_filters(
            status, ruleset, seats, limit
        )
        return await runtime.offload(
            table_ops.lobby,
            runtime.projections,
            runtime.players,
            status=checked_status,
            ruleset=checked_ruleset,
            seats=checked_seats,
            limit=count,
            cursor=cursor,
        )

    @get("/{match_id:str}", responses=errors(401, 403, 404), security=OPTIONAL_SECURITY)
    async def table(
        self, runtime: Runtime, match_id: MatchIdPath, optional_caller: OptionalCaller
    ) -> TableResponse:
        """The public table: status, open seats by name, floor, counts, scores; no hand (R23).

        ``after`` holds the live turn; ``connected`` says, per seat, whether a feed of that
        seat is open now (true or false, nothing more). A table created with ``"spectators":
        false`` shows itself only to its seats and support (their token in the header); anyone
        else: 403.
        """
        seated = optional_caller is not None  # a seat of the match, or support
        connected = await runtime.presence.seats(match_id)
        return await runtime.call(
            table_ops.public_table,
            runtime.service,
            match_id,
            runtime.players,
            seated=seated,
            connected=connected,
        )

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
            name, player_id, client_seed = data.name, None, data.client_seed
        else:
            # A registered player sits under their own name; a body, if sent, must still be valid.
            player = await authenticate_player(runtime, authorization)
            client_seed = ""
            if (await request.body()).strip():
                client_seed = (await read_body(request, PlayerSeatRequest)).client_seed
            name, player_id = player.shown_name, player.player_id
            await runtime.call(runtime.desk.refuse_if_suspended, player_id)  # R29
        async with runtime.match_lock(match_id):
            # A rematch keeps a registered player's seat for that player: the rules refuse
            # anyone else (seat_reserved, docs/api.md, Rematch).
            return await runtime.call(
                ops.take_seat,
                runtime.service,
                match_id,
                number,
                name,
                new_request_id(),
                player_id,
                client_seed,
            )
