"""Who is asking: a seat of this match (its bearer token), or support: ``BASRA_SUPPORT_TOKEN``
(the agent ``env``) or a named agent's ``agent_`` token (docs/api.md, "Support agents").

Missing or unknown token: 401. A real token of another match, or of another seat than the one
the request names: 403. An agent is read from the store on every request, so a revoked agent is
refused at once (401 ``agent_revoked``). A ticket (``?ticket=``) speaks for whoever asked for it.
"""

from __future__ import annotations

import hmac
from typing import Any, TypeAlias

import msgspec
from litestar import Request

from app.api.edges.credentials import agent_credential, player_credential, still_holds
from app.api.edges.errors import (
    MissingTokenError,
    SeatOnlyError,
    TokenInQueryError,
    UnknownTokenError,
    WrongMatchError,
    WrongSeatError,
)
from app.api.edges.tokens import (
    AGENT_PREFIX,
    TICKET_PREFIX,
    PlayerClaim,
    TokenClaim,
    bearer,
    hash_token,
    is_agent_token,
    new_request_id,
    normalised_token,
    read_claim,
    read_player_claim,
    same_hash,
)
from app.errors import AgentRevokedError, MatchNotFoundError, UnknownTicketError
from app.runtime.runtime import ApiRuntime
from domain.access import ENV_AGENT
from domain.players import PlayerDevice, PlayerState
from domain.redaction import SUPPORT

QUERY_REFUSED_PREFIXES = ("player_", AGENT_PREFIX)
"""Tokens never taken from a query string, by their prefix: a player's and a support agent's."""

AnyRequest: TypeAlias = Request[Any, Any, Any]
"""A Litestar request, whatever its user, auth and state types."""


class Principal(msgspec.Struct, frozen=True):
    """An authenticated caller: a seat of ``match_id`` with its token id, or support."""

    match_id: str
    seat: int
    token_id: str | None = None
    agent: str | None = None
    """The support agent's name (``env`` for ``BASRA_SUPPORT_TOKEN``); None for a seat."""
    player_id: str | None = None
    """The player who came in with their player token on the seat they hold."""
    credential: str | None = None
    """The id of the credential the caller came in with (app.api.edges.credentials), never the
    token: what a ticket it asks for, or a feed it opens, is checked against again."""

    @property
    def is_support(self) -> bool:
        """True for support staff."""
        return self.seat == SUPPORT

    @property
    def caused_by(self) -> str:
        """The ``caused_by`` of what this caller appends (``seat:N/token:ID``, ``support:NAME``)."""
        if self.is_support:
            return f"support:{self.agent or ENV_AGENT}"
        if self.player_id is not None:
            return f"seat:{self.seat}/player:{self.player_id}"
        return f"seat:{self.seat}/token:{self.token_id}"


async def authenticate(
    runtime: ApiRuntime,
    authorization: str | None,
    match_id: str,
    *,
    seat: int | None = None,
    allow_support: bool = True,
) -> Principal:
    """Check the bearer token for a route of ``match_id`` (and of ``seat`` if one is named)."""
    token = bearer(authorization)
    if token is None:
        raise MissingTokenError("this route needs an 'Authorization: Bearer TOKEN' header")
    support = runtime.settings.support_token
    if support is not None and hmac.compare_digest(token.encode(), support.encode()):
        if not allow_support:
            raise SeatOnlyError("only a seat of the match may do this")
        return Principal(match_id, SUPPORT, agent=ENV_AGENT, credential=f"support:{ENV_AGENT}")
    if is_agent_token(token):
        return await _agent(runtime, token, match_id, allow_support)
    player_claim = read_player_claim(token)
    if player_claim is not None:
        player, device = await _player_device(runtime, player_claim)
        return await _player_seat(runtime, player, device, match_id, seat)
    claim = read_claim(token)
    if claim is None or not await _proves(runtime, claim):
        raise UnknownTokenError("the token is not valid")
    if claim.match_id != match_id:
        if not await runtime.call(runtime.service.store.last_seq, match_id):
            raise MatchNotFoundError(match_id)  # a real token says nothing about other matches
        raise WrongMatchError("the token belongs to another match")
    if seat is not None and seat != claim.seat:
        raise WrongSeatError(f"the token is for seat {claim.seat}, not seat {seat}")
    credential = f"seat:{match_id}/{claim.token_id}"
    return Principal(match_id, claim.seat, claim.token_id, credential=credential)


def query_authorization(runtime: ApiRuntime, access_token: str | None) -> str | None:
    """``?access_token=`` as an Authorization value; player and support tokens never are.

    A query string lands in access logs, proxies and browser history: a seat's token (one
    match, one seat) is still accepted there for old EventSource clients; a player's token (every
    seat the player holds) and support's (every match) are not: a browser asks for a ticket.
    """
    token = normalised_token(access_token)
    if token is None:
        return None
    # The kind is decided on the token as it will be used (normalised), never on its spelling.
    support = runtime.settings.support_token
    is_support = support is not None and hmac.compare_digest(token.encode(), support.encode())
    if is_support or token.startswith(QUERY_REFUSED_PREFIXES):
        raise TokenInQueryError(
            "player and support tokens are never accepted in a query string: send the"
            " Authorization header, or open the feed with ?ticket= (POST /matches/{id}/tickets)"
        )
    return f"Bearer {token}"


async def _agent(runtime: ApiRuntime, token: str, match_id: str, allow: bool) -> Principal:
    """A named support agent, read from the store: a revoked agent fails at once."""
    agent = await runtime.call(runtime.access.agent_of, hash_token(token))
    if agent is None:
        raise UnknownTokenError("the token is not valid")
    if not agent.active:
        raise AgentRevokedError("this support agent was revoked")
    if not allow:
        raise SeatOnlyError("only a seat of the match may do this")
    return Principal(match_id, SUPPORT, agent=agent.name, credential=agent_credential(agent.name))


async def redeem_ticket(
    runtime: ApiRuntime, ticket: str, match_id: str, seat: int | None
) -> Principal:
    """The caller a ``?ticket=`` speaks for, spending the ticket (one feed, within 60 s)."""
    ticket = normalised_token(ticket) or ""
    if not ticket.startswith(TICKET_PREFIX) or len(ticket) > 128:
        raise UnknownTicketError("the ticket is not valid")
    grant = await runtime.call(
        runtime.access.redeem_ticket, hash_token(ticket), match_id, new_request_id()
    )
    if seat is not None and grant.agent is None and seat != grant.seat:
        raise WrongSeatError(f"the ticket is for seat {grant.seat}, not seat {seat}")
    # A ticket is only as good as the credential that asked for it, as the store says now.
    credential = grant.credential
    if not await runtime.call(still_holds, runtime, credential):
        if grant.agent is not None:
            raise AgentRevokedError("the support agent that asked for this ticket was revoked")
        raise UnknownTokenError("the token that asked for this ticket was replaced")
    if grant.agent is not None:
        return Principal(match_id, grant.seat, agent=grant.agent, credential=credential)
    # The feed speaks for whoever asked: the seat's token, or the player on the seat they hold.
    _, _, who = grant.caused_by.partition("/")
    kind, _, ident = who.partition(":")
    if kind == "player":
        return Principal(match_id, grant.seat, player_id=ident, credential=credential)
    token_id = ident if kind == "token" else None
    return Principal(match_id, grant.seat, token_id, credential=credential)


async def record_support_access(runtime: ApiRuntime, who: Principal, what: str) -> None:
    """Record in the store that support is about to be shown ``what`` of the match.

    Called once the data is ready and before it is returned: when the record cannot be
    stored, the error is the answer and the data is not sent (docs/api.md, "Support agents").
    """
    if who.is_support:
        agent = who.agent or ENV_AGENT
        await runtime.call(
            runtime.access.record_access, agent, who.match_id, what, new_request_id()
        )


async def _proves(runtime: ApiRuntime, claim: TokenClaim) -> bool:
    """True when the claimed seat's stored token hash is the presented token's hash."""
    cached = runtime.facts.cached(claim.match_id)
    if cached is not None and claim.seat in cached.token_hashes:
        return same_hash(cached.token_hashes[claim.seat], claim.token_hash)  # seats never change
    try:
        facts = await runtime.offload(runtime.facts.get, claim.match_id)
        if claim.seat not in facts.token_hashes:
            # The seat may have been taken through another process since these facts were read.
            facts = await runtime.call(runtime.facts.get, claim.match_id, known_seq=facts.upto + 1)
    except MatchNotFoundError:
        return False
    return same_hash(facts.token_hashes.get(claim.seat), claim.token_hash)


async def authenticate_player(runtime: ApiRuntime, authorization: str | None) -> PlayerState:
    """The player whose token is in the ``Authorization`` header, as their stream says now."""
    player, _ = await authenticate_device(runtime, authorization)
    return player


async def authenticate_device(
    runtime: ApiRuntime, authorization: str | None
) -> tuple[PlayerState, PlayerDevice]:
    """The player and the device whose token is in the ``Authorization`` header."""
    token = bearer(authorization)
    if token is None:
        raise MissingTokenError("this route needs an 'Authorization: Bearer PLAYER_TOKEN' header")
    claim = read_player_claim(token)
    if claim is None:
        raise UnknownTokenError("this route needs a player token")
    return await _player_device(runtime, claim)


async def _player_device(
    runtime: ApiRuntime, claim: PlayerClaim
) -> tuple[PlayerState, PlayerDevice]:
    """The claimed player and the device of the presented token, read from their stream; the
    device's use is noted for its "last used" (at most once an hour)."""
    player = await runtime.call(runtime.players.load, claim.player_id)
    device = player.device_with(claim.token_hash) if player is not None else None
    if player is None or device is None:
        raise UnknownTokenError("the token is not valid")
    await runtime.call(runtime.links.seen, player.player_id, device.device_id)
    return player, device


async def _player_seat(
    runtime: ApiRuntime, player: PlayerState, device: PlayerDevice, match_id: str, seat: int | None
) -> Principal:
    """The seat of ``match_id`` that ``player`` holds (403 when none, or another than ``seat``)."""
    cached = runtime.facts.cached(match_id)
    held = cached.player_seats.get(player.player_id) if cached is not None else None
    if held is None:
        facts = await runtime.call(runtime.facts.refresh, match_id)
        if facts.upto == 0:
            raise MatchNotFoundError(match_id)
        held = facts.player_seats.get(player.player_id)
    if held is None:
        raise WrongMatchError("the player holds no seat of this match")
    if seat is not None and seat != held:
        raise WrongSeatError(f"the player holds seat {held}, not seat {seat}")
    credential = player_credential(player.player_id, device.token_hash)
    return Principal(match_id, held, None, player_id=player.player_id, credential=credential)
