"""Players report a match (``POST /matches/{id}/reports``) and see their own reports'
status and answer (``GET /players/me/reports``), and nothing else of any case.

Who may report: a seat of the match (its seat token, or the player's token on the seat they
hold), or a registered player who could watch the match because it was open to spectators.
A suspended player may not report (R29); at most 10 reports a player a day (429).
"""

from __future__ import annotations

from litestar import Controller, get, post

from app.api.edges.auth import AnyRequest, authenticate, authenticate_player
from app.api.edges.bodies import read_body
from app.api.edges.errors import MissingTokenError
from app.api.edges.openapi import SEAT_SECURITY, errors, json_body
from app.api.edges.params import MatchIdPath, Runtime
from app.api.edges.tokens import bearer, is_player_token
from app.api.matches.ops import spectators_allowed
from app.api.support.schemas import MyReportsResponse, ReportRequest, ReportResponse
from app.errors import NotAReporterError
from domain.errors import ForbiddenError


class ReportsController(Controller):
    """Reports of a match, by the players who were part of it."""

    path = "/matches/{match_id:str}/reports"
    tags = ("support",)
    security = SEAT_SECURITY

    @post(
        "/",
        status_code=201,
        operation_class=json_body(ReportRequest),
        responses=errors(400, 401, 403, 404, 413, 422),
    )
    async def report(
        self, request: AnyRequest, runtime: Runtime, match_id: MatchIdPath
    ) -> ReportResponse:
        """Report the match: a category (clock, bot, cheating, abuse, bug, other) and up to
        1,000 characters; opens a case or joins the match's open one."""
        body = await read_body(request, ReportRequest)
        authorization = request.headers.get("authorization")
        token = bearer(authorization)
        if token is None:
            raise MissingTokenError("reporting needs a seat's or a player's token")
        if is_player_token(token):
            player = await authenticate_player(runtime, authorization)
            reporter = player.player_id
            try:
                await authenticate(runtime, authorization, match_id, allow_support=False)
            except ForbiddenError:
                if not await runtime.call(spectators_allowed, runtime.service, match_id):
                    raise NotAReporterError(
                        "only the match's seats, or players who could watch it, may report it"
                    ) from None
        else:
            who = await authenticate(runtime, authorization, match_id, allow_support=False)
            reporter = who.player_id or f"seat:{match_id}/{who.seat}"
        case_id = await runtime.call(
            runtime.desk.file_report, reporter, match_id, body.category, body.text
        )
        return ReportResponse(case_id)


class MyReportsController(Controller):
    """``GET /players/me/reports``: the player's own reports."""

    path = "/players/me/reports"
    tags = ("players",)
    security = SEAT_SECURITY

    @get("/", responses=errors(401))
    async def mine(self, request: AnyRequest, runtime: Runtime) -> MyReportsResponse:
        """The player's reports, newest first: each case's status and answer, nothing else."""
        player = await authenticate_player(runtime, request.headers.get("authorization"))
        return MyReportsResponse(await runtime.call(runtime.desk.reports_of, player.player_id))
