"""``basra ladder`` and ``basra player ID``: results from the shell (docs/cli.md, docs/ratings.md).

Both bring the results projection up to the log first (a progress bar on stderr when far
behind). ``basra player`` is an operator's view: it lists every result of the player with its
match id, private tables too, so a moderator can replay the matches behind a rating.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import DbOption, JsonOption, app, handles_errors
from cli.projections import RESULTS_LABEL, caught_up, projections_of
from cli.shell import dump_json, opened

if TYPE_CHECKING:
    from app.service import MatchService


def _rating(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


@app.command()
@handles_errors
def ladder(
    db: DbOption = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many players.")] = 20,
    json: JsonOption = False,
) -> None:
    """The rated ladder: settled players (RD 110 or less) by rating, then provisional ones."""
    with opened(db) as service, projections_of(service) as projections:
        results = projections.results
        caught_up(results, label=RESULTS_LABEL)
        rows = results.ladder(limit=limit)
        names = service_names(service, [p.player_id for p in rows])
    listed = [
        {
            "rank": rank,
            "player_id": p.player_id,
            "name": names.get(p.player_id, "deleted player"),
            "rating": p.rating,
            "rd": p.rd,
            "provisional": p.provisional,
            "rated_matches": p.rated_matches,
            "points": p.points,
        }
        for rank, p in enumerate(rows, start=1)
    ]
    if json:
        dump_json({"players": listed})
        return
    typer.echo("RANK\tRATING\tRD\tMATCHES\tPOINTS\tPLAYER\tNAME")
    for row in listed:
        mark = "?" if row["provisional"] else ""
        typer.echo(
            f"{row['rank']}\t{row['rating']:.1f}{mark}\t{row['rd']:.1f}\t{row['rated_matches']}"
            f"\t{row['points']}\t{row['player_id']}\t{row['name']}"
        )


def service_names(service: MatchService, player_ids: list[str]) -> dict[str, str]:
    """The name each player shows under now (``deleted player`` once erased)."""
    from app.service.players import PlayerService

    return PlayerService(service.store).shown_names(player_ids)


@app.command()
@handles_errors
def player(
    player_id: Annotated[str, typer.Argument(help="The player's id (p-...).")],
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """A player's profile and every result with its match id (private tables too)."""
    from app.errors import NotAPlayerError, PlayerNotFoundError
    from app.service.players import PlayerService
    from domain.players import is_player_id

    if not is_player_id(player_id):
        raise NotAPlayerError(f"{player_id[:80]!r} is not a player id (p-...)")
    with opened(db) as service:
        found = PlayerService(service.store).load(player_id)
        if found is None:
            raise PlayerNotFoundError(f"no player {player_id!r}")
        with projections_of(service) as projections:
            results = projections.results
            caught_up(results, label=RESULTS_LABEL)
            profile = results.profile(player_id)
            history = results.history(player_id)
    summary = {
        "player_id": player_id,
        "name": found.shown_name,
        "points": profile.points,
        "wins": profile.wins,
        "draws": profile.draws,
        "losses": profile.losses,
        "rating": profile.rating,
        "rd": profile.rd,
        "volatility": profile.volatility,
        "provisional": profile.provisional,
        "rated_matches": profile.rated_matches,
    }
    rows = [
        {
            "match_id": r.match_id,
            "ended": r.ended,
            "ruleset": r.ruleset,
            "seats": r.seats,
            "seat": r.seat,
            "private": r.private,
            "reason": r.reason,
            "result": r.outcome,
            "points": r.points,
            "player_ids": r.player_ids,
            "rated": r.rated,
            "rating_before": r.rating_before,
            "rating_after": r.rating_after,
        }
        for r in history
    ]
    if json:
        dump_json(summary | {"matches": rows})
        return
    mark = " (provisional)" if profile.provisional else ""
    typer.echo(
        f"{player_id}\t{found.shown_name}\n"
        f"points {profile.points}: {profile.wins} won, {profile.draws} drawn, {profile.losses}"
        f" lost\nrating {profile.rating:.1f}{mark}, RD {profile.rd:.1f}, volatility"
        f" {profile.volatility:.5f}, {profile.rated_matches} rated"
    )
    typer.echo("MATCH\tENDED\tRULESET\tSEATS\tSEAT\tRESULT\tPOINTS\tBEFORE\tAFTER\tPRIVATE")
    for r in history:
        typer.echo(
            f"{r.match_id}\t{r.ended}\t{r.ruleset}\t{r.seats}\t{r.seat}\t{r.outcome}\t{r.points}"
            f"\t{_rating(r.rating_before)}\t{_rating(r.rating_after)}\t{'yes' if r.private else ''}"
        )
