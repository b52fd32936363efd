"""The options every benchmark shares, parsed in one place: how long and how often it measures,
its PostgreSQL server, its folder, and the harness's own (``--json``, ``--before DIR``,
``--before-runs``). Each benchmark says which of them it takes, with its own defaults and the
names its old script gave them (still accepted)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

POSTGRES_ENV = "BASRA_TEST_POSTGRES"
"""Where a benchmark that needs PostgreSQL finds the server when ``--postgres`` is not given."""


@dataclass(frozen=True)
class Shared:
    """The shared options one benchmark takes (None or False: not taken), with its defaults.

    ``postgres``: ``"needed"`` (the default comes from ``BASRA_TEST_POSTGRES`` and the run
    stops without one), ``"optional"`` (PostgreSQL figures are added when a server is given;
    ``postgres_from_env`` says whether ``BASRA_TEST_POSTGRES`` gives one) or None. ``names``:
    more option strings per shared option (the old script's), e.g. ``{"seconds":
    ("--duration",)}``."""

    seconds: float | None = None
    seconds_help: str = "seconds each measured run lasts"
    repeats: int | None = None
    repeats_help: str = "runs of each measurement (medians are reported)"
    postgres: str | None = None
    postgres_from_env: bool = True
    postgres_default: str | None = None
    workdir: bool = False
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)


def shared_parser(shared: Shared, *, add_help: bool = False) -> argparse.ArgumentParser:
    """The parser of the shared options ``shared`` takes, and of the harness's own."""
    parser = argparse.ArgumentParser(add_help=add_help)
    group = parser.add_argument_group("shared options")
    more = shared.names
    if shared.seconds is not None:
        group.add_argument(
            "--seconds",
            *more.get("seconds", ()),
            dest="seconds",
            type=float,
            default=shared.seconds,
            help=f"{shared.seconds_help} (default {shared.seconds:g})",
        )
    if shared.repeats is not None:
        group.add_argument(
            "--repeats",
            *more.get("repeats", ()),
            dest="repeats",
            type=int,
            default=shared.repeats,
            help=f"{shared.repeats_help} (default {shared.repeats})",
        )
    if shared.postgres is not None:
        default = shared.postgres_default
        if shared.postgres_from_env:
            default = os.environ.get(POSTGRES_ENV) or default
        needed = "needed" if shared.postgres == "needed" else "adds PostgreSQL figures"
        group.add_argument(
            "--postgres",
            *more.get("postgres", ()),
            dest="postgres",
            default=default,
            metavar="URL",
            help=f"a PostgreSQL server, in a fresh schema of its own dropped after ({needed};"
            + (f" default ${POSTGRES_ENV})" if shared.postgres_from_env else " default none)"),
        )
    if shared.workdir:
        group.add_argument(
            "--dir",
            *more.get("workdir", ()),
            dest="dir",
            type=Path,
            default=None,
            help="folder for the benchmark's files (default: a temporary one, removed after)",
        )
    harness = parser.add_argument_group("harness options")
    harness.add_argument(
        "--json", action="store_true", help="print the figures as JSON (the text goes to stderr)"
    )
    harness.add_argument(
        "--before",
        type=Path,
        default=None,
        metavar="DIR",
        help="also run the benchmark from this checkout (e.g. a git worktree of an earlier "
        "commit), whole processes interleaved, and print each figure's median ratio",
    )
    harness.add_argument(
        "--before-runs", type=int, default=3, help="with --before: runs of each side (default 3)"
    )
    return parser


def check_postgres(
    shared: Shared, args: argparse.Namespace, parser: argparse.ArgumentParser
) -> None:
    """Stop with a usage error when the benchmark needs PostgreSQL and has none."""
    if shared.postgres == "needed" and not args.postgres:
        parser.error(f"--postgres URL (or {POSTGRES_ENV}) is needed")
