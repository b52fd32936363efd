"""Cards in their text form (R1): rank then suit letter, e.g. ``AC``, ``10D``, ``QH``."""

from __future__ import annotations

from typing import Final, TypeAlias

from domain.errors import UnknownCardError

Card: TypeAlias = str
"""A card in its canonical upper-case text form (R1)."""

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Ranks in docs/fairness.md index order: ace low, then 2..10, Jack, Queen, King."""

SUITS: Final = ("C", "D", "H", "S")
"""Suits in docs/fairness.md index order: clubs, diamonds, hearts, spades."""

SUIT_SYMBOLS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
"""Suit symbols for terminal and page display only; machine output uses letters (R1)."""

DECK: Final[tuple[Card, ...]] = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)
"""All 52 cards by docs/fairness.md index: 0 is ``AC``, 9 is ``10C``, 13 is ``AD``, 51 is ``KS``."""

INDEX: Final[dict[Card, int]] = {card: i for i, card in enumerate(DECK)}
"""docs/fairness.md index of every card."""

RANK: Final[dict[Card, str]] = {card: card[:-1] for card in DECK}
"""The rank part of every card."""

SUIT: Final[dict[Card, str]] = {card: card[-1] for card in DECK}
"""The suit letter of every card."""

VALUE: Final[dict[Card, int]] = {
    card: (RANKS.index(RANK[card]) + 1 if RANK[card] not in ("J", "Q", "K") else 0) for card in DECK
}
"""R7: ace 1, 2..10 their face value; Jack, Queen and King have no value (0)."""

JACKS: Final = frozenset(c for c in DECK if RANK[c] == "J")
"""The four Jacks, which sweep the floor (R10)."""

KOMI: Final[Card] = "7D"
"""The seven of diamonds, the Komi (R11)."""

CLASSIC_POINTS: Final[dict[Card, int]] = {
    card: (1 if RANK[card] in ("A", "J") else 0) for card in DECK
} | {"2C": 2, "10D": 3}
"""R18a point cards: each Jack 1, each ace 1, 2♣ 2, 10♦ 3 (13 in all)."""

_PARSE: Final[dict[str, Card]] = {c: c for c in DECK} | {c.lower(): c for c in DECK}


def parse_card(text: str) -> Card:
    """Read a card's text form case-insensitively (``10d`` → ``10D``); raise UnknownCardError."""
    card = _PARSE.get(text)
    if card is None:
        card = _PARSE.get(text.strip().upper())
        if card is None:
            raise UnknownCardError(text)
    return card


def display(card: Card) -> str:
    """The card with its suit symbol for people (``7♦``); never used in machine output (R1)."""
    return RANK[card] + SUIT_SYMBOLS[SUIT[card]]
