"""``GET /matches/{id}/analysis``: ``basra analyse`` over HTTP.

Anyone may ask once the match has ended; before the end only support may, because the strong
bot's card and values for a play tell of the cards that seat held, and of what it could not see
(R23).
"""

from __future__ import annotations

from litestar import Controller, get

from app.api.edges.auth import record_support_access
from app.api.edges.callers import OptionalCaller
from app.api.edges.errors import MissingTokenError, SupportOnlyError
from app.api.edges.openapi import OPTIONAL_SECURITY, errors
from app.api.edges.params import MatchIdPath, Runtime
from app.service import MatchService
from domain.events import MatchEnded
from replays.analysis import MatchAnalysis, analyse_recorded


def analysis(service: MatchService, match_id: str, support: bool | None) -> MatchAnalysis:
    """The analysis of the stored match (``support``: None for an anonymous caller)."""
    events = service.events(match_id)
    ended = any(isinstance(r.event, MatchEnded) for r in events)
    if not ended and support is None:
        raise MissingTokenError(
            "this route needs an 'Authorization: Bearer TOKEN' header until the match has ended"
        )
    if not ended and not support:
        raise SupportOnlyError("only support may see a match's analysis before it has ended")
    return analyse_recorded(events, support=bool(support) or ended)


class AnalysisController(Controller):
    """Every person's play against the strong bot's card: anyone after the end, support before."""

    path = "/matches/{match_id:str}/analysis"
    tags = ("replays",)
    security = OPTIONAL_SECURITY

    @get("/", responses=errors(401, 403, 404))
    async def analyse(
        self, runtime: Runtime, match_id: MatchIdPath, optional_caller: OptionalCaller
    ) -> MatchAnalysis:
        """What ``basra analyse`` says: per play the strong bot's card, the expected points of
        both, the cost; and the mistakes, the costliest first (docs/bots.md)."""
        who = optional_caller
        if who is None:
            return await runtime.offload(analysis, runtime.service, match_id, None)
        found = await runtime.offload(analysis, runtime.service, match_id, who.is_support)
        await record_support_access(runtime, who, "analysis")  # support only; before sending
        return found
