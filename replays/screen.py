"""A replay frame fitted to a terminal: the seq line and the event stay whole on every frame.

A frame that does not fit a terminal scrolls its top lines away, and with them the seq and
the event, which are what the frame is about. So the parts around them give way, in a fixed
order: blank lines first, then the stock, the recorded line and the line of keys, then the
table folds (the sides into one line, the seats without their heading), then the analysis,
the message, the title, the end, the turn, the help and the banner (to its first line), and
only then the table's rows. The seq line, the event
and a jump being typed are never cut; lines too wide are cut with ``…`` except those, which
are folded onto more lines.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Final

from replays.render import FrameParts

ELLIPSIS: Final = "…"
"""Ends a line cut at the terminal's width."""

_GIVE_WAY: Final = (
    ("gap", "cut"),
    ("stock", "cut"),
    ("recorded", "cut"),
    ("keys", "cut"),
    ("sides", "fold"),
    ("seats", "fold"),
    ("analysis", "cut"),
    ("message", "cut"),
    ("title", "cut"),
    ("end", "cut"),
    ("turn", "cut"),
    ("help", "cut"),
    ("banner", "cut"),
    ("seats", "cut"),
    ("floor", "cut"),
    ("sides", "cut"),
)
"""Which part gives way next, and how: folded to its short form, or cut to its least lines."""


@dataclass
class _Part:
    """Lines of one part of the screen; ``short`` is its folded form, ``least`` its floor."""

    name: str
    lines: list[str]
    short: list[str] | None = None
    least: int = 0
    whole: bool = False
    folded: bool = field(default=False, init=False)


def _cut(line: str, columns: int) -> str:
    return line if len(line) <= columns else line[: max(columns - 1, 0)] + ELLIPSIS


def _fold(line: str, columns: int) -> list[str]:
    return textwrap.wrap(line, width=columns, subsequent_indent="  ") or [line]


def fit_screen(
    parts: FrameParts,
    *,
    below: list[str],
    help_lines: list[str],
    note: list[str],
    typing: bool,
    keys: str,
    columns: int,
    rows: int,
) -> list[str]:
    """The lines of a screen of ``columns`` × ``rows``, in frame order, the least kept first.

    ``below`` are lines under the table (the analysis), ``help_lines`` the help when shown,
    ``note`` the message or, while ``typing``, the jump prompt (kept whole), ``keys`` the key
    reminder.
    """
    seats = list(parts.seats)
    screen = [
        _Part("banner", list(parts.banner), least=1),
        _Part("title", [parts.title]),
        _Part("seq", _fold(parts.seq, columns), whole=True),
        _Part("recorded", [parts.recorded]),
        _Part("gap", [""]),
        _Part("event", list(parts.event), whole=True),
        _Part("gap", [""]),
        _Part("floor", [parts.floor]),
        _Part("stock", [parts.stock]),
        _Part("gap", [""]),
        _Part("seats", seats, short=seats[1:]),
        _Part("gap", [""]),
        _Part("sides", list(parts.sides), short=[parts.sides_line]),
        _Part("turn", [parts.turn]),
        _Part("end", [parts.end] if parts.end is not None else []),
        _Part("gap", [""]),
        _Part("analysis", below),
        _Part("help", help_lines),
        _Part("gap", [""] if help_lines else []),
        _Part("message", note, least=1, whole=typing),
        _Part("keys", [keys]),
    ]
    for part in screen:
        if not part.whole:
            part.lines = [_cut(line, columns) for line in part.lines]
            if part.short is not None:
                part.short = [_cut(line, columns) for line in part.short]

    def height() -> int:
        return sum(len(part.lines) for part in screen)

    for name, how in _GIVE_WAY:
        for part in screen:
            if height() <= rows:
                break
            if part.name != name or part.whole:
                continue
            if how == "fold":
                if part.short is not None and not part.folded:
                    part.lines, part.folded = part.short, True
            else:
                over = height() - rows
                kept = part.lines[: max(part.least, len(part.lines) - over)]
                if kept and len(kept) < len(part.lines):
                    kept[-1] = _cut(kept[-1] + " " + ELLIPSIS, columns)  # more was cut below
                part.lines = kept
    return [line for part in screen for line in part.lines]
