"""Seat names: what a person may sit under, as every other seat and replay will show it.

A name is shown to other people, so it must read as what it is (docs/rules.md, "seat names"):
no control characters (a line break or escape sequence in a log or terminal), nothing that shows
as nothing (Unicode's default-ignorable code points, such as the bidirectional overrides that
make text display in another order than it is stored, variation selectors and the Hangul
fillers) and no blank other than the space, and no name that reads as one of the server's bots
(bot seats are named ``"<kind> bot"``, e.g. ``easy bot``) or as ``deleted player``, which an
erased player's seat shows, once normalised, case-folded and with look-alike letters folded.

A name recorded under an earlier rule stays what it was: re-judging a recorded seat holds its
name to ``recorded_seat_name``, the rule it was recorded under.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from domain.errors import InvalidNameError
from domain.name_chars import BLANK_SYMBOLS, CAPITAL_LOOKALIKES, DEFAULT_IGNORABLE, LOOKALIKES

MAX_NAME_LENGTH: Final = 64
"""A seat name is 1 to 64 characters once trimmed."""

_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format (bidirectional overrides, zero-width), surrogate, private-use, unassigned,
and line or paragraph separators: characters that do not show as themselves."""

_MARKS: Final = frozenset({"Mn", "Me"})
"""Nonspacing and enclosing marks: what sits on a letter without changing how it reads."""

_WORD: Final = re.compile(r"[^\W_]+")
"""A word of a folded name: letters and digits; anything else separates words."""

BOT_WORD: Final = "bot"
"""The last word of every bot seat's name."""

DELETED_NAME: Final = "deleted player"
"""What every view and export shows for a player whose name was erased; no one sits under it."""


def bot_name(kind: str) -> str:
    """The name a bot seat of ``kind`` sits under (``easy bot``, ``random bot``)."""
    return f"{kind} {BOT_WORD}"


def folded(name: str) -> str:
    """How ``name`` reads: NFKC, case-folded, marks dropped, look-alike letters made Latin.

    Two names that fold alike read alike: ``ʙᴏᴛ``, ``ＢＯＴ``, ``𝐛𝐨𝐭``, ``ВОТ`` (Cyrillic)
    and ``bót`` all fold to ``bot``.
    """
    text = unicodedata.normalize("NFKC", name)
    text = "".join(CAPITAL_LOOKALIKES.get(char, char) for char in text)
    text = unicodedata.normalize("NFKC", text.casefold())
    text = "".join(
        char
        for char in unicodedata.normalize("NFD", text)
        if unicodedata.category(char) not in _MARKS
    )
    return "".join(LOOKALIKES.get(char, char) for char in text)


def reads_as_bot(name: str) -> bool:
    """True when ``name`` reads as a bot's: its last word, folded, is ``bot``."""
    words = _WORD.findall(folded(name))
    return bool(words) and words[-1] == BOT_WORD


def reads_as_erased(name: str) -> bool:
    """True when ``name`` reads as ``deleted player``, the erased player's placeholder."""
    return _WORD.findall(folded(name)) == DELETED_NAME.split()


def _trimmed(text: str) -> str:
    """``text`` trimmed, or InvalidNameError when that leaves too little or too much."""
    name = text.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise InvalidNameError(f"a seat name is 1 to {MAX_NAME_LENGTH} characters")
    return name


def _refuse_unshown(name: str) -> None:
    """InvalidNameError for a character that does not show as itself (every rule so far)."""
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise InvalidNameError(
                f"a seat name cannot hold control or formatting characters (U+{ord(char):04X})"
            )


def seat_name(text: str) -> str:
    """The name to record for a seat taken now: ``text`` trimmed, or InvalidNameError saying
    why not."""
    name = _trimmed(text)
    _refuse_unshown(name)
    for char in name:
        if char in DEFAULT_IGNORABLE:
            raise InvalidNameError(
                f"a seat name cannot hold characters that show as nothing (U+{ord(char):04X})"
            )
        if char != " " and (char.isspace() or char in BLANK_SYMBOLS):
            raise InvalidNameError(
                f"a seat name cannot hold blanks other than the space (U+{ord(char):04X})"
            )
    if reads_as_bot(name):
        raise InvalidNameError(
            "a seat name cannot read as a bot's: its last word reads 'bot', as bot seats' do"
        )
    if reads_as_erased(name):
        raise InvalidNameError(
            f"a seat name cannot read as '{DELETED_NAME}', which an erased player's seat shows"
        )
    return name


def recorded_seat_name(text: str) -> str:
    """A name already recorded, judged by the rule it was recorded under: ``text`` trimmed, or
    InvalidNameError when even that rule refused it.

    That rule refused control and formatting characters and a last word ``bot`` as written, in
    any case or width; it let the other default-ignorable characters, blanks and look-alike
    letters through, so a seat recorded under it still re-judges as it was judged then.
    """
    name = _trimmed(text)
    _refuse_unshown(name)
    words = unicodedata.normalize("NFKC", name).casefold().split()
    if words and words[-1] == BOT_WORD:
        raise InvalidNameError("a seat name cannot end in 'bot': bot seats are named that way")
    return name
