"""``basra matches``, ``basra export``, ``basra projections`` and ``basra store``: the store
from the shell."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import (
    AsSeatOption,
    DbOption,
    JsonOption,
    SupportOption,
    app,
    handles_errors,
)
from cli.projections import LOG_LABEL, RESULTS_LABEL, caught_up, projections_of
from cli.reading import export_match, list_matches
from cli.shell import dump_json, echo_err, opened

if TYPE_CHECKING:
    from app.readmodels.models import ReadModels

projections = typer.Typer(
    help="Cross-match read models (the matches list): rebuild them from the event log.",
    no_args_is_help=True,
)
"""The ``basra projections`` command group."""

app.add_typer(projections, name="projections")

store_commands = typer.Typer(
    help="The event store itself: rewrite a store of an earlier build into today's form.",
    no_args_is_help=True,
)
"""The ``basra store`` command group."""

app.add_typer(store_commands, name="store")


def _caught_up(read: ReadModels) -> int:
    """Bring the read models up to the log, with a progress bar on stderr when far behind."""
    return caught_up(read, label=LOG_LABEL)


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
    """List recorded matches, newest first (from the read models, brought up to date first).

    One line per match under a header: how it ended (the winning side or a draw, and why) and,
    last, PROBLEM when an event of its stream cannot be read back (replay and verify would fail).
    """
    list_matches(db, status, limit, json, catch_up=_caught_up)


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
    """Write a match's replay file (docs/replay-format.md) from its stored stream."""
    export_match(match_id, output, as_seat, support, db)


@projections.command("rebuild")
@handles_errors
def rebuild(
    db: DbOption = None,
    snapshots: Annotated[
        bool, typer.Option(help="Also drop the store's snapshots (they are rebuilt on load).")
    ] = False,
) -> None:
    """Drop the read models and the results and rebuild them from the start of the event log."""
    with opened(db) as service:
        if snapshots:
            echo_err(f"dropped {service.store.drop_snapshots()} snapshot(s)")
        with projections_of(service) as projections:
            applied = caught_up(projections.matches, label=LOG_LABEL, rebuild=True)
            count = len(projections.matches.matches())
            counted = caught_up(projections.results, label=RESULTS_LABEL, rebuild=True)
    echo_err(f"rebuilt the read models: {applied} events, {count} matches")
    echo_err(f"rebuilt the results: {counted} events read")


@projections.command("status")
@handles_errors
def status(db: DbOption = None, json: JsonOption = False) -> None:
    """Show how far the read models have followed the event log (without updating them)."""
    with opened(db) as service, projections_of(service) as projections:
        read = projections.matches
        info = {
            "file": str(read.path),
            "position": read.position(),
            "log": service.store.max_position(),
        }
    if json:
        dump_json(info)
    else:
        typer.echo(f"{info['file']}\tposition {info['position']} of {info['log']}")


@store_commands.command("migrate")
@handles_errors
def migrate(db: DbOption = None, json: JsonOption = False) -> None:
    """Rewrite a store written by an earlier build into today's stored form, once, in place.

    Every row keeps its log position; run it with no server or other command using the store
    (it refuses otherwise). Interrupted, run it again to finish; run twice, it changes nothing.
    """
    from app.config import existing_store, resolve_store
    from app.store.migration import migrate as migrate_store

    config = existing_store(resolve_store(db))
    with typer.progressbar(length=1, label="migrating the store", file=sys.stderr) as bar:
        shown = [0]

        def advance(done: int, total: int) -> None:
            bar.length = max(total, 1)
            bar.update(done - shown[0])
            shown[0] = done

        report = migrate_store(config, progress=advance)
    if json:
        dump_json({**msgspec_dict(report), "changed": report.changed})
        return
    if report.form_before == report.form_after and report.changed == 0:
        echo_err(f"{report.store}: already in today's stored form; nothing changed")
        return
    echo_err(
        f"{report.store}: {report.streams_renamed} stream(s) renamed to keys "
        f"({report.rows_renamed} rows), {report.rows_rewritten} row(s) rewritten in the compact "
        f"form, {report.rows_unreadable} unreadable row(s) left as they were"
    )
    typer.echo(str(report.changed))


def msgspec_dict(value: object) -> dict[str, object]:
    """A msgspec Struct's fields as a dict."""
    import msgspec

    return msgspec.structs.asdict(value)  # type: ignore[arg-type]
