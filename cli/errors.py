"""The command line's own error, and the exit status of every project error, by its cause.

``exit_code_of`` gives the ``exit_status`` of the nearest of an error's class's bases that sets
one (a cause or sub-cause, ``domain.errors``): a command the rules or the request refuse, or a
replay file that is not a match, exits 1: fix the input. A store fault exits with its
sysexits.h status (``app.errors``), so a script can tell "try again later" (``conflict`` 75,
``store_unavailable`` 69) from "the stored data is damaged" (``corrupt_event`` 65). An option
refused before anything is read exits 2, like typer's own usage errors. A class under no cause
has none: a bug, reported as such (70).
"""

from __future__ import annotations

from typing import Final

from domain.errors import BasraError, RequestError

USAGE_EXIT: Final = 2
"""Exit status of a command line that cannot be run as given (bad option, filter or viewer)."""

EX_SOFTWARE: Final = 70
"""sysexits.h: an internal software error (an error class under no cause)."""


class InvalidOptionError(RequestError):
    """An option's value is refused before anything is read or written (a filter, a viewer):
    a usage error, exit 2."""

    code = "invalid_option"
    exit_status = USAGE_EXIT


def exit_code_of(error: BasraError) -> int:
    """The exit status of ``error``: that of the nearest of its class's bases (its MRO) that
    sets ``exit_status``, its cause or sub-cause; 70 (a bug) under no cause."""
    status = type(error).exit_status
    return EX_SOFTWARE if status is None else status
