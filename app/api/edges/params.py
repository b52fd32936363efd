"""Handler parameter types shared by the controllers (path, query, header, dependency)."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, Parameter, QueryParameter

from app.runtime.runtime import ApiRuntime
from domain.errors import InvalidSeatError

Runtime: TypeAlias = NamedDependency[ApiRuntime]
"""The process's ApiRuntime, injected by name."""

MatchIdPath: TypeAlias = FromPath[str]
"""``{match_id}`` in the path."""

_SEAT_SCHEMA = {"type": "integer", "minimum": 0, "maximum": 3}
"""How a seat is written in a path or query: ASCII decimal digits, 0 to 3 (R2)."""

SeatPath: TypeAlias = Annotated[
    str,
    Parameter(
        description="the seat, 0-based (ASCII digits)", schema_extra=_SEAT_SCHEMA, required=True
    ),
]
"""``{seat}`` in the path, as written: ``seat_number`` reads it."""

SeatQuery: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="the seat the client means (ASCII digits); 403 if the token is another's",
        schema_extra=_SEAT_SCHEMA | {"one_of": None},  # optional, but never null
    ),
]
"""``?seat=N``: a client may name its seat; a token of another seat is then refused."""

MAX_SEAT_DIGITS = 3
"""More digits than this cannot name a seat of any table."""


def seat_number(text: str) -> int:
    """A seat written in a path or query: ASCII decimal digits only (``1e3`` and ``٣`` are not).

    Python's ``int`` would read both; a seat number has one spelling. The rules then check that
    the table has that seat.
    """
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_SEAT_DIGITS:
        raise InvalidSeatError(f"seat {text!r} is not a seat number: write it in ASCII digits")
    return int(text)


def optional_seat(text: str | None) -> int | None:
    """``?seat=`` read by ``seat_number``, or None when it is absent."""
    return None if text is None else seat_number(text)


IdempotencyKey: TypeAlias = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        max_length=200,
        description="retrying with the same key returns the first result and appends nothing",
    ),
]
"""The ``Idempotency-Key`` header of a play."""

LastEventId: TypeAlias = Annotated[
    str | None,
    HeaderParameter(name="Last-Event-ID", description="resume after this seq (EventSource)"),
]
"""The SSE resume header."""

AfterQuery: TypeAlias = Annotated[
    str | None,
    QueryParameter(
        description="resume after this seq (as Last-Event-ID; ASCII digits)",
        schema_extra={"type": "integer", "minimum": 0, "one_of": None},
    ),
]
"""``?after=SEQ``: resume a feed without the header."""

AccessTokenQuery: TypeAlias = Annotated[
    str | None,
    QueryParameter(description="a seat's token for clients without headers (never support's)"),
]
"""``?access_token=``: for EventSource, which cannot send an Authorization header."""
