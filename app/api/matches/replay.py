"""``GET /matches/{id}/replay``: the replay file (docs/replay-format.md)."""

from __future__ import annotations

from litestar import Controller, Response, get

from app.api.edges.auth import record_support_access
from app.api.edges.callers import OptionalCaller
from app.api.edges.openapi import SEAT_SECURITY, errors
from app.api.edges.params import MatchIdPath, Runtime
from app.api.table import ops

MEDIA_TYPE = "application/jsonl"
"""JSON Lines."""


class ReplayController(Controller):
    """The replay file: support any time, a seat (its own hands) before the end, anyone after."""

    path = "/matches/{match_id:str}/replay"
    tags = ("replays",)
    security = SEAT_SECURITY

    @get("/", media_type=MEDIA_TYPE, responses=errors(401, 403, 404))
    async def replay(
        self, runtime: Runtime, match_id: MatchIdPath, optional_caller: OptionalCaller
    ) -> Response[bytes]:
        """JSON Lines: the header, then one line per event (seed and hands open after the end)."""
        who = optional_caller
        viewer = None if who is None else who.seat
        body = await runtime.offload(
            ops.replay_file, runtime.service, match_id, viewer, runtime.players
        )
        if who is not None:
            await record_support_access(runtime, who, "replay")
        return Response(
            body,
            media_type=MEDIA_TYPE,
            headers={"Content-Disposition": f'attachment; filename="{match_id}.jsonl"'},
        )
