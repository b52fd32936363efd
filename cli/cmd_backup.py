"""``basra backup PATH`` and ``basra restore PATH``: a SQLite store and its companion files.

A backup is taken with SQLite's online backup API while the server may be writing: each file
is copied in one step under a read transaction, so it is the file as it stood at one commit.
The caches (read models, results) are copied first and the store last, so a restored cache is
never ahead of the restored log and only has to catch up. The players' and support tables are
tables of the store file and come with it. PostgreSQL is backed up with ``pg_dump``
(docs/deploy.md).

The backup of a store named ``PATH`` is ``PATH`` itself, with its caches beside it under the
names a store at ``PATH`` would give them (``NAME.readmodels.sqlite3``,
``NAME.readmodels.results.sqlite3``), so a backup can also be opened as it is with
``--db PATH``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.common import DbOption, JsonOption, app, handles_errors
from cli.errors import InvalidOptionError
from cli.shell import dump_json, echo_err, uses_postgres

if TYPE_CHECKING:
    from app.config import StoreConfig

PG_WAY = (
    "the store is PostgreSQL: back it up with pg_dump and restore it with pg_restore "
    "(docs/deploy.md, backup and restore)"
)
"""What ``backup`` and ``restore`` say when PostgreSQL is configured."""


def _sqlite_store(db: Path | None) -> StoreConfig:
    """The SQLite store ``--db`` names; PostgreSQL is refused with the way to back it up."""
    from app.config import resolve_store

    if uses_postgres():
        raise InvalidOptionError(PG_WAY)
    config = resolve_store(db)
    if config.sqlite_path is None:
        raise InvalidOptionError(PG_WAY)
    return config


def companions(store: Path, *, as_configured: bool) -> list[Path]:
    """The cache files of the store file ``store``: read models, then results.

    ``as_configured`` honours ``$BASRA_READMODELS`` (the live store's files); a backup's
    companions are always named after the backup.
    """
    from app.config import StoreConfig, readmodel_path
    from app.readmodels.results import results_path

    config = StoreConfig(kind="sqlite", sqlite_path=store)
    readmodels = readmodel_path(config, None if as_configured else {})
    return [readmodels, results_path(readmodels)]


def copy_database(source: Path, target: Path) -> int:
    """Copy the SQLite file ``source`` to ``target`` in one step of the online backup API.

    Written beside ``target`` first and renamed over it, so ``target`` is whole or untouched.
    Returns the copy's size in bytes.
    """
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    reader = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        writer = sqlite3.connect(partial)
        try:
            reader.backup(writer)  # all pages at once: one read transaction, one commit's state
        finally:
            writer.close()
    finally:
        reader.close()
    for stale in (Path(f"{target}-wal"), Path(f"{target}-shm")):
        stale.unlink(missing_ok=True)  # a journal of the file being replaced must not replay
    os.replace(partial, target)
    return target.stat().st_size


def _refuse_existing(path: Path, force: bool) -> None:
    if path.exists() and not force:
        raise InvalidOptionError(f"{path} exists; give --force to replace it")


@app.command()
@handles_errors
def backup(
    path: Annotated[Path, typer.Argument(help="Where to write the copy of the store.")],
    db: DbOption = None,
    force: Annotated[bool, typer.Option(help="Replace PATH if it exists.")] = False,
    json: JsonOption = False,
) -> None:
    """Copy the SQLite store (and its read models and results) while it may be serving."""
    config = _sqlite_store(db)
    store = config.sqlite_path
    assert store is not None
    if not store.is_file():
        raise FileNotFoundError(errno.ENOENT, "no such store", str(store))
    if path.resolve() == store.resolve():
        raise InvalidOptionError("the backup cannot be the store itself")
    _refuse_existing(path, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    copied: dict[str, int] = {}
    live_caches = companions(store, as_configured=True)
    kept_caches = companions(path, as_configured=False)
    # the caches first: never ahead of the log copied after them
    for live, kept in zip(live_caches, kept_caches, strict=True):
        if live.is_file():
            copied[str(kept)] = copy_database(live, kept)
        else:
            kept.unlink(missing_ok=True)
    copied[str(path)] = copy_database(store, path)
    if json:
        dump_json({"store": str(store), "files": copied})
        return
    for name, size in copied.items():
        echo_err(f"wrote {name} ({size:,} bytes)")
    typer.echo(str(path))


@app.command()
@handles_errors
def restore(
    path: Annotated[Path, typer.Argument(help="A backup written by basra backup.")],
    db: DbOption = None,
    force: Annotated[bool, typer.Option(help="Replace the store if it exists.")] = False,
    rebuild: Annotated[
        bool, typer.Option(help="Rebuild the read models and results from the log, not the copy.")
    ] = False,
) -> None:
    """Put a backup in place of the store (stop the server first); caches brought up to date."""
    config = _sqlite_store(db)
    target = config.sqlite_path
    assert target is not None
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, "no such backup", str(path))
    _check_backup(path)
    _refuse_existing(target, force)
    target.parent.mkdir(parents=True, exist_ok=True)
    size = copy_database(path, target)
    echo_err(f"restored {target} ({size:,} bytes)")
    kept = companions(path, as_configured=False)
    for backup_file, live in zip(kept, companions(target, as_configured=True), strict=True):
        if backup_file.is_file() and not rebuild:
            copy_database(backup_file, live)
        else:
            live.unlink(missing_ok=True)  # rebuilt from the log below
    _bring_up_to_date(target, rebuild)


def _check_backup(path: Path) -> None:
    """Refuse a file that is not a SQLite store (before anything is replaced)."""
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as error:
        raise InvalidOptionError(f"{path} is not a basra backup: {error}") from None
    if "stored_events" not in tables:
        raise InvalidOptionError(f"{path} is not a basra backup: it has no stored_events table")


def _bring_up_to_date(target: Path, rebuild: bool) -> None:
    """Read models and results of the restored store, caught up with (or rebuilt from) its log."""
    from cli.projections import LOG_LABEL, RESULTS_LABEL, caught_up, projections_of
    from cli.shell import opened

    with opened(target) as service, projections_of(service) as projections:
        applied = caught_up(projections.matches, label=LOG_LABEL, rebuild=rebuild)
        counted = caught_up(projections.results, label=RESULTS_LABEL, rebuild=rebuild)
    verb = "rebuilt" if rebuild else "caught up"
    echo_err(f"read models {verb}: {applied} events; results {verb}: {counted} events")
