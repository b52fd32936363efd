"""``GET /matches/{id}/events``: Server-Sent Events of what the seat (or support) may see."""

from __future__ import annotations

from litestar import Controller, get
from litestar.response import ServerSentEvent

from app.api.auth import AnyRequest, authenticate
from app.api.docs import SEAT_SECURITY, errors
from app.api.errors import InvalidHeaderError
from app.api.live import open_feed
from app.api.params import (
    AccessTokenQuery,
    AfterQuery,
    LastEventId,
    MatchIdPath,
    Runtime,
    SeatQuery,
)


class EventsController(Controller):
    """The live feed of a match for one viewer."""

    path = "/matches/{match_id:str}/events"
    tags = ("seat",)
    security = SEAT_SECURITY

    @get("/", responses=errors(400, 401, 403, 404, 422))
    async def events(
        self,
        request: AnyRequest,
        runtime: Runtime,
        match_id: MatchIdPath,
        last_event_id: LastEventId = None,
        after: AfterQuery = None,
        access_token: AccessTokenQuery = None,
        seat: SeatQuery = None,
    ) -> ServerSentEvent:
        """``text/event-stream``: one message per event, ``id:`` = seq, ``data:`` = replay line.

        The stream ends after ``match_ended``. Reconnect with ``Last-Event-ID`` to resume.
        """
        authorization = request.headers.get("authorization")
        if authorization is None and access_token:
            authorization = f"Bearer {access_token}"
        who = await authenticate(runtime, authorization, match_id, seat=seat)
        resume = _resume_point(last_event_id, after)
        stream = await open_feed(runtime, match_id, who.seat, resume)
        return ServerSentEvent(stream, headers={"Cache-Control": "no-cache"})


def _resume_point(last_event_id: str | None, after: int | None) -> int:
    """The seq to resume after: ``Last-Event-ID`` wins over ``?after=``; 0 from the start."""
    if last_event_id is not None and last_event_id.strip():
        text = last_event_id.strip()
        if not text.isdigit() or len(text) > 12:
            raise InvalidHeaderError(f"Last-Event-ID must be a seq (a whole number), not {text!r}")
        return int(text)
    return after or 0
