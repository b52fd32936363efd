"""The read commands' everyday forms, answered without loading typer.

Support staff run ``replay ID --step N``, ``export ID``, ``verify ID`` and ``matches`` many
times a dispute, each as a new process; typer alone (and the pydantic it loads to convert
options) takes longer to start than the whole answer. ``answer`` reads only a command line
it is sure of: the options below, each at most once, with well-formed values. Anything else
(``--help``, another option, a value typer would refuse, a ``matches`` whose read models have
entries to fold) it leaves to typer, having printed nothing, so usage errors and help stay
typer's own. Both paths run the same functions of cli.reading and print the same bytes
(tests/cli/test_quick.py compares them, and this table with the typer commands).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal, NamedTuple

Kind = Literal["text", "path", "count", "seat"]
"""What an option's value must be: any text, a file name, a whole number from 1, or from 0."""

Option = tuple[str, Kind]
"""An option's parameter name and the kind of its value."""

_DB: Option = ("db", "path")
_AS: Option = ("as_seat", "seat")
_JSON = {"--json": "json"}


class Form(NamedTuple):
    """The command line of one command as answered here: its arguments, options and flags."""

    arguments: tuple[str, ...]
    options: dict[str, Option]
    flags: dict[str, str]


FORMS: dict[str, Form] = {
    "replay": Form(
        ("match_id",),
        {"--step": ("step", "count"), "--as": _AS, "--db": _DB},
        {"--support": "support", "--json": "json"},
    ),
    "export": Form(
        ("match_id",),
        {"--output": ("output", "path"), "--as": _AS, "--db": _DB},
        {"--support": "support"},
    ),
    "verify": Form(("match_id",), {"--db": _DB}, {"--json": "json"}),
    "matches": Form(
        (),
        {"--db": _DB, "--status": ("status", "text"), "--limit": ("limit", "count")},
        {"--json": "json"},
    ),
}
"""The command lines answered without typer, by command: parameter names as typer's."""

_MAX_DIGITS = 9


def _value(expected: Kind, text: str) -> Any:
    """The value of an option, or None when typer should judge it (and word any refusal)."""
    if expected in ("count", "seat"):
        if not (text.isascii() and text.isdigit() and len(text) <= _MAX_DIGITS):
            return None
        number = int(text)
        return None if expected == "count" and number < 1 else number
    if not text or text.startswith("-"):
        return None
    return Path(text) if expected == "path" else text


def parse(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The command and its parameters, when ``argv`` is a form of FORMS; else None."""
    if not argv or argv[0] not in FORMS:
        return None
    form = FORMS[argv[0]]
    given: dict[str, Any] = {}
    arguments: list[str] = []
    words = iter(argv[1:])
    for word in words:
        name, equals, inline = word.partition("=")
        if name in form.flags and not equals:
            dest: str = form.flags[name]
            value: Any = True
        elif name in form.options:
            dest, kind = form.options[name]
            value = _value(kind, inline if equals else next(words, ""))
            if value is None:
                return None
        elif word.startswith("-"):
            return None  # --help, --, another option: typer's to answer
        else:
            arguments.append(word)
            continue
        if dest in given:
            return None
        given[dest] = value
    if len(arguments) != len(form.arguments):
        return None
    given.update(zip(form.arguments, arguments, strict=True))
    return argv[0], given


def answer(argv: list[str]) -> int | None:
    """Run ``argv`` when it is a form of FORMS: its exit status; None (nothing printed) if not."""
    parsed = parse(argv)
    if parsed is None:
        return None
    command, given = parsed
    load_msgspec_alone()
    from cli.shell import report

    try:
        return _run(command, given)
    except (Exception, KeyboardInterrupt) as error:
        code = report(error)
        if code is None:
            raise
        return code


def load_msgspec_alone() -> None:
    """Import msgspec without letting it import typing_extensions (a third of its start-up).

    msgspec imports typing_extensions, when it is installed, only to read the type hints of
    TypedDicts and dataclasses and its ``Required``/``NotRequired``; on Python 3.11 and later
    typing has the same (``typing_extensions`` re-exports them), and these commands decode and
    encode msgspec Structs alone. typing_extensions stays importable afterwards: only this
    import of msgspec goes without it (docs/architecture.md, L-list; docs/performance.md).
    """
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import fails at once
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


def _run(command: str, given: dict[str, Any]) -> int | None:
    """Call the command's work in cli.reading with typer's defaults for what was not given."""
    from cli import reading

    db: Path | None = given.get("db")
    json: bool = given.get("json", False)
    as_seat: int | None = given.get("as_seat")
    support: bool = given.get("support", False)
    if command == "replay":
        step: int | None = given.get("step")
        if step is None and not json:
            return None  # interactive: typer's
        reading.replay_step(given["match_id"], step, as_seat, support, db, json)
        return 0
    if command == "export":
        reading.export_match(given["match_id"], given.get("output"), as_seat, support, db)
        return 0
    if command == "verify":
        return reading.verify_match(given["match_id"], db, json)
    status, limit = given.get("status"), given.get("limit")
    return 0 if reading.list_fresh_matches(db, status, limit, json) else None
