"""Entry point of the ``basra`` command: imports every command module, then runs the app."""

from __future__ import annotations

import importlib
import pkgutil

import cli
from cli.common import app

_COMMAND_MODULES = sorted(
    m.name for m in pkgutil.iter_modules(cli.__path__) if m.name.startswith("cmd_")
)
for _name in _COMMAND_MODULES:
    importlib.import_module(f"cli.{_name}")


def main() -> None:
    """Run the ``basra`` command line."""
    app()


if __name__ == "__main__":
    main()
