"""Bearer tokens: 256 random bits each, stored only as their SHA-256 (R23; docs/api.md).

Every token says what it is by a prefix; the rest is opaque to clients.

- A seat token reads ``seat_MATCH_ID.SEAT.TOKEN_ID.SECRET`` (tokens issued before the prefix,
  ``MATCH_ID.SEAT.TOKEN_ID.SECRET``, keep working). The match and seat in it only say where to
  look; the token is proved by its hash, which the seat's ``seat_taken`` event holds, so any API
  process against the shared store can check it. ``TOKEN_ID`` is the short public name support
  sees.
- A player token reads ``player_PLAYER_ID.SECRET``; its hash is in the player's own stream, and a
  rotation replaces it there.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import msgspec

TOKEN_BYTES = 32
"""Random bytes in a token's secret part (256 bits, well past the 128 asked for)."""

SEAT_PREFIX = "seat_"
"""How a seat token begins."""

PLAYER_PREFIX = "player_"
"""How a player token begins."""

MAX_TOKEN_LENGTH = 512
"""Longer strings are not one of our tokens and are not hashed."""


class IssuedToken(msgspec.Struct, frozen=True):
    """A new seat token: the token for the client, its public id, and the hash for the stream."""

    token: str
    token_id: str
    token_hash: str


class TokenClaim(msgspec.Struct, frozen=True):
    """What a presented token says about itself, before it is checked against a stored hash."""

    match_id: str
    seat: int
    token_id: str
    token_hash: str


def hash_token(token: str) -> str:
    """The SHA-256 hex of a token: the only form of it the server keeps."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_token(match_id: str, seat: int) -> IssuedToken:
    """A fresh token for ``seat`` of ``match_id``."""
    token_id = secrets.token_hex(4)
    token = f"{SEAT_PREFIX}{match_id}.{seat}.{token_id}.{secrets.token_urlsafe(TOKEN_BYTES)}"
    return IssuedToken(token, token_id, hash_token(token))


def read_claim(token: str) -> TokenClaim | None:
    """The match, seat and id a seat token names, or None when it is not shaped like one."""
    if len(token) > MAX_TOKEN_LENGTH or token.startswith(PLAYER_PREFIX):
        return None
    body = token.removeprefix(SEAT_PREFIX)  # no prefix: a token issued before prefixes
    parts = body.rsplit(".", 3)
    if len(parts) != 4:
        return None
    match_id, seat_text, token_id, secret = parts
    if not match_id or not seat_text.isdigit() or len(seat_text) > 1 or not token_id or not secret:
        return None
    return TokenClaim(match_id, int(seat_text), token_id, hash_token(token))


class IssuedPlayerToken(msgspec.Struct, frozen=True):
    """A new player token: the token for the client and the hash for the player's stream."""

    token: str
    token_hash: str


class PlayerClaim(msgspec.Struct, frozen=True):
    """The player a presented player token names, and the token's hash to check."""

    player_id: str
    token_hash: str


def issue_player_token(player_id: str) -> IssuedPlayerToken:
    """A fresh token for the player ``player_id``."""
    token = f"{PLAYER_PREFIX}{player_id}.{secrets.token_urlsafe(TOKEN_BYTES)}"
    return IssuedPlayerToken(token, hash_token(token))


def read_player_claim(token: str) -> PlayerClaim | None:
    """The player a token names, or None when it is not shaped like a player token."""
    if len(token) > MAX_TOKEN_LENGTH or not token.startswith(PLAYER_PREFIX):
        return None
    player_id, dot, secret = token.removeprefix(PLAYER_PREFIX).partition(".")
    if not dot or not player_id or not secret or "." in secret:
        return None
    return PlayerClaim(player_id, hash_token(token))


def is_player_token(token: str) -> bool:
    """True when ``token`` is shaped like a player token (whether or not it is valid)."""
    return token.startswith(PLAYER_PREFIX)


def same_hash(stored: str | None, presented: str) -> bool:
    """Constant-time comparison of a stored hash with a presented token's hash."""
    return stored is not None and hmac.compare_digest(stored, presented)


def normalised_token(raw: str | None) -> str | None:
    """A presented credential in the one form every check and every use sees: decoded already
    (headers and query values arrive decoded), trimmed of the white space a query's ``+``,
    ``%20`` or ``%09`` or a header's padding puts around it; None when nothing is left.

    A token's kind (seat, player, agent, ticket, support) is decided on this form only, once,
    before any use: a check on the raw text and a use of the trimmed text must never disagree.
    """
    if raw is None:
        return None
    token = raw.strip()
    return token or None


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, normalised, or None."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return normalised_token(value)


AGENT_PREFIX = "agent_"
"""The prefix of a named support agent's token (``basra support add``)."""

TICKET_PREFIX = "ticket_"
"""The prefix of a feed ticket (``POST /matches/{id}/tickets``)."""


def issue_prefixed(prefix: str) -> tuple[str, str]:
    """A fresh token ``PREFIX`` + 256 random bits, and its SHA-256 (the only form kept)."""
    token = prefix + secrets.token_urlsafe(TOKEN_BYTES)
    return token, hash_token(token)


def is_agent_token(token: str) -> bool:
    """True when ``token`` is shaped like a support agent's."""
    return token.startswith(AGENT_PREFIX) and len(token) <= 128


def new_request_id() -> str:
    """A fresh request id for a request without an ``Idempotency-Key``."""
    return f"req-{secrets.token_hex(8)}"
