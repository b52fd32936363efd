"""A seat's routes: its view, previews, plays and leaving (the seat's token; view also support)."""

from __future__ import annotations

from litestar import Controller, get, post

from app.api.edges.auth import AnyRequest, record_support_access
from app.api.edges.bodies import read_body
from app.api.edges.callers import Caller, seat_player
from app.api.edges.openapi import SEAT_SECURITY, errors, json_body
from app.api.edges.params import IdempotencyKey, MatchIdPath, Runtime, SeatQuery
from app.api.edges.tokens import new_request_id
from app.api.matches.ops import seat_or_support_view
from app.api.matches.schemas import (
    LeaveResponse,
    PlayRequest,
    PlayResponse,
    PreviewRequest,
    PreviewResponse,
)
from app.api.table import ops
from app.api.table.schemas import ViewResponse


class SeatController(Controller):
    """Routes of one seat of a match, authenticated by the seat's bearer token."""

    path = "/matches/{match_id:str}"
    tags = ("seat",)
    security = SEAT_SECURITY

    @get("/view", responses=errors(401, 403, 404, 422))
    async def view(self, runtime: Runtime, match_id: MatchIdPath, viewer: Caller) -> ViewResponse:
        """The table as this seat sees it (its own hand only); support sees every hand.

        ``after`` holds the live turn: whose turn, its deadline, the server's now, the banner;
        ``connected`` says, per seat, whether a feed of that seat is open now.
        """
        connected = await runtime.presence.seats(match_id)
        view = await runtime.call(
            seat_or_support_view,
            runtime.service,
            match_id,
            viewer.seat,
            runtime.players,
            connected,
        )
        await record_support_access(runtime, viewer, "view")
        return view

    @post(
        "/preview",
        status_code=200,
        responses=errors(400, 401, 403, 404, 409, 413, 422),
        operation_class=json_body(PreviewRequest),
    )
    async def preview(
        self, request: AnyRequest, runtime: Runtime, match_id: MatchIdPath, seat: SeatQuery = None
    ) -> PreviewResponse:
        """R24: what a card of the hand would take now, and its Basra points; changes nothing."""
        # The body is read before the caller is (a malformed body is 400 whoever sends it).
        data = await read_body(request, PreviewRequest)
        who = await seat_player(request, runtime, match_id, seat)
        return await runtime.call(ops.preview, runtime.service, match_id, who.seat, data.card)

    @post(
        "/plays",
        status_code=200,
        responses=errors(400, 401, 403, 404, 409, 413, 422),
        operation_class=json_body(PlayRequest),
    )
    async def play(
        self,
        request: AnyRequest,
        runtime: Runtime,
        match_id: MatchIdPath,
        idempotency_key: IdempotencyKey = None,
        seat: SeatQuery = None,
    ) -> PlayResponse:
        """Play a card; the result holds the play and every bot reply or deal that followed it."""
        # The body is read before the caller is (a malformed body is 400 whoever sends it).
        data = await read_body(request, PlayRequest)
        who = await seat_player(request, runtime, match_id, seat)
        connected = await runtime.presence.seats(match_id)
        async with runtime.match_lock(match_id):
            return await runtime.call(
                ops.play,
                runtime.service,
                runtime.facts,
                match_id=match_id,
                seat=who.seat,
                card_text=data.card,
                expected_seq=data.seq,
                caused_by=who.caused_by,
                idempotency_key=idempotency_key,
                connected=connected,
            )

    @post("/leave", status_code=200, responses=errors(401, 403, 404, 409, 422))
    async def leave(
        self, runtime: Runtime, match_id: MatchIdPath, seat_player: Caller
    ) -> LeaveResponse:
        """Leave the match: the seat's side forfeits (R26)."""
        who = seat_player
        async with runtime.match_lock(match_id):
            return await runtime.call(
                ops.leave, runtime.service, match_id, who.seat, who.caused_by, new_request_id()
            )
