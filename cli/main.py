"""Entry point of ``basra``: the read commands' everyday forms at once, the rest by typer.

``main`` first offers the command line to cli.quick, which answers ``replay ID --step N``,
``export ID``, ``verify ID`` and an up-to-date ``matches`` without importing typer; every other
command line (help, usage errors included) goes to the typer app, built on first use.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import cli

if TYPE_CHECKING:
    import typer


def typer_app() -> typer.Typer:
    """The ``basra`` typer app with every command module imported (so registered)."""
    import importlib
    import pkgutil

    for name in sorted(m.name for m in pkgutil.iter_modules(cli.__path__)):
        if name.startswith("cmd_"):
            importlib.import_module(f"cli.{name}")
    from cli.common import app

    return app


def __getattr__(name: str) -> Any:
    """``cli.main.app``: the typer app, built when first asked for."""
    if name == "app":
        return typer_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the ``basra`` command line."""
    from cli.quick import answer

    code = answer(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    typer_app()()


if __name__ == "__main__":
    main()
