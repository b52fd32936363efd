"""Stream keys: each match's stream is stored under a short key, its match id kept once.

Every row of the events table names its stream, and so does every entry of the table's key
index: with the match id there (24-40 characters), the id alone was a fifth of a match's bytes.
Each match has a number in ``stored_streams`` (one row a match: the number and the match id)
and its rows are stored under that number's key, a few characters long (``stream_key``).
Streams that earlier builds stored under their match id are renamed to keys once, by ``basra
store migrate`` (app.store.migration). Keys never change once given, so every process caches
them; the cache is safe under threads.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the light readers import the key functions without eventsourcing
    from app.store.backend import Backend

STREAMS_TABLE: Final = "stored_streams"
"""The table of stream numbers and match ids beside the events table."""

_DIGITS: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_VALUE: Final = {digit: value for value, digit in enumerate(_DIGITS)}
_CACHE_LIMIT: Final = 100_000


def stream_key(number: int) -> str:
    """The key of stream ``number`` (1, 2, …): its base-62 digits after one digit giving how
    many there are, so that keys sort as their numbers do (``stream_key(61) == "1z"``,
    ``stream_key(62) == "210"``) and the events' key index only ever grows at its end."""
    if number < 1:
        raise ValueError(f"stream numbers start at 1, not {number}")
    digits = ""
    while number:
        number, digit = divmod(number, 62)
        digits = _DIGITS[digit] + digits
    return _DIGITS[len(digits)] + digits


def stream_number(key: str) -> int | None:
    """The number of a key made by ``stream_key``; None for any other text (a match id)."""
    if len(key) < 2 or key[0] not in _VALUE or _VALUE[key[0]] != len(key) - 1:
        return None
    number = 0
    for digit in key[1:]:
        value = _VALUE.get(digit)
        if value is None:
            return None
        number = number * 62 + value
    return number if key[1] != "0" else None


class StreamKeys:
    """Which key each match's stream is stored under, in one store (all its processes)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._lock = threading.Lock()
        self._key_of: dict[str, str] = {}
        self._match_of: dict[str, str] = {}

    def originator(self, match_id: str) -> str:
        """The name the match's stream is stored under: its key (its own id for a match not
        stored, which names no stream)."""
        with self._lock:
            key = self._key_of.get(match_id)
        if key is not None:
            return key
        number = self._backend.stream_number(match_id)
        if number is None:
            return match_id
        key = stream_key(number)
        self._remember(match_id, key)
        return key

    def create(self, match_id: str) -> str:
        """The key a new match's first events are stored under: a new one, or the one it was
        given already (the append then collides with its first row, as a second creation must)."""
        with self._lock:
            key = self._key_of.get(match_id)
        if key is None:
            key = stream_key(self._backend.assign_stream(match_id))
            self._remember(match_id, key)
        return key

    def match_of(self, originator: str) -> str:
        """The match id of a stored stream's key."""
        with self._lock:
            match_id = self._match_of.get(originator)
        if match_id is not None:
            return match_id
        number = stream_number(originator)
        found = self._backend.stream_matches([number]) if number is not None else {}
        match_id = found.get(number, originator) if number is not None else originator
        self._remember(match_id, originator)
        return match_id

    def prefetch(self, originators: list[str]) -> None:
        """Learn the match ids of these stored names in as few reads as possible (a page of the
        log names many matches a process has not seen yet)."""
        with self._lock:
            numbers = {
                n: name
                for name in originators
                if name not in self._match_of and (n := stream_number(name)) is not None
            }
        if len(numbers) < 2:
            return  # match_of reads a single one as cheaply
        found = self._backend.stream_matches(sorted(numbers))
        for number, name in numbers.items():
            self._remember(found.get(number, name), name)

    def _remember(self, match_id: str, originator: str) -> None:
        with self._lock:
            if len(self._match_of) > _CACHE_LIMIT:
                self._match_of.clear()
                self._key_of.clear()
            self._match_of[originator] = match_id
            if originator != match_id:
                self._key_of[match_id] = originator
