"""``basra-fair-v1``: every shuffle and draw of a match, byte for byte from its secret (R6)."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from functools import lru_cache

from domain.cards import DECK, Card
from domain.errors import InvalidClientSeedError, InvalidSecretError

SECRET_BYTES = 32
"""Length of a match secret ``S``."""

MAX_CLIENT_SEED_BYTES = 64
"""A client seed is at most this many bytes of UTF-8."""

_EIGHT_U32 = struct.Struct(">8I")
_COUNTER = struct.Struct(">Q")
_FIFTY_SIX_U32 = struct.Struct(">56I")


_XOR_IPAD = bytes(b ^ 0x36 for b in range(256))
_XOR_OPAD = bytes(b ^ 0x5C for b in range(256))


class HmacSha256:
    """HMAC-SHA256 (RFC 2104) under one key, with the padded key hashed once.

    The same bytes as ``hmac.digest(key, msg, "sha256")``, several times faster per call,
    which matters because every block of every stream is one call.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(key.translate(_XOR_IPAD))
        self._outer = hashlib.sha256(key.translate(_XOR_OPAD))

    def digest(self, msg: bytes) -> bytes:
        """HMAC-SHA256(key, msg)."""
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


@lru_cache(maxsize=256)
def keyed(key: bytes) -> HmacSha256:
    """The HMAC of a deal key, kept for the streams of that match."""
    return HmacSha256(key)


def lp(data: bytes) -> bytes:
    """Length-prefix: 4-byte big-endian length, then the bytes."""
    return struct.pack(">I", len(data)) + data


def secret_from_text_seed(text: str) -> bytes:
    """``S = SHA-256("basra-fair-v1/test-seed" ‖ lp(text))``: a fixed secret for tests."""
    return hashlib.sha256(b"basra-fair-v1/test-seed" + lp(text.encode("utf-8"))).digest()


def check_secret(secret: bytes) -> bytes:
    """Return the secret if it is 32 bytes, else raise InvalidSecretError."""
    if len(secret) != SECRET_BYTES:
        raise InvalidSecretError(f"a match secret is {SECRET_BYTES} bytes, not {len(secret)}")
    return secret


def check_client_seed(seed: str) -> str:
    """Return the client seed if it is at most 64 bytes of UTF-8, else raise."""
    if len(seed.encode("utf-8")) > MAX_CLIENT_SEED_BYTES:
        raise InvalidClientSeedError(f"a client seed is at most {MAX_CLIENT_SEED_BYTES} bytes")
    return seed


def deal_key(secret: bytes, client_seeds: Sequence[str]) -> bytes:
    """``K = HMAC-SHA256(S, "basra-fair-v1/master" ‖ u32be(n) ‖ lp(cs_0) ‖ … ‖ lp(cs_n-1))``."""
    msg = b"basra-fair-v1/master" + struct.pack(">I", len(client_seeds))
    msg += b"".join(lp(seed.encode("utf-8")) for seed in client_seeds)
    return hmac.new(check_secret(secret), msg, hashlib.sha256).digest()


def commitment(match_id: str, secret: bytes) -> str:
    """``C = SHA-256("basra-fair-v1/commit" ‖ lp(match_id) ‖ S)`` in lowercase hex."""
    data = b"basra-fair-v1/commit" + lp(match_id.encode("utf-8")) + secret
    return hashlib.sha256(data).hexdigest()


def _rejection_limit(n: int) -> int:
    """Numbers at or above 2^32 - (2^32 mod n) are drawn again, so that x mod n has no bias."""
    return 4294967296 - (4294967296 % n)


_LIMITS_KNOWN = 64
_LIMITS: tuple[int, ...] = (0, *(_rejection_limit(n) for n in range(1, _LIMITS_KNOWN)))
"""The rejection limit of every small n that hands and decks need."""


class Stream:
    """``Stream(label)``: 32-bit numbers from HMAC-SHA256 blocks keyed by the deal key."""

    __slots__ = ("_block", "_buffer", "_key", "_label", "_pos")

    def __init__(self, key: bytes, label: str) -> None:
        self._key = keyed(key)
        self._label = lp(label.encode("utf-8"))
        self._block = 0
        self._buffer: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self) -> None:
        """Block i = HMAC-SHA256(K, lp(label) ‖ u64be(i)), read as eight big-endian u32s."""
        self._buffer = _EIGHT_U32.unpack(self._key.digest(self._label + _COUNTER.pack(self._block)))
        self._block += 1
        self._pos = 0

    def next_u32(self) -> int:
        """The next number of the stream, in order."""
        if self._pos >= len(self._buffer):
            self._refill()
        value = self._buffer[self._pos]
        self._pos += 1
        return value

    def uniform(self, n: int) -> int:
        """A number in 0..n-1 by rejection sampling: no modulo bias."""
        if 0 < n < _LIMITS_KNOWN:
            limit = _LIMITS[n]
        elif n <= 0:
            raise ValueError("uniform(n) needs n >= 1")
        else:
            limit = _rejection_limit(n)
        while True:
            pos = self._pos
            if pos == len(self._buffer):
                self._refill()
                pos = 0
            x = self._buffer[pos]
            self._pos = pos + 1
            if x < limit:
                return x % n


def first_dealer(key: bytes, seats: int) -> int:
    """R3: the first dealer is ``uniform(n)`` on the stream labelled ``"dealer"``."""
    return Stream(key, "dealer").uniform(seats)


def shuffled_deck(key: bytes, round_number: int) -> tuple[Card, ...]:
    """Round r's stock, top card first: Fisher-Yates driven by the stream ``"round/r"``.

    This is ``Stream.uniform(i + 1)`` for i = 51 .. 1 (see ``reference_shuffled_deck``), done
    with the 56 numbers of the stream's first seven blocks. A number that uniform would reject
    comes about once in seven million rounds; then the reference runs instead.
    """
    label = lp(f"round/{round_number}".encode())
    digest = keyed(key).digest
    counter = _COUNTER.pack
    numbers = _FIFTY_SIX_U32.unpack(b"".join([digest(label + counter(b)) for b in range(7)]))
    limits = _LIMITS
    deck = list(DECK)
    for n, x in zip(range(52, 1, -1), numbers, strict=False):  # 51 of the 56 numbers
        if x >= limits[n]:
            return reference_shuffled_deck(key, round_number)
        j = x % n
        deck[n - 1], deck[j] = deck[j], deck[n - 1]
    return tuple(deck)


def reference_shuffled_deck(key: bytes, round_number: int) -> tuple[Card, ...]:
    """docs/fairness.md's shuffle as written: for i = 51 .. 1, swap i with ``uniform(i + 1)``."""
    stream = Stream(key, f"round/{round_number}")
    deck = list(DECK)
    for i in range(51, 0, -1):
        j = stream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def bot_stream(key: bytes, seat: int) -> Stream:
    """The stream a random-choosing bot at ``seat`` draws from: ``"bot/SEAT"``."""
    return Stream(key, f"bot/{seat}")
