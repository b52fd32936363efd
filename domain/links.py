"""Linking another device to a player, and when each device was last used (docs/api.md,
"Devices").

A signed-in device asks for a one-use code; another browser spends it for a token of its own.
These facts live in streams of their own beside the players' (never in the global log):

- ``code:HASH`` (the code's SHA-256): ``link_code_issued``, then at most one
  ``link_code_spent``: appended at seq 2, so of two processes racing only one can spend it;
- ``codes:HOUR``: which players were given a code in that hour (``link_code_offered``), the
  accounts a wrong code could have been aimed at;
- ``misses:PLAYER:HOUR``: one ``link_code_missed`` per wrong, spent or expired code counted
  against the player in that hour; past ``MAX_MISSES`` the player's codes are refused until
  the hour ends;
- ``seen:PLAYER:DEVICE``: one ``device_seen`` per hour the device was used in.
"""

from __future__ import annotations

from typing import Final, TypeAlias

import msgspec

CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTVWXYZ0123456789"
"""32 symbols a person can read aloud and type (no I, L, O or U): 5 bits each."""

CODE_LENGTH: Final = 8
"""Symbols of a linking code: 40 random bits."""

CODE_SECONDS: Final = 300
"""How long a linking code may be spent after it was given (5 minutes)."""

MAX_MISSES: Final = 10
"""Wrong, spent or expired codes counted against one player in one hour before linking to the
player is refused until the hour ends."""


class LinkEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=False):
    """Base of every fact of the linking streams."""


class LinkCodeIssued(LinkEvent, frozen=True, tag="link_code_issued"):
    """A code was given to the device ``by`` of ``player_id``, good until ``expires``."""

    player_id: str
    by: str
    at: str
    expires: str


class LinkCodeSpent(LinkEvent, frozen=True, tag="link_code_spent"):
    """The code was spent: another device got a token of its own."""

    at: str


class LinkCodeOffered(LinkEvent, frozen=True, tag="link_code_offered"):
    """``player_id`` holds a code that may be spent until ``expires``."""

    player_id: str
    expires: str


class LinkCodeMissed(LinkEvent, frozen=True, tag="link_code_missed"):
    """A wrong, spent or expired code was counted against the player."""

    at: str


class DeviceSeen(LinkEvent, frozen=True, tag="device_seen"):
    """The device was used in the hour ``hour`` (``YYYY-MM-DDTHH``, UTC)."""

    hour: str


AnyLinkEvent: TypeAlias = (
    LinkCodeIssued | LinkCodeSpent | LinkCodeOffered | LinkCodeMissed | DeviceSeen
)
"""Every fact of the linking streams."""

LINK_EVENT_TYPES: tuple[type[LinkEvent], ...] = (
    LinkCodeIssued,
    LinkCodeSpent,
    LinkCodeOffered,
    LinkCodeMissed,
    DeviceSeen,
)
"""Every linking fact class, for the store's topics."""

LINK_EVENT_DECODER: Final = msgspec.json.Decoder(AnyLinkEvent)
"""Decodes one JSON linking fact by its ``type`` tag."""


def normalised_code(text: str) -> str | None:
    """A code as typed, in the one form it was issued in (upper case, without spaces or
    dashes), or None when it cannot be one of ours."""
    code = "".join(c for c in text.upper() if c not in " -\t")
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def code_stream(code_hash: str) -> str:
    """The stream of the code whose SHA-256 is ``code_hash``."""
    return f"code:{code_hash}"


def offers_stream(hour: str) -> str:
    """The stream of the players given a code in ``hour``."""
    return f"codes:{hour}"


def misses_stream(player_id: str, hour: str) -> str:
    """The stream of wrong codes counted against ``player_id`` in ``hour``."""
    return f"misses:{player_id}:{hour}"


def seen_stream(player_id: str, device_id: str) -> str:
    """The stream of the hours the device was used in."""
    return f"seen:{player_id}:{device_id}"
