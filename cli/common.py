"""What every command shares: the app object, the ``--db`` option, and the one error handler."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from cli.shell import dump_json, echo_err, report, viewer_of

__all__ = ["dump_json", "echo_err", "viewer_of"]

P = ParamSpec("P")
R = TypeVar("R")


class OneLineGroup(TyperGroup):
    """The ``basra`` group: a command line that cannot be run is one line on stderr, exit 2."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command; a usage error prints ``error: …`` (no box) and exits with 2."""
        standalone = kwargs.pop("standalone_mode", True)
        try:
            code = super().main(*args, **{**kwargs, "standalone_mode": False})
        except typer.Abort:
            code = report(KeyboardInterrupt())
        except NoArgsIsHelpError as error:  # a bare ``basra`` or group: its help, as before
            error.show()
            code = error.exit_code
        except UsageError as error:  # names the option and why
            code = _usage(error)
        except ClickException as error:
            echo_err(f"error: {error.format_message()}")
            code = error.exit_code
        if not standalone:
            return code
        sys.exit(code if isinstance(code, int) else 0)


def _usage(error: Any) -> int:
    """``error: MESSAGE (see basra CMD --help)`` for a usage error of typer's parser."""
    message = " ".join(str(error.format_message()).split())
    where = error.ctx.command_path if error.ctx is not None else "basra"
    echo_err(f"error: {message} (see {where} --help)")
    return int(error.exit_code)


app = typer.Typer(
    cls=OneLineGroup,
    name="basra",
    help="Basra match backend: serve the HTTP API, simulate bot matches, replay and verify.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
"""The ``basra`` command group; every command module registers itself on it."""

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="SQLite file of the embedded store (default: $BASRA_DB, then ./basra.db).",
        show_default=False,
    ),
]
"""The ``--db PATH`` option (docs/storage.md, the command line)."""

JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
"""The ``--json`` option for scripts."""

AsSeatOption = Annotated[
    int | None,
    typer.Option("--as", help="As this seat sees it: its own hand only, others hidden (R23)."),
]
"""The ``--as SEAT`` viewer option: that seat's own hand only (R23)."""

SupportOption = Annotated[
    bool, typer.Option("--support", help="As support sees it: every hand (the default).")
]
"""The ``--support`` viewer option: every hand."""


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one line on stderr and return the exit to raise (no traceback)."""
    echo_err(f"error: {message}")
    return typer.Exit(code)


def handles_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn every known error of a command into one line on stderr and a non-zero exit."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (Exception, KeyboardInterrupt) as error:
            code = report(error)
            if code is None:
                raise
            raise typer.Exit(code) from None

    return wrapper


@app.callback()
def _root() -> None:
    """Basra match backend: serve the HTTP API, simulate bot matches, replay and verify matches."""
