"""The rated pool's routes (docs/api.md, "Rated pool").

A player asks for a rated 2-seat match in a rule set (``POST /pool``): 202 while waiting, 201
with the match and the seat kept for them once paired; the page then asks ``GET /pool/me``
every few seconds (the heartbeat: 30 s without it and the player has left the pool) and may
cancel with ``DELETE /pool/me``. Every way in goes through ``enter_pool``, the one place where
whatever may refuse a player entry (seated at a live table, and any later refusal) is checked.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Response, delete, get, post

from app.api.edges.auth import AnyRequest, authenticate_player
from app.api.edges.bodies import read_body
from app.api.edges.openapi import SEAT_SECURITY, errors, json_body
from app.api.edges.params import Runtime
from app.readmodels.projections import Projections
from app.runtime.runtime import ApiRuntime
from app.service.pool import PoolStanding
from domain.errors import AlreadySeatedError
from domain.players import PlayerState

LIVE: tuple[str, ...] = ("waiting", "playing")
"""The statuses of a table a seated player is still at."""


class PoolRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /pool``: the rule set of the rated match asked for."""

    ruleset: str


class PoolWaiting(msgspec.Struct, frozen=True, kw_only=True):
    """The player waits in the pool."""

    status: str = "waiting"


class PoolSeat(msgspec.Struct, frozen=True, kw_only=True):
    """The player was paired: the match and the seat kept for them."""

    match_id: str
    seat: int


class PoolStandingResponse(msgspec.Struct, frozen=True, kw_only=True):
    """Where the player stands: ``waiting`` (in which rule set, for how long, at what window),
    ``paired`` (the match and seat), or ``none``."""

    status: str
    ruleset: str | None
    waited_seconds: float | None
    window: int | None
    match_id: str | None
    seat: int | None


def seated_at_a_live_table(projections: Projections, player_id: str) -> bool:
    """True when the player holds a seat of a table still waiting or playing."""
    models = projections.matches
    models.catch_up()
    return any(row.status in LIVE for row in models.player_matches(player_id, limit=50))


def rating_of(projections: Projections, player_id: str) -> float:
    """The player's rating now (a new player's before any rated match)."""
    results = projections.results
    results.catch_up()
    return results.profile(player_id).rating


def enter_pool(runtime: ApiRuntime, player: PlayerState, ruleset: str) -> PoolStanding:
    """The one way into the pool (blocking: call it through ``runtime.call``).

    Asking again gives the same answer: a player already paired into a table that still waits
    gets that table's seat back. Refused: a player seated at a live table (409
    ``already_seated``). Any further refusal of entry (a suspension) belongs here, before the
    pool is touched: a suspended player (R29) is refused with 403 ``account_suspended``.
    """
    runtime.desk.refuse_if_suspended(player.player_id)
    standing = runtime.pool.standing(player.player_id)
    if standing.status == "paired" and standing.ruleset == ruleset:
        return standing
    if seated_at_a_live_table(runtime.projections, player.player_id):
        raise AlreadySeatedError("a player seated at a live table does not wait in the pool")
    rating = rating_of(runtime.projections, player.player_id)
    return runtime.pool.join(player.player_id, ruleset, rating)


def _answer(standing: PoolStanding) -> Response[Any]:
    if standing.status == "paired" and standing.match_id is not None and standing.seat is not None:
        return Response(PoolSeat(match_id=standing.match_id, seat=standing.seat), status_code=201)
    return Response(PoolWaiting(), status_code=202)


def _standing(standing: PoolStanding) -> PoolStandingResponse:
    return PoolStandingResponse(
        status=standing.status,
        ruleset=standing.ruleset,
        waited_seconds=standing.waited_seconds,
        window=standing.window,
        match_id=standing.match_id,
        seat=standing.seat,
    )


class PoolController(Controller):
    """``/pool``: asking for a rated match, where the player stands, cancelling."""

    path = "/pool"
    tags = ("pool",)

    @post(
        "/",
        status_code=202,
        responses=errors(400, 401, 403, 409, 413, 422),
        operation_class=json_body(PoolRequest),
        security=SEAT_SECURITY,
    )
    async def join(self, request: AnyRequest, runtime: Runtime) -> Response[Any]:
        """Ask for a rated 2-seat match: 202 ``{"status": "waiting"}`` or 201
        ``{"match_id", "seat"}``; asking again gives the same answer."""
        data = await read_body(request, PoolRequest)
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return _answer(await runtime.call(enter_pool, runtime, player, data.ruleset))

    @get("/me", responses=errors(401), security=SEAT_SECURITY)
    async def me(self, request: AnyRequest, runtime: Runtime) -> PoolStandingResponse:
        """Where the player stands; also the heartbeat that keeps them in the pool."""
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return _standing(await runtime.call(runtime.pool.heartbeat, player.player_id))

    @delete("/me", status_code=200, responses=errors(401), security=SEAT_SECURITY)
    async def leave(self, request: AnyRequest, runtime: Runtime) -> PoolStandingResponse:
        """Stop waiting (nothing changes for a player who was not waiting)."""
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return _standing(await runtime.call(runtime.pool.leave, player.player_id))
