"""A player's page for support: matches, results, rating history, reports by and about them,
sanctions and notes."""

from __future__ import annotations

import msgspec

from app.api.support.schemas import PlayerPage
from app.errors import PlayerNotFoundError
from app.readmodels.players import PlayerMatchView
from app.readmodels.support_search import PlayerHit, fresh_enough, player_matches_of
from app.runtime.runtime import ApiRuntime

PAGE_ROWS = 100
"""Matches and results shown on the page (the latest)."""


def player_page(runtime: ApiRuntime, player_id: str) -> PlayerPage:
    """Everything support may see of one player (404 for an unknown player)."""
    player = runtime.players.load(player_id)
    if player is None:
        raise PlayerNotFoundError(f"no player {player_id[:40]!r}")
    models, results = runtime.projections.matches, runtime.projections.results
    fresh_enough(models)
    results.catch_up()
    matches = [_now(runtime, m) for m in player_matches_of(models, player_id, PAGE_ROWS)]
    history = results.history(player_id, limit=PAGE_ROWS)
    rated = results.rated_history(player_id)[-PAGE_ROWS:]
    profile = results.profile(player_id)
    match_ids = {m.match_id for m in matches}
    cases = runtime.desk.cases()
    hit = PlayerHit(
        player_id=player_id,
        name=player.shown_name,
        name_erased=player.name is None,
        first_seen=min((m.created for m in matches if m.created), default=None),
        matches=len(matches),
        rating=profile.rating,
        rated_matches=profile.rated_matches,
        points=profile.points,
    )
    return PlayerPage(
        player=hit,
        matches=[msgspec.to_builtins(m) for m in matches],
        results=[msgspec.to_builtins(r) for r in history],
        rating_history=[
            {"match_id": r.match_id, "ended": r.ended, "rating": r.rating_after, "rd": r.rd_after}
            for r in rated
        ],
        reports_by=[c for c in cases if any(r.player_id == player_id for r in c.reports)],
        reports_about=[c for c in cases if c.match_id in match_ids],
        suspension=runtime.desk.suspension_of(player_id),
        sanctions=runtime.desk.sanctions(player_id),
        notes=runtime.desk.player_notes(player_id),
    )


def _now(runtime: ApiRuntime, match: PlayerMatchView) -> PlayerMatchView:
    """A match the read models last saw unfinished, with its status and winner as its stream
    has them now (it may have ended since, by a forfeit among others, R26, R29)."""
    if match.status == "ended":
        return match
    state = runtime.service.load(match.match_id)
    winner = state.winner if state.status == "ended" else match.winner
    return msgspec.structs.replace(match, status=state.status, turn=state.turn, winner=winner)
