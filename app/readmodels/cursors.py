"""Page cursors: where the next page of a listing starts, opaque to clients (docs/api.md).

A cursor is a small typed tuple (a msgspec Struct encoded as a JSON array) written as base64url
without padding. Decoding accepts every cursor issued so far, the JSON of earlier builds with
spaces after its commas too, and refuses anything else with ``BadCursorError``.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Annotated, Final, Generic, Literal, TypeVar

import msgspec

from domain.errors import BadSyntaxError

MAX_LENGTH: Final = 200
"""The longest cursor read: longer ones were never handed out."""

Rank = Annotated[int, msgspec.Meta(ge=1)]
"""A position counted from 1."""


class BadCursorError(BadSyntaxError):
    """A lobby, ladder or history cursor that this server did not hand out, or that points at
    no listed table."""

    code = "invalid_cursor"


class LobbyCursor(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """After a lobby row: the (created, match id) of the page's last table."""

    created: str
    match_id: str


class HistoryCursor(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """After a history row: the log position where the page's last match ended."""

    position: Rank


class LadderCursor(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """After a ladder row: its (provisional 0/1, rating, player id) and its rank."""

    provisional: Literal[0, 1]
    rating: float
    player_id: str
    rank: Rank


C = TypeVar("C", LobbyCursor, HistoryCursor, LadderCursor)
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Page(Generic[R]):
    """One page of a listing: its rows, and the cursor of the next page (None: the last)."""

    rows: list[R]
    next: str | None = None
    before: int = 0
    """How many rows earlier pages held (a ladder's ranks go on from it)."""


_ENCODER: Final = msgspec.json.Encoder()


def encode_cursor(cursor: LobbyCursor | HistoryCursor | LadderCursor) -> str:
    """The opaque text of ``cursor``: its JSON array in base64url, without padding."""
    return base64.urlsafe_b64encode(_ENCODER.encode(cursor)).decode("ascii").rstrip("=")


def decode_cursor(text: str, kind: type[C]) -> C:
    """The cursor of ``kind`` that ``text`` encodes; BadCursorError unless it is one."""
    try:
        if len(text) > MAX_LENGTH:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(text.encode("ascii") + b"=" * (-len(text) % 4))
        return msgspec.json.decode(raw, type=kind)
    except (ValueError, UnicodeError, binascii.Error, msgspec.MsgspecError):
        raise BadCursorError("the cursor is not one this server handed out") from None
