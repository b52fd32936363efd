"""A second implementation of basra-fair-v1, written from docs/fairness.md alone.

Standard library only, and nothing from the project: if the page leaves a step open, this
file and the server's code disagree somewhere and the tests that compare them fail.
"""

from __future__ import annotations

import hashlib
import hmac

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def lp(data: bytes) -> bytes:
    """4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def secret_from_text(text: str) -> bytes:
    """Step 1: S = SHA-256("basra-fair-v1/test-seed" ‖ lp(TEXT))."""
    return hashlib.sha256(b"basra-fair-v1/test-seed" + lp(text.encode("utf-8"))).digest()


def commitment(match_id: str, secret: bytes) -> str:
    """Step 2: C = SHA-256("basra-fair-v1/commit" ‖ lp(match_id) ‖ S), lowercase hex."""
    return hashlib.sha256(
        b"basra-fair-v1/commit" + lp(match_id.encode("utf-8")) + secret
    ).hexdigest()


def deal_key(secret: bytes, client_seeds: list[str]) -> bytes:
    """Step 3: K = HMAC-SHA256(S, "basra-fair-v1/master" ‖ u32be(n) ‖ lp(cs_0) ‖ …)."""
    msg = b"basra-fair-v1/master" + len(client_seeds).to_bytes(4, "big")
    for seed in client_seeds:
        msg += lp(seed.encode("utf-8"))
    return hmac.new(secret, msg, "sha256").digest()


class Stream:
    """Step 4: the numbers of HMAC-SHA256(K, lp(label) ‖ u64be(i)), eight u32be a block."""

    def __init__(self, key: bytes, label: str) -> None:
        self.key = key
        self.label = label.encode("utf-8")
        self.block = 0
        self.numbers: list[int] = []

    def next_number(self) -> int:
        """The next u32 of the stream."""
        if not self.numbers:
            digest = hmac.new(
                self.key, lp(self.label) + self.block.to_bytes(8, "big"), "sha256"
            ).digest()
            self.numbers = [int.from_bytes(digest[k : k + 4], "big") for k in range(0, 32, 4)]
            self.block += 1
        return self.numbers.pop(0)

    def uniform(self, n: int) -> int:
        """Rejection sampling below 2^32 − (2^32 mod n), then mod n."""
        limit = 2**32 - (2**32 % n)
        while True:
            x = self.next_number()
            if x < limit:
                return x % n


def card_name(index: int) -> str:
    """Step 6: suit index div 13 (C, D, H, S), rank index mod 13 (A … K)."""
    return RANKS[index % 13] + SUITS[index // 13]


def first_dealer(key: bytes, seats: int) -> int:
    """Step 5: uniform(n) on "dealer"."""
    return Stream(key, "dealer").uniform(seats)


def dealer_of_round(key: bytes, seats: int, round_number: int) -> int:
    """Step 5: (first + r − 1) mod n."""
    return (first_dealer(key, seats) + round_number - 1) % seats


def round_deck(key: bytes, round_number: int) -> list[str]:
    """Step 6: Fisher-Yates on "round/r"; element 0 is the top of the stock."""
    stream = Stream(key, f"round/{round_number}")
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = stream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [card_name(c) for c in deck]


def opening(
    key: bytes, seats: int, round_number: int, hand_size: int, komi_sweeps: bool
) -> tuple[list[list[str]], list[str], list[str]]:
    """Step 7: each seat's hand (in the order dealt), the first floor, and the stock after."""
    stock = round_deck(key, round_number)
    dealer = dealer_of_round(key, seats, round_number)
    hands: list[list[str]] = [[] for _ in range(seats)]
    seat = (dealer + 1) % seats
    for _ in range(seats * hand_size):
        hands[seat].append(stock.pop(0))
        seat = (seat + 1) % seats
    floor: list[str] = []
    sent_back: list[str] = []
    while len(floor) < 4:
        card = stock.pop(0)
        if card[:-1] == "J" or (komi_sweeps and card == "7D"):
            sent_back.append(card)
        else:
            floor.append(card)
    return hands, floor, stock + sent_back


class RandomBot:
    """Step 8: uniform(cards in hand now) on "bot/SEAT", one stream for the whole match."""

    def __init__(self, key: bytes, seat: int) -> None:
        self.stream = Stream(key, f"bot/{seat}")

    def play(self, hand: list[str]) -> str:
        """The card at the drawn position of the hand as it is now."""
        return hand[self.stream.uniform(len(hand))]
