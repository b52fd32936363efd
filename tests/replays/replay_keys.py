"""The replay keys as docs/replay-format.md lists them ("Stepping through"), read from the page.

The terminal (``basra replay``) and the web viewer (``/replay/{id}``) are both tested against
this table, so the page, the terminal and the browser cannot drift apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

FORMAT_DOC: Final = Path(__file__).parents[2] / "docs" / "replay-format.md"
"""The page that defines the replay keys."""

_TOKEN: Final = re.compile(r"`([^`]+)`|\b(space|Home|End)\b|(→|←)")

TERMINAL: Final = {
    "space": " ",
    "→": "\x1b[C",
    "←": "\x1b[D",
    "Home": "\x1b[H",
    "End": "\x1b[F",
    "Enter": "\r",
}
"""What a terminal sends for the named keys of the table (the rest are their own character)."""

BROWSER: Final = {"space": "Space", "→": "ArrowRight", "←": "ArrowLeft"}
"""Playwright's names for the named keys of the table (the rest are their own name)."""


@dataclass(frozen=True)
class KeyRow:
    """One row of the key table: the keys each way and what they move to."""

    forward: tuple[str, ...]
    backward: tuple[str, ...]
    meaning: str


def _tokens(cell: str) -> tuple[str, ...]:
    found: list[str] = []
    for quoted, word, arrow in _TOKEN.findall(cell):
        token = quoted or word or arrow
        if re.fullmatch(r"\d-\d", token):  # `0`-`3` is written as two quoted digits
            continue
        found.append(token)
    return tuple(found)


def key_table() -> list[KeyRow]:
    """Every row of the key table of docs/replay-format.md, in the page's order."""
    text = FORMAT_DOC.read_text(encoding="utf-8")
    section = text.split("## Stepping through", 1)[1]
    rows: list[KeyRow] = []
    started = False
    for line in section.splitlines():
        if line.startswith("| key |"):
            started = True
            continue
        if not started or line.startswith("| ---"):
            continue
        if not line.startswith("|"):
            break
        keys, meaning = (cell.strip() for cell in line.strip("|").split("|", 1))
        forward, _, backward = keys.partition(" / ")
        rows.append(KeyRow(_tokens(forward), _tokens(backward), meaning.strip(" |")))
    return rows


STEPS: Final = ("event", "play", "deal", "round")
"""The kinds of step a row's meaning names, as ``replays.cursor.Step`` spells them."""


def moving_rows() -> list[tuple[str, KeyRow]]:
    """The rows of keys that step (by event, play, deal or round), each with its kind."""
    out: list[tuple[str, KeyRow]] = []
    for row in key_table():
        named = re.fullmatch(r"the next / previous (\w+)\b.*", row.meaning)
        if named and named.group(1) in STEPS:
            out.append((named.group(1), row))
    return out


def ends_row() -> KeyRow:
    """The row of the keys to the first / last event."""
    return next(row for row in key_table() if row.meaning.startswith("the first / last event"))


def jump_row() -> KeyRow:
    """The row of the jump to a seq (``g NUMBER Enter``)."""
    return next(row for row in key_table() if "seq NUMBER" in row.meaning)


def position_keys() -> list[str]:
    """Every documented key that moves the position, by the table's names, each once."""
    keys: list[str] = []
    for _, row in moving_rows():
        keys.extend(row.forward + row.backward)
    ends = ends_row()
    keys.extend(ends.forward + ends.backward)
    return keys


def terminal_key(name: str) -> str:
    """What a terminal sends for the table's key ``name``."""
    return TERMINAL.get(name, name)


def browser_key(name: str) -> str:
    """Playwright's name of the table's key ``name``."""
    return BROWSER.get(name, name)
