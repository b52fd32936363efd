"""Handler parameter types shared by the controllers (path, query, header, dependency)."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, QueryParameter

from app.api.runtime import ApiRuntime

Runtime: TypeAlias = NamedDependency[ApiRuntime]
"""The process's ApiRuntime, injected by name."""

MatchIdPath: TypeAlias = FromPath[str]
"""``{match_id}`` in the path."""

SeatPath: TypeAlias = FromPath[int]
"""``{seat}`` in the path."""

SeatQuery: TypeAlias = Annotated[
    int | None,
    QueryParameter(description="the seat the client means; 403 if the token is another's"),
]
"""``?seat=N``: a client may name its seat; a token of another seat is then refused."""

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
    int | None, QueryParameter(ge=0, description="resume after this seq (as Last-Event-ID)")
]
"""``?after=SEQ``: resume a feed without the header."""

AccessTokenQuery: TypeAlias = Annotated[
    str | None,
    QueryParameter(description="the bearer token, for clients that cannot send headers"),
]
"""``?access_token=``: for EventSource, which cannot send an Authorization header."""
