"""The bots a table can seat, as the rules record them: their kinds, and the strong bot's budget
and logic version (docs/bots.md). The bots themselves live above the rules (domain/bots.py)."""

from __future__ import annotations

from typing import Final

BOT_KINDS: Final = ("easy", "random", "strong")
"""The bots a table can seat."""

DEFAULT_BUDGET: Final = 8
"""Deals of the unseen cards sampled per decision unless the match records another count."""

BOT_BUDGET: Final = (1, 4096)
"""The fewest and most deals the strong bot may sample per decision."""

LOGIC_VERSION: Final = 2
"""How the strong bot decides: 1 samples every unseen card freely and deals its playouts a
block of the hand size per seat; 2 keeps the cards sent back (R4) where the seat saw them go and
deals one card at a time from the seat after the dealer (R5)."""
