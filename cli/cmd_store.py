"""``basra matches``, ``basra export`` and ``basra projections``: the store from the shell."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.service import MatchService
from cli.common import (
    AsSeatOption,
    DbOption,
    JsonOption,
    SupportOption,
    app,
    dump_json,
    echo_err,
    handles_errors,
    resolve_db,
    viewer_of,
)
from replays.replay_file import write_replay

if TYPE_CHECKING:
    # sqlite-utils is slow to import: only the commands that read the read models load it.
    from app.readmodel_matches import MatchSummaryView
    from app.readmodels import ReadModels

projections = typer.Typer(
    help="Cross-match read models (the matches list): rebuild them from the event log.",
    no_args_is_help=True,
)
"""The ``basra projections`` command group."""

app.add_typer(projections, name="projections")

BEHIND_FOR_PROGRESS = 20_000
"""Show a progress bar when the read models are this many log entries behind."""


@contextmanager
def _service(db: Path | None) -> Iterator[MatchService]:
    service = MatchService.open(resolve_db(db))
    try:
        yield service
    finally:
        service.close()


def _read_models(service: MatchService) -> ReadModels:
    from app.readmodels import ReadModels

    return ReadModels.for_store(service.store)


def _caught_up(read: ReadModels, *, rebuild: bool = False) -> int:
    """Bring the read models up to the log, with a progress bar on stderr when far behind."""
    total = read.store.max_position()
    start = 0 if rebuild else min(read.position(), total)
    if total - start < BEHIND_FOR_PROGRESS:
        return read.rebuild() if rebuild else read.catch_up()
    with typer.progressbar(length=total - start, label="reading the log", file=sys.stderr) as bar:
        done = [start]

        def advance(position: int, _last: int) -> None:
            bar.update(max(0, position - done[0]))
            done[0] = position

        return read.rebuild(progress=advance) if rebuild else read.catch_up(progress=advance)


@app.command()
@handles_errors
def matches(
    db: DbOption = None,
    status: Annotated[
        str | None, typer.Option(help="Only matches with this status: waiting, playing, ended.")
    ] = None,
    limit: Annotated[
        int | None, typer.Option(min=1, help="At most this many, newest first.")
    ] = None,
    json: JsonOption = False,
) -> None:
    """List recorded matches, newest first (from the read models, brought up to date first)."""
    with _service(db) as service:
        read = _read_models(service)
        try:
            _caught_up(read)
            rows = read.matches(status=status, limit=limit)
        finally:
            read.close()
    if json:
        dump_json(rows)
        return
    if not rows:
        echo_err("no matches recorded")
        return
    for row in rows:
        typer.echo(_line(row))


def _line(row: MatchSummaryView) -> str:
    totals = "-".join(str(t) for t in row.totals)
    winner = (
        "draw"
        if row.status == "ended" and row.winner is None
        else (f"side {row.winner}" if row.winner is not None else "")
    )
    players = ", ".join(p or "(open)" for p in row.players)
    return "\t".join(
        [
            row.match_id,
            row.ruleset or "?",
            f"{row.seats or '?'} seats",
            row.status,
            totals,
            winner,
            f"{row.rounds} rounds",
            f"{row.plays} plays",
            row.created or "",
            players,
        ]
    )


@app.command()
@handles_errors
def export(
    match_id: Annotated[str, typer.Argument(help="The match to export.")],
    output: Annotated[
        Path | None, typer.Option(help="Write the replay file here (default: stdout).")
    ] = None,
    as_seat: AsSeatOption = None,
    support: SupportOption = False,
    db: DbOption = None,
) -> None:
    """Write a match's replay file (CONTRACT §1) from its stored stream."""
    viewer = viewer_of(as_seat, support)
    with _service(db) as service:
        recorded = service.events(match_id)
        state = service.load(match_id)
    if as_seat is not None and not 0 <= as_seat < state.seat_count():
        last = state.seat_count() - 1
        raise ValueError(f"seat {as_seat} is not a seat of this match (0..{last})")
    data = write_replay(recorded, state.names, viewer)
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.write_bytes(data)
        echo_err(f"wrote {output} ({len(recorded)} events)")


@projections.command("rebuild")
@handles_errors
def rebuild(
    db: DbOption = None,
    snapshots: Annotated[
        bool, typer.Option(help="Also drop the store's snapshots (they are rebuilt on load).")
    ] = False,
) -> None:
    """Drop the read models and rebuild them from the start of the event log."""
    with _service(db) as service:
        if snapshots:
            echo_err(f"dropped {service.store.drop_snapshots()} snapshot(s)")
        read = _read_models(service)
        try:
            applied = _caught_up(read, rebuild=True)
            count = len(read.matches())
        finally:
            read.close()
    echo_err(f"rebuilt the read models: {applied} events, {count} matches")


@projections.command("status")
@handles_errors
def status(db: DbOption = None, json: JsonOption = False) -> None:
    """Show how far the read models have followed the event log (without updating them)."""
    with _service(db) as service:
        read = _read_models(service)
        try:
            info = {
                "file": str(read.path),
                "position": read.position(),
                "log": service.store.max_position(),
            }
        finally:
            read.close()
    if json:
        dump_json(info)
    else:
        typer.echo(f"{info['file']}\tposition {info['position']} of {info['log']}")
