"""``POST /matches/{id}/tickets``: a one-feed ticket, so a browser's EventSource needs no token.

The ticket is good for one ``GET /matches/{id}/events?ticket=…`` of this match within 60 s, as
whoever asked for it (a seat, a player's seat, or support); only its SHA-256 is stored.
"""

from __future__ import annotations

import msgspec
from litestar import Controller, post

from app.api.edges.callers import Caller
from app.api.edges.openapi import SEAT_SECURITY, errors
from app.api.edges.params import MatchIdPath, Runtime
from app.api.edges.tokens import TICKET_PREFIX, issue_prefixed
from app.errors import MatchNotFoundError


class TicketResponse(msgspec.Struct, frozen=True):
    """A ticket for one feed of the match within 60 s (``?ticket=``); shown once."""

    ticket: str


class TicketsController(Controller):
    """Tickets for the live feed of a match."""

    path = "/matches/{match_id:str}/tickets"
    tags = ("seat",)
    security = SEAT_SECURITY

    @post("/", status_code=201, responses=errors(401, 403, 404))
    async def issue(
        self, runtime: Runtime, match_id: MatchIdPath, caller: Caller
    ) -> TicketResponse:
        """A ticket for one ``GET /matches/{id}/events?ticket=…`` within 60 s, as the caller."""
        who = caller
        if not await runtime.call(runtime.service.store.last_seq, match_id):
            raise MatchNotFoundError(match_id)
        ticket, ticket_hash = issue_prefixed(TICKET_PREFIX)
        await runtime.call(
            runtime.access.issue_ticket,
            ticket_hash,
            match_id,
            who.seat,
            who.caused_by,
            who.agent,
            who.credential,
        )
        return TicketResponse(ticket)
