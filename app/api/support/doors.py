"""R29 at the doors: a suspended player may not create a table (nor sit, rematch, enter the pool
or report: those call ``runtime.desk.refuse_if_suspended`` with the player's id)."""

from __future__ import annotations

from app.api.edges.auth import authenticate_player
from app.api.edges.tokens import bearer, is_player_token
from app.runtime.runtime import ApiRuntime
from domain.errors import UnauthenticatedError


async def refuse_suspended_creator(runtime: ApiRuntime, authorization: str | None) -> None:
    """403 ``account_suspended`` when a table is created with a suspended player's token (a
    table created without one names nobody to refuse)."""
    token = bearer(authorization)
    if token is None or not is_player_token(token):
        return
    try:
        player = await authenticate_player(runtime, authorization)
    except UnauthenticatedError:
        return  # creating a table never needed a token: one that proves nobody changes nothing
    await runtime.call(runtime.desk.refuse_if_suspended, player.player_id)
