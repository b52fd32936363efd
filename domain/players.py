"""Players: people with a lasting identity, each with a stream of their own (docs/api.md).

A player is known by an id (``p-…``), never by a name: the name is what others see and may
change or be erased. The bearer token is stored as its SHA-256 only, in the stream, so a
rotation replaces it for every API process the moment it is appended.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from typing import Final, TypeAlias

import msgspec

from domain.errors import (
    InvalidNameError,
    OwnDeviceError,
    PlayerNameErasedError,
    TooManyDevicesError,
    UnknownDeviceError,
)
from domain.events import SeatTaken
from domain.names import DELETED_NAME as DELETED_NAME
from domain.names import seat_name
from domain.recorded import RecordedEvent
from domain.state import MatchState

PLAYER_ID_PREFIX: Final = "p-"
"""How a player's id (and so the id of the player's stream) begins."""

MAX_PLAYER_NAME: Final = 32
"""A player's display name is 1 to 32 characters once trimmed."""


class PlayerEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=False):
    """Base of every event of a player's stream (kept apart from the match streams)."""


class PlayerRegistered(PlayerEvent, frozen=True, tag="player_registered"):
    """A player registered under ``name``; ``token_hash`` is the SHA-256 of their token."""

    player_id: str
    name: str
    token_hash: str
    at: str | None = None
    """When (UTC, ISO 8601); absent from streams written before devices were listed."""


class PlayerRenamed(PlayerEvent, frozen=True, tag="player_renamed"):
    """The player changed their display name."""

    name: str


class PlayerTokenRotated(PlayerEvent, frozen=True, tag="player_token_rotated"):
    """The token of the device ``device_id`` was replaced, and every other device revoked:
    each old token stops working at once. Streams written before devices name no device (the
    player's first device is meant)."""

    token_hash: str
    device_id: str | None = None
    at: str | None = None


class PlayerDeviceLinked(PlayerEvent, frozen=True, tag="player_device_linked"):
    """Another device of the player got a token of its own through a one-use linking code."""

    device_id: str
    token_hash: str
    at: str


class PlayerDeviceRevoked(PlayerEvent, frozen=True, tag="player_device_revoked"):
    """The device ``device_id``'s token stopped working, revoked from the device ``by``."""

    device_id: str
    by: str
    at: str


class PlayerNameErased(PlayerEvent, frozen=True, tag="player_name_erased"):
    """The player's name was erased: it shows as ``deleted player`` from then on."""


AnyPlayerEvent: TypeAlias = (
    PlayerRegistered
    | PlayerRenamed
    | PlayerTokenRotated
    | PlayerNameErased
    | PlayerDeviceLinked
    | PlayerDeviceRevoked
)
"""Every event of a player's stream."""

PLAYER_EVENT_TYPES: tuple[type[PlayerEvent], ...] = (
    PlayerRegistered,
    PlayerRenamed,
    PlayerTokenRotated,
    PlayerNameErased,
    PlayerDeviceLinked,
    PlayerDeviceRevoked,
)
"""Every player event class, for the store's topics."""


FIRST_DEVICE: Final = "d1"
"""The id of the device a player registered from (devices are ``d1``, ``d2``, … in order)."""

MAX_DEVICES: Final = 20
"""The most devices one player may hold tokens on at once."""


class PlayerDevice(msgspec.Struct, frozen=True):
    """One device holding a token of the player: its id, the token's SHA-256, made when."""

    device_id: str
    token_hash: str
    made: str | None


class PlayerState(msgspec.Struct, frozen=True):
    """A player folded from their stream: id, name (None once erased), devices, version."""

    player_id: str
    name: str | None
    devices: tuple[PlayerDevice, ...]
    version: int
    devices_made: int = 1
    """How many devices were ever linked (numbers the next one)."""

    @property
    def token_hash(self) -> str:
        """The first listed device's token hash (the only one before devices were linked)."""
        return self.devices[0].token_hash

    def device_with(self, token_hash: str) -> PlayerDevice | None:
        """The device whose token hashes to ``token_hash``, compared without an early exit."""
        found = None
        for device in self.devices:
            if hmac.compare_digest(device.token_hash, token_hash):
                found = device
        return found

    @property
    def shown_name(self) -> str:
        """The name others see: the name, or ``deleted player`` once erased."""
        return self.name if self.name is not None else DELETED_NAME


def player_name(text: str) -> str:
    """A display name given now: the seat-name rule (``names.seat_name``), 1–32 chars."""
    name = seat_name(text)
    if len(name) > MAX_PLAYER_NAME:
        raise InvalidNameError(f"a player name is 1 to {MAX_PLAYER_NAME} characters")
    return name


def is_player_id(text: str) -> bool:
    """True when ``text`` is shaped like a player's id."""
    rest = text.removeprefix(PLAYER_ID_PREFIX)
    return rest != text and 0 < len(rest) <= 64 and all(c in "0123456789abcdef" for c in rest)


def register(player_id: str, name: str, token_hash: str, at: str | None = None) -> PlayerRegistered:
    """The event of registering: the name checked, the token's hash kept."""
    return PlayerRegistered(
        player_id=player_id, name=player_name(name), token_hash=token_hash, at=at
    )


def link_device(state: PlayerState, token_hash: str, at: str) -> PlayerDeviceLinked:
    """The event of another device getting a token of its own; refused past ``MAX_DEVICES``."""
    if len(state.devices) >= MAX_DEVICES:
        raise TooManyDevicesError(f"a player holds tokens on at most {MAX_DEVICES} devices")
    return PlayerDeviceLinked(f"d{state.devices_made + 1}", token_hash, at)


def revoke_device(state: PlayerState, device_id: str, by: str, at: str) -> PlayerDeviceRevoked:
    """The event of revoking ``device_id`` from the device ``by`` (never itself: a device
    gives up its own token by forgetting it, or replaces it by rotation)."""
    if all(d.device_id != device_id for d in state.devices):
        raise UnknownDeviceError(f"the player has no device {device_id!r}")
    if device_id == by:
        raise OwnDeviceError("a device cannot revoke itself; forget the player on it instead")
    return PlayerDeviceRevoked(device_id, by, at)


def rename(state: PlayerState, name: str) -> PlayerRenamed:
    """The event of a new display name (an erased name may be replaced by a new one)."""
    return PlayerRenamed(name=player_name(name))


def erase_name(state: PlayerState) -> PlayerNameErased:
    """The event of erasing the name; refused when it is erased already."""
    if state.name is None:
        raise PlayerNameErasedError("the name is erased already")
    return PlayerNameErased()


def evolve_player(state: PlayerState | None, event: PlayerEvent) -> PlayerState:
    """The player after ``event``."""
    match event:
        case PlayerRegistered(player_id=pid, name=name, token_hash=token_hash, at=at):
            return PlayerState(pid, name, (PlayerDevice(FIRST_DEVICE, token_hash, at),), 1)
    if state is None:
        raise ValueError("a player's stream begins with player_registered")
    version = state.version + 1
    match event:
        case PlayerRenamed(name=name):
            return msgspec.structs.replace(state, name=name, version=version)
        case PlayerTokenRotated(token_hash=token_hash, device_id=device_id, at=at):
            kept = device_id or state.devices[0].device_id
            devices: tuple[PlayerDevice, ...] = (PlayerDevice(kept, token_hash, at),)
            return msgspec.structs.replace(state, devices=devices, version=version)
        case PlayerDeviceLinked(device_id=device_id, token_hash=token_hash, at=at):
            devices = (*state.devices, PlayerDevice(device_id, token_hash, at))
            made = state.devices_made + 1
            return msgspec.structs.replace(
                state, devices=devices, devices_made=made, version=version
            )
        case PlayerDeviceRevoked(device_id=device_id):
            devices = tuple(d for d in state.devices if d.device_id != device_id)
            return msgspec.structs.replace(state, devices=devices, version=version)
        case PlayerNameErased():
            return msgspec.structs.replace(state, name=None, version=version)
    raise TypeError(f"{type(event).__name__} is not a player event")


def fold_player(events: list[PlayerEvent]) -> PlayerState | None:
    """The player of a whole stream, None when it is empty."""
    state: PlayerState | None = None
    for event in events:
        state = evolve_player(state, event)
    return state


PLAYER_EVENT_DECODER: Final = msgspec.json.Decoder(AnyPlayerEvent)
"""Decodes one JSON player event by its ``type`` tag."""


def resolve_names(state: MatchState, shown: Mapping[str, str]) -> MatchState:
    """``state`` with each registered player's seat under the name ``shown`` gives for their id.

    A match records who sat down by id; the name shown is the player's name now, so a rename
    shows everywhere and an erased name shows as ``deleted player`` from then on.
    """
    if not state.player_ids:
        return state
    return msgspec.structs.replace(
        state, names=shown_seat_names(state.names, state.player_ids, shown)
    )


def shown_seat_names(
    names: Sequence[str | None], player_ids: Sequence[str | None], shown: Mapping[str, str]
) -> tuple[str | None, ...]:
    """Each seat's name as shown now: a registered player's by their id (``deleted player`` once
    erased, or when ``shown`` does not know the id), a name-only seat's as it was taken."""
    ids = tuple(player_ids)
    return tuple(
        shown.get(pid, DELETED_NAME) if (pid := _at(ids, seat)) else name
        for seat, name in enumerate(names)
    )


def seated_player_ids(recorded: Sequence[RecordedEvent]) -> list[str]:
    """The ids of the registered players who took a seat in ``recorded``, in seat order taken."""
    return [
        r.event.player_id
        for r in recorded
        if isinstance(r.event, SeatTaken) and isinstance(r.event.player_id, str)
    ]


def shown_seat_events(
    recorded: Sequence[RecordedEvent], shown: Mapping[str, str]
) -> list[RecordedEvent]:
    """``recorded`` with each registered player's ``seat_taken`` under the name shown now.

    Whatever is folded, stepped through or written from the result (frames, the dispute log,
    a replay file) shows the player's name now, as ``shown_seat_names`` gives it; a name-only
    seat keeps the name it was taken under.
    """
    named: list[RecordedEvent] = []
    for r in recorded:
        event = r.event
        if isinstance(event, SeatTaken) and isinstance(event.player_id, str):
            (name,) = shown_seat_names([event.name], [event.player_id], shown)
            event = msgspec.structs.replace(event, name=name or event.name)
            r = msgspec.structs.replace(r, event=event)
        named.append(r)
    return named


def _at(ids: tuple[str | None, ...], seat: int) -> str | None:
    return ids[seat] if seat < len(ids) else None
