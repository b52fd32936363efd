"""Which credential a caller came in with, by an id, and whether it still holds.

A ticket, and a live feed, are only as good as the credential that opened them: a support
agent's token (revoked with ``basra support revoke``), a player's token (replaced by
``POST /players/me/token``), the seat's own token or the environment's support token (neither
is ever revoked while the server runs). The id names the credential without being it:
``agent:NAME``, ``player:PLAYER_ID:HASH16`` (the first 16 hex digits of the token's SHA-256,
which the player's stream keeps whole), ``seat:MATCH/TOKEN_ID``, ``support:env``. It is checked
against the store every time it matters (a ticket redeemed, an open feed every few seconds), so
a revocation made by any process, or by the CLI, counts everywhere.
"""

from __future__ import annotations

import hmac
from typing import Final

from app.runtime.runtime import ApiRuntime

AGENT: Final = "agent:"
PLAYER: Final = "player:"
HASH_PREFIX: Final = 16
"""Hex digits of a player token's SHA-256 kept in its id: names the token, is not the token."""

RECHECK_SECONDS: Final = 2.0
"""How often an open feed checks that its credential still holds (the bound on how long a
feed stays open after a revocation or a rotation)."""


def agent_credential(name: str) -> str:
    """The id of the named support agent's token."""
    return f"{AGENT}{name}"


def player_credential(player_id: str, token_hash: str) -> str:
    """The id of a player's token whose SHA-256 is ``token_hash``."""
    return f"{PLAYER}{player_id}:{token_hash[:HASH_PREFIX]}"


def revocable(credential: str | None) -> bool:
    """True for a credential that can be revoked or replaced while the server runs."""
    return credential is not None and credential.startswith((AGENT, PLAYER))


def still_holds(runtime: ApiRuntime, credential: str | None) -> bool:
    """Whether the credential ``credential`` is still good, as the store says now (blocking:
    call it through ``runtime.call``). Credentials that cannot be revoked always hold."""
    if credential is None or not revocable(credential):
        return True
    if credential.startswith(AGENT):
        agent = runtime.access.agent_named(credential.removeprefix(AGENT))
        return agent is not None and agent.active
    player_id, _, prefix = credential.removeprefix(PLAYER).rpartition(":")
    player = runtime.players.load(player_id)
    if player is None:
        return False
    # Any device still listed holds; a revoked device's tickets and feeds die with it.
    held = [hmac.compare_digest(d.token_hash[:HASH_PREFIX], prefix) for d in player.devices]
    return any(held)
