"""The player service: registering, token rotation, names, and looking players up by id.

Every command reads the player's stream from the store, decides, and appends at the version it
read, so two processes racing on one player cannot both win (ConflictError for the loser).
Nothing is cached: a token check reads the stream, so a rotation counts everywhere at once.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from app.store.match_store import MatchStore
from app.store.player_store import PlayerStore
from domain.players import (
    PLAYER_ID_PREFIX,
    PlayerEvent,
    PlayerState,
    PlayerTokenRotated,
    erase_name,
    evolve_player,
    fold_player,
    is_player_id,
    register,
    rename,
)


def new_player_id() -> str:
    """A fresh random player id (``p-`` and 32 hex digits)."""
    return f"{PLAYER_ID_PREFIX}{secrets.token_hex(16)}"


class PlayerService:
    """Players' commands and reads over their streams in the shared store."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self.streams = PlayerStore(store)

    def load(self, player_id: str) -> PlayerState | None:
        """The player as stored now, or None when there is no such player."""
        if not is_player_id(player_id):
            return None
        return fold_player(list(self.streams.read(player_id)))

    def register(self, name: str, token_hash: str, player_id: str | None = None) -> PlayerState:
        """A new player under ``name`` whose token hashes to ``token_hash``."""
        event = register(player_id or new_player_id(), name, token_hash)
        self.streams.append(event.player_id, 0, [event])
        state = fold_player([event])
        assert state is not None
        return state

    def rotate(self, player: PlayerState, token_hash: str) -> PlayerState:
        """Replace the player's token; the one the caller used stops working at once."""
        return self._append(player, PlayerTokenRotated(token_hash=token_hash))

    def rename(self, player: PlayerState, name: str) -> PlayerState:
        """Give the player a new display name."""
        return self._append(player, rename(player, name))

    def erase_name(self, player: PlayerState) -> PlayerState:
        """Erase the player's name: ``deleted player`` shows in its place from now on."""
        return self._append(player, erase_name(player))

    def shown_names(self, player_ids: Iterable[str | None]) -> dict[str, str]:
        """The name each registered player shows under now (``deleted player`` once erased),
        their streams read in one query."""
        ids = [pid for pid in player_ids if pid is not None and is_player_id(pid)]
        names: dict[str, str] = {}
        for player_id, events in self.streams.read_many(ids).items():
            player = fold_player(list(events))
            if player is not None:
                names[player_id] = player.shown_name
        return names

    def _append(self, player: PlayerState, event: PlayerEvent) -> PlayerState:
        """Append after the version ``player`` was read at; ConflictError if it moved on."""
        self.streams.append(player.player_id, player.version, [event])
        return evolve_player(player, event)
