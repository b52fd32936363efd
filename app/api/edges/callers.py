"""Who is asking, resolved once per request by Litestar's dependency injection.

A route of a match names the caller it needs as a parameter, and the app provides it
(``CALLERS``, registered in app.api.app): the handler never reads the Authorization header
itself. Each provider runs ``authenticate`` (app.api.edges.auth) before the handler's body:

- ``seat_player``: the seat's own token (or its registered player's), never support, with the
  seat the client may name in ``?seat=`` (a play, a preview, leaving);
- ``viewer``: a seat or support, with ``?seat=`` (a seat's view; support's shows every hand);
- ``seated``: a seat's own token, never support, without ``?seat=`` (asking for a rematch);
- ``caller``: a seat or support, without ``?seat=`` (a live feed's ticket);
- ``optional_caller``: ``caller``, or None when the request has no Authorization header at all
  (routes open to anyone once a match has ended: the replay file, verification, analysis).

The live feed reads its credential itself: it comes as a ticket or a query parameter when a
browser's EventSource cannot send a header (docs/api.md, "Live events"). A play and a preview
call ``seat_player`` themselves, after reading their body: a malformed body is 400 whoever
sends it, before any token is looked at.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from litestar.di import NamedDependency, Provide

from app.api.edges.auth import AnyRequest, Principal, authenticate
from app.api.edges.params import MatchIdPath, Runtime, SeatQuery, optional_seat


async def seat_player(
    request: AnyRequest, runtime: Runtime, match_id: MatchIdPath, seat: SeatQuery = None
) -> Principal:
    """The seat playing: its own token only (support may not play for it)."""
    return await authenticate(
        runtime,
        request.headers.get("authorization"),
        match_id,
        seat=optional_seat(seat),
        allow_support=False,
    )


async def viewer(
    request: AnyRequest, runtime: Runtime, match_id: MatchIdPath, seat: SeatQuery = None
) -> Principal:
    """A seat of the match, or support."""
    authorization = request.headers.get("authorization")
    return await authenticate(runtime, authorization, match_id, seat=optional_seat(seat))


async def seated(request: AnyRequest, runtime: Runtime, match_id: MatchIdPath) -> Principal:
    """A seat of the match by its own token, never support."""
    authorization = request.headers.get("authorization")
    return await authenticate(runtime, authorization, match_id, allow_support=False)


async def caller(request: AnyRequest, runtime: Runtime, match_id: MatchIdPath) -> Principal:
    """A seat of the match, or support."""
    return await authenticate(runtime, request.headers.get("authorization"), match_id)


async def optional_caller(
    request: AnyRequest, runtime: Runtime, match_id: MatchIdPath
) -> Principal | None:
    """``caller``, or None for a request without an Authorization header."""
    authorization = request.headers.get("authorization")
    if authorization is None:
        return None
    return await authenticate(runtime, authorization, match_id)


Caller: TypeAlias = NamedDependency[Principal]
"""A handler's parameter named ``seat_player``, ``viewer``, ``seated`` or ``caller``."""

OptionalCaller: TypeAlias = NamedDependency[Principal | None]
"""A handler's parameter named ``optional_caller``."""

CALLERS: Final = {
    provider.__name__: Provide(provider)
    for provider in (seat_player, viewer, seated, caller, optional_caller)
}
"""The callers a handler may name as a parameter, by name (registered on the app)."""
