"""What every command shares: the app object, the ``--db`` option, and the one error handler."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer

from domain.errors import BasraError

P = ParamSpec("P")
R = TypeVar("R")

app = typer.Typer(
    name="basra",
    help="Basra match backend: serve the HTTP API, simulate bot matches, replay and verify.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
"""The ``basra`` command group; every command module registers itself on it."""

DEFAULT_DB_FILE = "basra.db"
"""The embedded store's file in the current directory when neither --db nor BASRA_DB is given."""

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="SQLite file of the embedded store (default: $BASRA_DB, then ./basra.db).",
        show_default=False,
    ),
]
"""The ``--db PATH`` option (CONTRACT §2)."""

JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
"""The ``--json`` option for scripts."""

AsSeatOption = Annotated[
    int | None,
    typer.Option("--as", help="As this seat sees it: its own hand only, others hidden (R23)."),
]
"""The ``--as SEAT`` viewer option (CONTRACT §2)."""

SupportOption = Annotated[
    bool, typer.Option("--support", help="As support sees it: every hand (the default).")
]
"""The ``--support`` viewer option (CONTRACT §2)."""


def viewer_of(as_seat: int | None, support: bool) -> int:
    """The viewer chosen by ``--as SEAT`` or ``--support`` (support when neither is given)."""
    from domain.redaction import SUPPORT

    if as_seat is not None and support:
        raise ValueError("give --as SEAT or --support, not both")
    return SUPPORT if as_seat is None else as_seat


def resolve_db(db: Path | None) -> Path:
    """``--db``, then ``$BASRA_DB``, then ``./basra.db`` (CONTRACT §2)."""
    if db is not None:
        return db
    env = os.environ.get("BASRA_DB")
    return Path(env) if env else Path(DEFAULT_DB_FILE)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one line on stderr and return the exit to raise (no traceback)."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


def handles_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn every known error of a command into one line on stderr and a non-zero exit."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except BasraError as error:
            raise fail(error.message) from None
        except (OSError, ValueError) as error:
            raise fail(str(error)) from None
        except KeyboardInterrupt:
            raise fail("interrupted", 130) from None

    return wrapper


def echo_err(message: str) -> None:
    """A message for people, on stderr (stdout is kept for ids and data)."""
    print(message, file=sys.stderr)


def dump_json(data: Any) -> None:
    """Print ``data`` as JSON on stdout."""
    import msgspec

    sys.stdout.write(msgspec.json.encode(data).decode() + "\n")


@app.callback()
def _root() -> None:
    """Basra match backend: serve the HTTP API, simulate bot matches, replay and verify matches."""
