"""Results (R27): ``GET /players/{id}``, its matches and ratings, and ``GET /ladder``.

Everything here is public except a private table's match: a player's history lists it only to
the player themself and to support (docs/api.md, "Results"), and the rating chart shows its
point without the match id. A seat taken by name only has no profile (404 ``not_a_player``).
"""

from __future__ import annotations

import hmac
from typing import Annotated, TypeAlias

from litestar import Controller, get
from litestar.params import FromPath, QueryParameter

from app.api.edges.auth import AnyRequest, authenticate_player
from app.api.edges.errors import InvalidFilterError, UnknownTokenError
from app.api.edges.openapi import OPTIONAL_SECURITY, errors
from app.api.edges.params import Runtime
from app.api.edges.tokens import bearer, hash_token, is_agent_token, read_player_claim
from app.api.results.schemas import (
    HistoryEntry,
    HistoryPage,
    LadderEntry,
    LadderPage,
    ProfileResponse,
    RatingHistory,
    RatingPoint,
    SeatedPlayer,
)
from app.errors import AgentRevokedError, NotAPlayerError, PlayerNotFoundError
from app.readmodels.projections import Projections
from app.readmodels.results import Profile, ResultRow, Results
from app.runtime.runtime import ApiRuntime
from app.service.players import PlayerService
from domain.players import PlayerState, is_player_id
from domain.state import side_of

MAX_PAGE = 100
"""The most rows one page of the ladder or of a history holds."""

PlayerIdPath: TypeAlias = FromPath[str]
"""``{player_id}`` in the path: ``p-`` and hex digits."""

PageLimit: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="rows per page (default 20)",
        schema_extra={"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "one_of": None},
    ),
]
"""``?limit=``: 1 to 100 rows per page."""

PageCursor: TypeAlias = Annotated[
    str | None,
    QueryParameter(description="the `next` of the previous page", schema_extra={"one_of": None}),
]
"""``?cursor=``: where the next page starts."""


def _limit(text: str | None) -> int:
    if text is None:
        return 20
    if not (text.isascii() and text.isdigit() and 1 <= int(text[:4]) <= MAX_PAGE):
        raise InvalidFilterError(f"limit must be a whole number 1-{MAX_PAGE}, not {text[:40]!r}")
    return int(text)


def _player(players: PlayerService, player_id: str) -> PlayerState:
    """The registered player ``player_id``: 404 ``not_a_player`` or ``player_not_found``."""
    if not is_player_id(player_id):
        raise NotAPlayerError(
            f"{player_id[:80]!r} is not a player id: a seat taken by name only has no profile,"
            " results or rating"
        )
    player = players.load(player_id)
    if player is None:
        raise PlayerNotFoundError(f"no player {player_id!r}")
    return player


def _profile(results: Results, player: PlayerState) -> ProfileResponse:
    profile = results.profile(player.player_id)
    return ProfileResponse(
        player_id=player.player_id,
        name=player.shown_name,
        points=profile.points,
        wins=profile.wins,
        draws=profile.draws,
        losses=profile.losses,
        rating=profile.rating,
        rd=profile.rd,
        volatility=profile.volatility,
        provisional=profile.provisional,
        rated_matches=profile.rated_matches,
    )


def _caught_up(projections: Projections) -> Results:
    """The results, brought up to the log."""
    results = projections.results
    results.catch_up()
    return results


def profile(projections: Projections, players: PlayerService, player_id: str) -> ProfileResponse:
    """A player's profile, the results brought up to the log first."""
    player = _player(players, player_id)
    return _profile(_caught_up(projections), player)


def _entry(row: ResultRow, shown: dict[str, str]) -> HistoryEntry:
    mine = side_of(row.seat)
    seated = [
        SeatedPlayer(seat=seat, player_id=pid, name=shown.get(pid, "deleted player"))
        for seat, pid in enumerate(row.player_ids)
    ]
    partner = next((s for s in seated if s.seat != row.seat and side_of(s.seat) == mine), None)
    return HistoryEntry(
        match_id=row.match_id,
        ended=row.ended,
        ruleset=row.ruleset,
        seats=row.seats,
        seat=row.seat,
        private=row.private,
        reason=row.reason,
        result=row.outcome,
        points=row.points,
        totals=tuple(row.totals),
        partner=partner,
        opponents=tuple(s for s in seated if side_of(s.seat) != mine),
        rated=row.rated,
        rating_before=row.rating_before,
        rating_after=row.rating_after,
        rd_before=row.rd_before,
        rd_after=row.rd_after,
    )


def history(
    projections: Projections,
    players: PlayerService,
    player_id: str,
    *,
    sees_private: bool,
    limit: int,
    cursor: str | None,
) -> HistoryPage:
    """A page of the player's results, the latest first (private tables only if allowed)."""
    player = _player(players, player_id)
    page = _caught_up(projections).history_page(
        player.player_id, limit=limit, cursor=cursor, include_private=sees_private
    )
    shown = players.shown_names(sorted({pid for row in page.rows for pid in row.player_ids}))
    return HistoryPage(
        player_id=player.player_id,
        name=player.shown_name,
        matches=tuple(_entry(row, shown) for row in page.rows),
        next=page.next,
    )


def ratings(
    projections: Projections, players: PlayerService, player_id: str, *, sees_private: bool
) -> RatingHistory:
    """The player's rating after each rated match, oldest first."""
    player = _player(players, player_id)
    points = []
    for row in _caught_up(projections).rated_history(player.player_id):
        assert row.rating_after is not None and row.rd_after is not None
        assert row.volatility_after is not None
        points.append(
            RatingPoint(
                match_id=row.match_id if sees_private or not row.private else None,
                ended=row.ended,
                rating=row.rating_after,
                rd=row.rd_after,
                volatility=row.volatility_after,
            )
        )
    return RatingHistory(player_id=player.player_id, name=player.shown_name, ratings=tuple(points))


def ladder(
    projections: Projections, players: PlayerService, *, limit: int, cursor: str | None
) -> LadderPage:
    """A page of the ladder: settled players by rating, then provisional ones."""
    page = _caught_up(projections).ladder_page(limit=limit, cursor=cursor)
    shown = players.shown_names([p.player_id for p in page.rows])
    ranked = enumerate(page.rows, start=page.before + 1)
    return LadderPage(players=tuple(_ladder_entry(p, n, shown) for n, p in ranked), next=page.next)


def _ladder_entry(profile: Profile, rank: int, shown: dict[str, str]) -> LadderEntry:
    return LadderEntry(
        rank=rank,
        player_id=profile.player_id,
        name=shown.get(profile.player_id, "deleted player"),
        rating=profile.rating,
        rd=profile.rd,
        provisional=profile.provisional,
        rated_matches=profile.rated_matches,
        points=profile.points,
        last_played=profile.last_rated,
    )


async def sees_private(runtime: ApiRuntime, authorization: str | None, player_id: str) -> bool:
    """True when the caller is the player themself (their player token) or support.

    No token, or a seat's token, sees public tables only; a player or support token that is not
    valid is refused (401), so a mistyped token is never taken for an anonymous caller.
    """
    token = bearer(authorization)
    if token is None:
        return False
    support = runtime.settings.support_token
    if support is not None and hmac.compare_digest(token.encode(), support.encode()):
        return True
    if is_agent_token(token):
        agent = await runtime.call(runtime.access.agent_of, hash_token(token))
        if agent is None:
            raise UnknownTokenError("the token is not valid")
        if not agent.active:
            raise AgentRevokedError("this support agent was revoked")
        return True
    if read_player_claim(token) is not None:
        player = await authenticate_player(runtime, authorization)
        return player.player_id == player_id
    return False


class ResultsController(Controller):
    """A player's profile, results and rating chart (``/players/{id}…``)."""

    path = "/players"
    tags = ("results",)

    @get("/{player_id:str}", responses=errors(404))
    async def profile(self, runtime: Runtime, player_id: PlayerIdPath) -> ProfileResponse:
        """The player's profile points, wins, draws, losses and rating (docs/ratings.md)."""
        return await runtime.offload(profile, runtime.projections, runtime.players, player_id)

    @get(
        "/{player_id:str}/matches",
        responses=errors(400, 401, 404),
        security=OPTIONAL_SECURITY,
    )
    async def history(
        self,
        request: AnyRequest,
        runtime: Runtime,
        player_id: PlayerIdPath,
        limit: PageLimit = None,
        cursor: PageCursor = None,
    ) -> HistoryPage:
        """The player's ended matches that counted, the latest first: rule set, seats,
        opponents, result, points paid and the rating before and after. A private table is
        listed only to the player themself and to support."""
        count = _limit(limit)
        private = await sees_private(runtime, request.headers.get("authorization"), player_id)
        return await runtime.offload(
            history,
            runtime.projections,
            runtime.players,
            player_id,
            sees_private=private,
            limit=count,
            cursor=cursor,
        )

    @get("/{player_id:str}/ratings", responses=errors(401, 404), security=OPTIONAL_SECURITY)
    async def ratings(
        self, request: AnyRequest, runtime: Runtime, player_id: PlayerIdPath
    ) -> RatingHistory:
        """The player's rating after every rated match, oldest first (for a chart)."""
        private = await sees_private(runtime, request.headers.get("authorization"), player_id)
        return await runtime.offload(
            ratings, runtime.projections, runtime.players, player_id, sees_private=private
        )


class LadderController(Controller):
    """``GET /ladder``: the rated ladder."""

    path = "/ladder"
    tags = ("results",)

    @get("/", responses=errors(400))
    async def ladder(
        self, runtime: Runtime, limit: PageLimit = None, cursor: PageCursor = None
    ) -> LadderPage:
        """Rated players: settled ones (RD 110 or less) by rating, then provisional ones by
        rating; ``rank`` counts from 1 across pages."""
        count = _limit(limit)
        return await runtime.offload(
            ladder, runtime.projections, runtime.players, limit=count, cursor=cursor
        )
