"""``GET /matches/{id}/events``: Server-Sent Events of what the seat (or support) may see."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from litestar import Controller, get
from litestar.params import QueryParameter

from app.api.edges.auth import (
    AnyRequest,
    authenticate,
    query_authorization,
    record_support_access,
    redeem_ticket,
)
from app.api.edges.errors import InvalidHeaderError, InvalidValueError, SpectatorsRefusedError
from app.api.edges.openapi import OPTIONAL_SECURITY, errors
from app.api.edges.params import (
    AccessTokenQuery,
    AfterQuery,
    LastEventId,
    MatchIdPath,
    Runtime,
    SeatQuery,
    optional_seat,
)
from app.api.edges.tokens import normalised_token
from app.api.live.feed import open_feed
from app.api.live.stream import EVENT_STREAM, FeedResponse
from app.api.matches.ops import spectators_allowed
from app.api.support.presence import with_presence
from domain.redaction import EVERYONE

TicketQuery: TypeAlias = Annotated[
    str | None,
    QueryParameter(description="a ticket from POST /matches/{id}/tickets: one feed, within 60 s"),
]
"""``?ticket=``: how a browser's EventSource opens the feed without a token in the URL."""


class EventsController(Controller):
    """The live feed of a match for one viewer."""

    path = "/matches/{match_id:str}/events"
    tags = ("seat",)
    security = OPTIONAL_SECURITY

    @get("/", media_type=EVENT_STREAM, responses=errors(400, 401, 403, 404, 422, 503))
    async def events(
        self,
        request: AnyRequest,
        runtime: Runtime,
        match_id: MatchIdPath,
        last_event_id: LastEventId = None,
        after: AfterQuery = None,
        access_token: AccessTokenQuery = None,
        seat: SeatQuery = None,
        ticket: TicketQuery = None,
    ) -> FeedResponse:
        """``text/event-stream``: one message per event, ``id:`` = seq, ``data:`` = replay line
        with one more field, ``after``: the table after that event (whose turn, its deadline,
        the server's now, the banner).

        Without any token: the public feed (no hand, R23), unless the table was created with
        ``"spectators": false`` (403). A stream open when the match ends stays open for its
        ``rematch_created`` (then ends), at most ``BASRA_REMATCH_WAIT_SECONDS`` (120); one opened
        after the end sends what is stored and ends. Reconnect with
        ``Last-Event-ID`` to resume.
        """
        authorization = request.headers.get("authorization")
        resume = _resume_point(last_event_id, after)
        if authorization is None and ticket is None and normalised_token(access_token) is None:
            # A spectator: the public feed, if the table shows itself to anyone.
            if not await runtime.call(spectators_allowed, runtime.service, match_id):
                raise SpectatorsRefusedError(
                    "this table was created without spectators: only its seats and support see it"
                )
            stream = await open_feed(runtime, match_id, EVERYONE, resume)
            return FeedResponse(stream)
        if authorization is None and ticket is not None:
            who = await redeem_ticket(runtime, ticket, match_id, optional_seat(seat))
        else:
            if authorization is None:
                authorization = query_authorization(runtime, access_token)
            who = await authenticate(runtime, authorization, match_id, seat=optional_seat(seat))
        # Recorded before the feed opens: a feed sends as it goes, there is no "before" later.
        await record_support_access(runtime, who, "events")
        stream = await open_feed(runtime, match_id, who.seat, resume, who.credential)
        stream = with_presence(runtime, match_id, who.seat, who.caused_by, stream)
        return FeedResponse(stream)


MAX_SEQ_DIGITS = 12
"""More digits than this cannot be a seq of any stream."""


def _seq(text: str) -> int | None:
    """A seq written in ASCII digits, or None."""
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_SEQ_DIGITS:
        return None
    return int(text)


def _resume_point(last_event_id: str | None, after: str | None) -> int:
    """The seq to resume after: ``Last-Event-ID`` wins over ``?after=``; 0 from the start."""
    if last_event_id is not None and last_event_id.strip():
        text = last_event_id.strip()
        seq = _seq(text)
        if seq is None:
            raise InvalidHeaderError(f"Last-Event-ID must be a seq (a whole number), not {text!r}")
        return seq
    if after is None:
        return 0
    seq = _seq(after)
    if seq is None:
        raise InvalidValueError(f"?after= must be a seq (a whole number), not {after!r}")
    return seq
