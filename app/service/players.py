"""The player service: registering, token rotation, names, and looking players up by id.

Every command reads the player's stream from the store, decides, and appends at the version it
read, so two processes racing on one player cannot both win (ConflictError for the loser).
Nothing is cached: a token check reads the stream, so a rotation counts everywhere at once.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from app.errors import ConflictError
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
    link_device,
    register,
    rename,
    revoke_device,
)
from domain.times import utc_text_ms

Clock = Callable[[], datetime]
"""Tells the time (UTC); tests give their own."""


def utc_now() -> datetime:
    """The wall clock in UTC."""
    return datetime.now(UTC)


def iso(when: datetime) -> str:
    """``when`` as the UTC text every stored time is written in (milliseconds)."""
    return utc_text_ms(int(when.timestamp() * 1_000_000))


APPEND_TRIES = 5
"""How many times an append made for someone else (a linked device) is read and tried again."""


def new_player_id() -> str:
    """A fresh random player id (``p-`` and 32 hex digits)."""
    return f"{PLAYER_ID_PREFIX}{secrets.token_hex(16)}"


class PlayerService:
    """Players' commands and reads over their streams in the shared store."""

    def __init__(self, store: MatchStore, clock: Clock = utc_now) -> None:
        self.store = store
        self.streams = PlayerStore(store)
        self.clock = clock

    def load(self, player_id: str) -> PlayerState | None:
        """The player as stored now, or None when there is no such player."""
        if not is_player_id(player_id):
            return None
        return fold_player(list(self.streams.read(player_id)))

    def register(self, name: str, token_hash: str, player_id: str | None = None) -> PlayerState:
        """A new player under ``name`` whose token hashes to ``token_hash``."""
        at = iso(self.clock())
        event = register(player_id or new_player_id(), name, token_hash, at)
        self.streams.append(event.player_id, 0, [event])
        state = fold_player([event])
        assert state is not None
        return state

    def rotate(
        self, player: PlayerState, token_hash: str, device_id: str | None = None
    ) -> PlayerState:
        """Replace the token of the caller's device and revoke every other device: every old
        token stops working at once."""
        rotated = PlayerTokenRotated(token_hash, device_id, iso(self.clock()))
        return self._append(player, rotated)

    def link(self, player_id: str, token_hash: str) -> tuple[PlayerState, str]:
        """Give another device of the player a token of its own (its SHA-256 kept); the player
        and the new device's id. Read again and retried when another process appended first."""
        for attempt in range(APPEND_TRIES):
            player = self.load(player_id)
            if player is None:
                raise ValueError(f"no player {player_id!r}")
            event = link_device(player, token_hash, iso(self.clock()))
            try:
                return self._append(player, event), event.device_id
            except ConflictError:
                if attempt == APPEND_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def revoke(self, player: PlayerState, device_id: str, by: str) -> PlayerState:
        """Revoke the device ``device_id`` from the device ``by``: its token stops working at
        once, and so do the tickets it asked for."""
        return self._append(player, revoke_device(player, device_id, by, iso(self.clock())))

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
