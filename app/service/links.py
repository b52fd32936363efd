"""Linking another device to a player with a one-use code, and when each device was last used.

Every check-then-act here is one append at an expected seq in the shared store, so it holds
across processes: a code is spent by one browser only (``link_code_spent`` at seq 2), and a
wrong code is counted once whichever process saw it. Codes are kept only as their SHA-256 and
never logged. See domain/links.py for the streams.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from datetime import datetime, timedelta
from typing import Final

import msgspec

from app.errors import ConflictError, InvalidLinkCodeError, LinkingPausedError
from app.service.players import Clock, PlayerService, iso, utc_now
from app.store.link_store import LinkStore
from app.store.match_store import MatchStore
from domain.links import (
    CODE_ALPHABET,
    CODE_LENGTH,
    CODE_SECONDS,
    MAX_MISSES,
    DeviceSeen,
    LinkCodeIssued,
    LinkCodeMissed,
    LinkCodeOffered,
    LinkCodeSpent,
    code_stream,
    misses_stream,
    normalised_code,
    offers_stream,
    seen_stream,
)
from domain.players import PlayerState
from domain.times import utc_micros

APPEND_TRIES: Final = 20
"""How many times a count shared by every process is read and appended again when another
process appended first."""


class IssuedCode(msgspec.Struct, frozen=True):
    """A fresh linking code (shown once, never stored as such) and when it stops working."""

    code: str
    expires: str


def hour_of(when: datetime) -> str:
    """The UTC hour ``when`` falls in, as ``YYYY-MM-DDTHH``."""
    return when.strftime("%Y-%m-%dT%H")


def new_code() -> str:
    """A fresh code: ``CODE_LENGTH`` symbols of ``CODE_ALPHABET`` (40 random bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_hash(code: str) -> str:
    """The SHA-256 hex of a normalised code: the only form of it the store keeps."""
    return hashlib.sha256(code.encode("ascii")).hexdigest()


class LinkService:
    """Linking codes, wrong-code counts and devices' last use, over the shared store."""

    def __init__(self, store: MatchStore, players: PlayerService, clock: Clock = utc_now) -> None:
        self.streams = LinkStore(store)
        self.players = players
        self.clock = clock
        self._seen: dict[tuple[str, str], str] = {}
        self._seen_lock = threading.Lock()

    # -- codes ------------------------------------------------------------------------------

    def issue(self, player: PlayerState, by: str) -> IssuedCode:
        """A one-use code for another device of ``player``, asked for by the device ``by``."""
        now = self.clock()
        if self.misses(player.player_id, hour_of(now)) >= MAX_MISSES:
            raise LinkingPausedError("too many wrong linking codes this hour; try after the hour")
        code = new_code()
        expires = iso(now + timedelta(seconds=CODE_SECONDS))
        issued = LinkCodeIssued(player.player_id, by, iso(now), expires)
        self.streams.append(code_stream(code_hash(code)), 0, [issued])
        offer = LinkCodeOffered(player.player_id, expires)
        self._count(offers_stream(hour_of(now)), offer)
        return IssuedCode(code, expires)

    def redeem_player(self, text: str) -> str:
        """Spend the code ``text``: the id of the player it was given to, whose new device is
        then linked by ``link_spent``.

        A wrong, spent or expired code, or one of a player paused this hour, is one
        InvalidLinkCodeError; each is counted against the player it could be aimed at.
        """
        now = self.clock()
        hour = hour_of(now)
        code = normalised_code(text)
        events = self.streams.read(code_stream(code_hash(code))) if code else []
        issued = events[0] if events and isinstance(events[0], LinkCodeIssued) else None
        if issued is None:
            self._missed_everyone(now)
            raise InvalidLinkCodeError("the code is wrong, spent or expired")
        player_id = issued.player_id
        if len(events) > 1 or utc_micros(issued.expires) <= _micros(now):
            self._miss(player_id, now)
            raise InvalidLinkCodeError("the code is wrong, spent or expired")
        if self.misses(player_id, hour) >= MAX_MISSES:
            raise InvalidLinkCodeError("the code is wrong, spent or expired")
        try:
            # Spent at seq 2: of two browsers (or processes) racing, only one stores it.
            stream = code_stream(code_hash(code or ""))
            self.streams.append(stream, 1, [LinkCodeSpent(iso(now))])
        except ConflictError:
            self._miss(player_id, now)
            raise InvalidLinkCodeError("the code is wrong, spent or expired") from None
        return player_id

    def link_spent(self, player_id: str, token_hash: str) -> str:
        """Record in the player's stream the device of a code just spent, whose token hashes
        to ``token_hash``; the new device's id."""
        _, device_id = self.players.link(player_id, token_hash)
        return device_id

    def misses(self, player_id: str, hour: str) -> int:
        """Wrong codes counted against ``player_id`` in ``hour``."""
        seq, _ = self.streams.last(misses_stream(player_id, hour))
        return seq

    def _miss(self, player_id: str, now: datetime) -> None:
        self._count(misses_stream(player_id, hour_of(now)), LinkCodeMissed(iso(now)))

    def _missed_everyone(self, now: datetime) -> None:
        """A code that names no code counts against every player holding a live one (the only
        accounts it could have been a guess at)."""
        micros = _micros(now)
        aimed: set[str] = set()
        for hour in (hour_of(now - timedelta(seconds=CODE_SECONDS)), hour_of(now)):
            for event in self.streams.read(offers_stream(hour)):
                if isinstance(event, LinkCodeOffered) and utc_micros(event.expires) > micros:
                    aimed.add(event.player_id)
        for player_id in sorted(aimed):
            self._miss(player_id, now)

    def _count(self, stream: str, event: LinkCodeMissed | LinkCodeOffered) -> None:
        """Append ``event`` at the end of ``stream``, again while another process is first."""
        for attempt in range(APPEND_TRIES):
            seq, _ = self.streams.last(stream)
            try:
                self.streams.append(stream, seq, [event])
                return
            except ConflictError:
                if attempt == APPEND_TRIES - 1:
                    raise

    # -- devices' last use ------------------------------------------------------------------

    def seen(self, player_id: str, device_id: str) -> None:
        """Note that the device was used now: written at most once an hour per device (once
        per process by memory, once across processes by the append at an expected seq)."""
        hour = hour_of(self.clock())
        key = (player_id, device_id)
        with self._seen_lock:
            if self._seen.get(key) == hour:
                return
            self._seen[key] = hour
        stream = seen_stream(player_id, device_id)
        seq, last = self.streams.last(stream)
        if isinstance(last, DeviceSeen) and last.hour >= hour:
            return
        try:
            self.streams.append(stream, seq, [DeviceSeen(hour)])
        except ConflictError:
            return  # another process wrote this hour first

    def last_used(self, player_id: str, device_id: str) -> str | None:
        """The hour the device was last used in (``YYYY-MM-DDTHH``), None if never noted."""
        _, last = self.streams.last(seen_stream(player_id, device_id))
        return last.hour if isinstance(last, DeviceSeen) else None


def _micros(when: datetime) -> int:
    return int(when.timestamp() * 1_000_000)
