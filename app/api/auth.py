"""Who is asking: a seat of this match (its bearer token) or support (``BASRA_SUPPORT_TOKEN``).

Missing or unknown token: 401. A real token of another match, or of another seat than the one
the request names: 403.
"""

from __future__ import annotations

import hmac
from typing import Any, TypeAlias

import msgspec
from litestar import Request

from app.api.errors import (
    MissingTokenError,
    SeatOnlyError,
    UnknownTokenError,
    WrongMatchError,
    WrongSeatError,
)
from app.api.runtime import ApiRuntime
from app.api.tokens import TokenClaim, bearer, read_claim, same_hash
from app.errors import MatchNotFoundError
from domain.redaction import SUPPORT

AnyRequest: TypeAlias = Request[Any, Any, Any]
"""A Litestar request, whatever its user, auth and state types."""


class Principal(msgspec.Struct, frozen=True):
    """An authenticated caller: a seat of ``match_id`` with its token id, or support."""

    match_id: str
    seat: int
    token_id: str | None = None

    @property
    def is_support(self) -> bool:
        """True for support staff."""
        return self.seat == SUPPORT

    @property
    def caused_by(self) -> str:
        """The ``caused_by`` of what this caller appends (``seat:N/token:ID``)."""
        if self.is_support:
            return "support"
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
        return Principal(match_id, SUPPORT)
    claim = read_claim(token)
    if claim is None or not await _proves(runtime, claim):
        raise UnknownTokenError("the token is not valid")
    if claim.match_id != match_id:
        if not await runtime.call(runtime.service.store.last_seq, match_id):
            raise MatchNotFoundError(match_id)  # a real token says nothing about other matches
        raise WrongMatchError("the token belongs to another match")
    if seat is not None and seat != claim.seat:
        raise WrongSeatError(f"the token is for seat {claim.seat}, not seat {seat}")
    return Principal(match_id, claim.seat, claim.token_id)


def query_authorization(runtime: ApiRuntime, access_token: str | None) -> str | None:
    """``?access_token=`` as an Authorization value; the support token is never taken there.

    A query string lands in access logs, proxies and browser history: a seat's token (one
    match, one seat) is accepted there for EventSource, support's token (every match) is not.
    """
    if not access_token:
        return None
    support = runtime.settings.support_token
    if support is not None and hmac.compare_digest(access_token.encode(), support.encode()):
        raise UnknownTokenError("the token is not valid")
    return f"Bearer {access_token}"


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
