"""Seat tokens: random bearer tokens of 256 bits, stored only as their SHA-256 (R23).

A token reads ``MATCH_ID.SEAT.TOKEN_ID.SECRET``. The match and seat in it only say where to look;
the token is proved by its hash, which the seat's ``seat_taken`` event holds, so any API process
against the shared store can check it. ``TOKEN_ID`` is the short public name support sees.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import msgspec

TOKEN_BYTES = 32
"""Random bytes in a token's secret part (256 bits, well past the 128 asked for)."""


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
    token = f"{match_id}.{seat}.{token_id}.{secrets.token_urlsafe(TOKEN_BYTES)}"
    return IssuedToken(token, token_id, hash_token(token))


def read_claim(token: str) -> TokenClaim | None:
    """The match, seat and id a token names, or None when it is not shaped like one of ours."""
    if len(token) > 512:
        return None
    parts = token.rsplit(".", 3)
    if len(parts) != 4:
        return None
    match_id, seat_text, token_id, secret = parts
    if not match_id or not seat_text.isdigit() or len(seat_text) > 1 or not token_id or not secret:
        return None
    return TokenClaim(match_id, int(seat_text), token_id, hash_token(token))


def same_hash(stored: str | None, presented: str) -> bool:
    """Constant-time comparison of a stored hash with a presented token's hash."""
    return stored is not None and hmac.compare_digest(stored, presented)


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
