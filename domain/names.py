"""Seat names: what a person may sit under, as every other seat and replay will show it.

A name is shown to other people, so it must read as what it is: no control characters (a line
break or escape sequence in a log or terminal), no invisible formatting characters such as the
bidirectional overrides that make text display in another order than it is stored, and no name
that poses as one of the server's bots (bot seats are named ``"<kind> bot"``, e.g. ``easy bot``).
"""

from __future__ import annotations

import unicodedata
from typing import Final

from domain.errors import InvalidNameError

MAX_NAME_LENGTH: Final = 64
"""A seat name is 1 to 64 characters once trimmed."""

_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format (bidirectional overrides, zero-width), surrogate, private-use, unassigned,
and line or paragraph separators: characters that do not show as themselves."""

BOT_WORD: Final = "bot"
"""The last word of every bot seat's name."""


def bot_name(kind: str) -> str:
    """The name a bot seat of ``kind`` sits under (``easy bot``, ``random bot``)."""
    return f"{kind} {BOT_WORD}"


def _poses_as_bot(name: str) -> bool:
    """True when the name reads as a bot's: its last word is "bot", in any case or width."""
    words = unicodedata.normalize("NFKC", name).casefold().split()
    return bool(words) and words[-1] == BOT_WORD


def seat_name(text: str) -> str:
    """The name to record for a seat: ``text`` trimmed, or InvalidNameError saying why not."""
    name = text.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise InvalidNameError(f"a seat name is 1 to {MAX_NAME_LENGTH} characters")
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise InvalidNameError(
                f"a seat name cannot hold control or formatting characters (U+{ord(char):04X})"
            )
    if _poses_as_bot(name):
        raise InvalidNameError("a seat name cannot end in 'bot': bot seats are named that way")
    return name
