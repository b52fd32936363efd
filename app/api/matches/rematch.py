"""``POST /matches/{id}/rematch``: the next match after the end, for the same players."""

from __future__ import annotations

from litestar import Controller, post

from app.api.edges.callers import Caller
from app.api.edges.openapi import SEAT_SECURITY, errors
from app.api.edges.params import MatchIdPath, Runtime
from app.api.edges.tokens import new_request_id
from app.api.matches import ops as table_ops
from app.api.table.schemas import RematchResponse


class RematchController(Controller):
    """Rematch of an ended match, asked for by one of its seats."""

    path = "/matches/{match_id:str}/rematch"
    tags = ("seat",)
    security = SEAT_SECURITY

    @post("/", status_code=200, responses=errors(401, 403, 404, 409))
    async def rematch(
        self, runtime: Runtime, match_id: MatchIdPath, seated: Caller
    ) -> RematchResponse:
        """Create the next match with the same settings (its own secret), linked both ways.

        A seat's token or the player token of a player seated here. Registered players' seats
        are kept for them; bots sit again. Asked again, it answers with the same rematch
        (``created`` false). Before the end: 409 ``match_not_ended``.
        """
        await runtime.call(runtime.desk.refuse_if_suspended, seated.player_id)  # R29
        async with runtime.match_lock(match_id):
            return await runtime.call(
                table_ops.rematch,
                runtime.service,
                match_id,
                seated.caused_by,
                new_request_id(),
            )
