"""``/support/...``: the support desk's routes (docs/api.md, "Support desk").

Every route needs support: a named agent's token, the console's session cookie, or the shared
``BASRA_SUPPORT_TOKEN`` (which reads but cannot act: 403 ``agent_only``). Every page and action
is recorded in the access trail before it is answered. A change made with the console's cookie
must come from the console's own origin (``Origin``), so another site cannot make an agent's
browser act.
"""

from __future__ import annotations

from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from litestar import Controller, Response, get, post
from litestar.datastructures import Cookie
from litestar.params import FromPath, QueryParameter

from app.api.edges.auth import AnyRequest
from app.api.edges.bodies import read_body
from app.api.edges.errors import ApiError
from app.api.edges.openapi import SEAT_SECURITY, errors, json_body
from app.api.edges.params import Runtime
from app.api.edges.tokens import new_request_id
from app.api.support.agents import (
    SESSION_COOKIE,
    SupportCaller,
    end_session,
    open_session,
    record,
    support_caller,
)
from app.api.support.investigate import investigate, refused_of
from app.api.support.player_page import player_page
from app.api.support.schemas import (
    ActionRequest,
    CasesResponse,
    DoneResponse,
    ForfeitResponse,
    InvestigationResponse,
    PlayerPage,
    PlayersFound,
    RefusedResponse,
    SessionRequest,
)
from app.errors import InvalidActionError
from app.readmodels.support_search import directory_now, search_players
from app.readmodels.voids import paid_points
from app.runtime.runtime import ApiRuntime
from app.service.desk import CaseView
from app.service.desk_forfeit import forfeit_side
from domain.errors import ForbiddenError

StatusQuery = Annotated[str | None, QueryParameter(description="open or closed")]
CategoryQuery = Annotated[str | None, QueryParameter(description="a report category")]
BeforeQuery = Annotated[
    str | None, QueryParameter(description="cases opened before this UTC time only")
]
SearchQuery = Annotated[str, QueryParameter(description="a name prefix or an id prefix")]

Path = FromPath[str]
"""An id in the path."""

SESSION_PATH: Final = "/support"


class CsrfError(ApiError, ForbiddenError):
    """A console change came without the console's own ``Origin``."""

    code = "bad_origin"


async def _changing(
    request: AnyRequest, runtime: ApiRuntime
) -> tuple[SupportCaller, ActionRequest]:
    """The caller of an action (a named agent) and its body; the origin checked for a cookie."""
    who = await support_caller(request, runtime)
    if who.by_cookie:
        _same_origin(request)
    body = await read_body(request, ActionRequest)
    who.actor  # noqa: B018 (raises AgentOnlyError for the shared token)
    return who, body


def _same_origin(request: AnyRequest) -> None:
    origin = request.headers.get("origin")
    host = request.headers.get("host")
    if origin is None or host is None or urlsplit(origin).netloc != host:
        raise CsrfError("a console change must come from the console's own page (Origin)")


def _secure(request: AnyRequest) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "")
    return request.url.scheme == "https" or forwarded.lower() == "https"


class SupportController(Controller):
    """The support desk: sessions, cases, players, matches and actions."""

    path = "/support"
    tags = ("support",)
    security = SEAT_SECURITY

    # -- the console's session ---------------------------------------------------------------

    @post(
        "/session", operation_class=json_body(SessionRequest), responses=errors(401, 403, 413, 422)
    )
    async def sign_in(self, request: AnyRequest, runtime: Runtime) -> Response[dict[str, str]]:
        """Exchange a named agent's token (typed into the console) for a session cookie."""
        _same_origin(request)
        body = await read_body(request, SessionRequest)
        cookie = await open_session(runtime, body.token.strip())
        return Response(
            {"status": "signed_in"},
            status_code=201,
            cookies=[
                Cookie(
                    key=SESSION_COOKIE,
                    value=cookie,
                    path=SESSION_PATH,
                    httponly=True,
                    samesite="strict",
                    secure=_secure(request),
                    max_age=8 * 3600,
                )
            ],
        )

    @post("/session/end", status_code=200, responses=errors(401, 403))
    async def sign_out(self, request: AnyRequest, runtime: Runtime) -> Response[dict[str, str]]:
        """End the console session."""
        _same_origin(request)
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            await end_session(runtime, cookie)
        return Response(
            {"status": "signed_out"},
            cookies=[Cookie(key=SESSION_COOKIE, value="", path=SESSION_PATH, max_age=0)],
        )

    @get("/whoami", responses=errors(401, 403))
    async def whoami(self, request: AnyRequest, runtime: Runtime) -> dict[str, Any]:
        """The agent asking, and whether it may act."""
        who = await support_caller(request, runtime)
        return {"agent": who.agent, "may_act": who.agent != "env"}

    # -- reading -----------------------------------------------------------------------------

    @get("/cases", responses=errors(401, 403))
    async def cases(
        self,
        request: AnyRequest,
        runtime: Runtime,
        status: StatusQuery = None,
        category: CategoryQuery = None,
        before: BeforeQuery = None,
    ) -> CasesResponse:
        """The case queue, oldest first, by status, category and age."""
        who = await support_caller(request, runtime)
        found = await runtime.call(runtime.desk.cases, status, category, before)
        await record(runtime, who, "-", f"cases status={status} category={category}")
        return CasesResponse(found)

    @get("/cases/{case_id:str}", responses=errors(401, 403, 404))
    async def case(self, request: AnyRequest, runtime: Runtime, case_id: Path) -> CaseView:
        """One case: its reports, notes, pins, actions, answer and outcome."""
        who = await support_caller(request, runtime)
        found = await runtime.call(runtime.desk.case, case_id)
        await record(runtime, who, found.match_id, f"case {case_id}")
        return found

    @get("/players", responses=errors(401, 403))
    async def players(self, request: AnyRequest, runtime: Runtime, q: SearchQuery) -> PlayersFound:
        """Players by name or id prefix, told apart by id, first seen, matches and rating."""
        who = await support_caller(request, runtime)
        models, results = runtime.projections.matches, runtime.projections.results
        found = await runtime.call(search_players, models, results, q[:64])
        await record(runtime, who, "-", f"search {q[:64]!r}")
        return PlayersFound(found)

    @get("/players/{player_id:str}", responses=errors(401, 403, 404))
    async def player(self, request: AnyRequest, runtime: Runtime, player_id: Path) -> PlayerPage:
        """A player's matches, results, rating history, reports, sanctions and notes."""
        who = await support_caller(request, runtime)
        page = await runtime.call(player_page, runtime, player_id)
        await record(runtime, who, "-", f"player {player_id}")
        return page

    @get("/matches/{match_id:str}", responses=errors(401, 403, 404))
    async def match(
        self, request: AnyRequest, runtime: Runtime, match_id: Path
    ) -> InvestigationResponse:
        """The match's investigation page (its analysis: ``GET /matches/{id}/analysis``)."""
        who = await support_caller(request, runtime)
        page = await runtime.call(investigate, runtime, match_id)
        await record(runtime, who, match_id, "investigation")
        return page

    @get("/matches/{match_id:str}/refused", responses=errors(401, 403, 404))
    async def refused(
        self, request: AnyRequest, runtime: Runtime, match_id: Path
    ) -> RefusedResponse:
        """The commands the server refused on the match, as kept."""
        who = await support_caller(request, runtime)
        found = await runtime.call(refused_of, runtime, match_id)
        await record(runtime, who, match_id, "refused")
        return found

    # -- actions on matches ------------------------------------------------------------------

    @post("/matches/{match_id:str}/void", status_code=200, responses=errors(401, 403, 404, 422))
    async def void(self, request: AnyRequest, runtime: Runtime, match_id: Path) -> DoneResponse:
        """R28: void a finished match's result (points back, ladder as if never played)."""
        who, body = await _changing(request, runtime)
        await runtime.call(runtime.service.load, match_id)
        if not await runtime.call(paid_points, runtime.projections.results, match_id):
            raise InvalidActionError(
                "only a finished match that paid points can be voided (not practice, R27)"
            )
        await record(runtime, who, match_id, "void")
        await runtime.call(runtime.desk.void, match_id, who.actor, body.reason, body.case_id)
        return DoneResponse("void", match_id)

    @post("/matches/{match_id:str}/restore", status_code=200, responses=errors(401, 403, 404, 422))
    async def restore(self, request: AnyRequest, runtime: Runtime, match_id: Path) -> DoneResponse:
        """R28: put a voided result back in its place."""
        who, body = await _changing(request, runtime)
        await runtime.call(runtime.service.load, match_id)
        await record(runtime, who, match_id, "restore")
        await runtime.call(runtime.desk.restore, match_id, who.actor, body.reason, body.case_id)
        return DoneResponse("restore", match_id)

    @post(
        "/matches/{match_id:str}/forfeit",
        status_code=200,
        responses=errors(401, 403, 404, 409, 422),
    )
    async def forfeit(
        self, request: AnyRequest, runtime: Runtime, match_id: Path
    ) -> ForfeitResponse:
        """R29, R26: end a match in play as a forfeit of ``player``'s (or ``seat``'s) side."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, match_id, f"forfeit player={body.player} seat={body.seat}")
        async with runtime.match_lock(match_id):
            done = await runtime.call(
                forfeit_side,
                runtime.service,
                runtime.desk,
                match_id,
                who.actor,
                body.reason,
                player_id=body.player,
                seat=body.seat,
                case_id=body.case_id,
                request_id=new_request_id(),
            )
        return ForfeitResponse(
            done="forfeit", target=match_id, seat=done.seat, player_id=done.player_id, seq=done.seq
        )

    # -- actions on players ------------------------------------------------------------------

    @post(
        "/players/{player_id:str}/suspend",
        status_code=200,
        responses=errors(401, 403, 404, 409, 422),
    )
    async def suspend(self, request: AnyRequest, runtime: Runtime, player_id: Path) -> DoneResponse:
        """R29: suspend the player until ``until`` (or until lifted)."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"suspend {player_id}")
        await runtime.call(
            runtime.desk.suspend, player_id, who.actor, body.reason, body.until, body.case_id
        )
        return DoneResponse("suspend", player_id)

    @post("/players/{player_id:str}/lift", status_code=200, responses=errors(401, 403, 404, 422))
    async def lift(self, request: AnyRequest, runtime: Runtime, player_id: Path) -> DoneResponse:
        """Lift the player's suspension."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"lift {player_id}")
        await runtime.call(runtime.desk.lift, player_id, who.actor, body.reason, body.case_id)
        return DoneResponse("lift", player_id)

    @post("/players/{player_id:str}/warn", status_code=200, responses=errors(401, 403, 404, 422))
    async def warn(self, request: AnyRequest, runtime: Runtime, player_id: Path) -> DoneResponse:
        """Warn the player (the reason shows once on their next ``GET /players/me``)."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"warn {player_id}")
        await runtime.call(runtime.desk.warn, player_id, who.actor, body.reason, body.case_id)
        return DoneResponse("warn", player_id)

    @post("/players/{player_id:str}/rename", status_code=200, responses=errors(401, 403, 404, 422))
    async def rename(self, request: AnyRequest, runtime: Runtime, player_id: Path) -> DoneResponse:
        """Rename an abusively named player (the old name kept in the trail and the case)."""
        who, body = await _changing(request, runtime)
        if body.name is None:
            raise InvalidActionError("rename needs a 'name'")
        await record(runtime, who, "-", f"rename {player_id}")
        await runtime.call(
            runtime.desk.rename, player_id, who.actor, body.reason, body.name, body.case_id
        )
        # The directory support searches shows the new name at once, not within 30 s.
        models = runtime.projections.matches
        await runtime.call(directory_now, models, runtime.service.store, player_id)
        return DoneResponse("rename", player_id)

    @post("/players/{player_id:str}/notes", status_code=200, responses=errors(401, 403, 404, 422))
    async def player_note(
        self, request: AnyRequest, runtime: Runtime, player_id: Path
    ) -> DoneResponse:
        """A note on the player (never shown to players)."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"note player {player_id}")
        await runtime.call(runtime.desk.note_player, player_id, who.actor, body.text or body.reason)
        return DoneResponse("note", player_id)

    # -- actions on cases --------------------------------------------------------------------

    @post("/cases/{case_id:str}/notes", status_code=200, responses=errors(401, 403, 404, 422))
    async def note(self, request: AnyRequest, runtime: Runtime, case_id: Path) -> CaseView:
        """A note on the case."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"note case {case_id}")
        return await runtime.call(
            runtime.desk.note, case_id, who.actor, body.text or body.reason or ""
        )

    @post("/cases/{case_id:str}/pins", status_code=200, responses=errors(401, 403, 404, 422))
    async def pin(self, request: AnyRequest, runtime: Runtime, case_id: Path) -> CaseView:
        """Pin evidence (``seq:N`` or a refused request's id) to the case."""
        who, body = await _changing(request, runtime)
        if not body.evidence:
            raise InvalidActionError("a pin needs 'evidence' (seq:N or a request id)")
        await record(runtime, who, "-", f"pin case {case_id}")
        return await runtime.call(runtime.desk.pin, case_id, who.actor, body.evidence, body.reason)

    @post("/cases/{case_id:str}/answer", status_code=200, responses=errors(401, 403, 404, 422))
    async def answer(self, request: AnyRequest, runtime: Runtime, case_id: Path) -> CaseView:
        """The answer the case's reporters see on their profile."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"answer case {case_id}")
        return await runtime.call(
            runtime.desk.answer, case_id, who.actor, body.text or body.reason or ""
        )

    @post("/cases/{case_id:str}/close", status_code=200, responses=errors(401, 403, 404, 422))
    async def close(self, request: AnyRequest, runtime: Runtime, case_id: Path) -> CaseView:
        """Close the case with an outcome and a reason."""
        who, body = await _changing(request, runtime)
        await record(runtime, who, "-", f"close case {case_id}")
        return await runtime.call(
            runtime.desk.close, case_id, who.actor, body.outcome or "", body.reason
        )
