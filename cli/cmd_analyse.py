"""``basra analyse``: every person's play of a recorded match against the strong bot's pick."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.common import AsSeatOption, DbOption, JsonOption, app, handles_errors
from cli.reading import named_events
from cli.shell import dump_json, reading, viewer_of
from domain.bot_kinds import DEFAULT_BUDGET
from domain.redaction import SUPPORT
from replays.analysis import analyse_recorded, analysis_line


@app.command()
@handles_errors
def analyse(
    match_id: Annotated[str, typer.Argument(help="The match to analyse.")],
    as_seat: AsSeatOption = None,
    budget: Annotated[
        int,
        typer.Option(min=1, max=4096, help="Deals the strong bot samples for each play."),
    ] = DEFAULT_BUDGET,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """For every play a person made: the strong bot's card from that seat's view at that
    moment, the expected points of both, the cost; then the costliest plays as mistakes.

    Support (the default viewer) may analyse a match at any time; --as SEAT only once the
    match has ended, since the strong bot's card would tell of cards the seat cannot see.
    With --json, print the analysis as one JSON object (docs/bots.md).
    """
    viewer = viewer_of(as_seat, False)
    with reading(db) as streams:
        events = named_events(streams, match_id)
    if not events:
        from domain.errors import MatchNotStartedError

        raise MatchNotStartedError(f"there is no match {match_id}")
    result = analyse_recorded(events, support=viewer == SUPPORT, budget=budget)
    if json:
        dump_json(result)
        return
    if not result.plays:
        typer.echo(f"{match_id}: no play by a person to analyse")
        return
    for play in result.plays:
        typer.echo(analysis_line(play))
    typer.echo(f"\nmistakes (cost {2.0:.0f} points or more), the costliest first:")
    for play in result.mistakes:
        typer.echo("  " + analysis_line(play))
    if not result.mistakes:
        typer.echo("  none")
