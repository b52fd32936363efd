"""The tables behind the R8 capture solver: value multisets packed into one int, the groups
adding up to a played value, and linear limits on what a floor can give up.

Everything here depends on the played value only, never on a floor: it is built once per
value and then only read, except the tables of cards left behind, which grow on first need
under the lock of the solver that owns them.
"""

from __future__ import annotations

from typing import Final, TypeAlias

Entry: TypeAlias = tuple[int, int, tuple[int, ...]]
"""A group adding up to the played value: (packed, how many cards, values big first)."""

# A multiset of card values is packed into one int: the count of value j is the byte at bit
# 8*(j-1). A floor holds at most 4 cards of a value (R1), so each byte keeps its top bit free
# as a guard: one subtraction tells whether a group fits in what is left, and one
# multiplication adds up a weighted run of bytes.
FIELD: Final = 8
"""Bits per value in a packed multiset."""
MASK: Final = (1 << FIELD) - 1
"""The bits of one value's count."""
_GUARD_BIT: Final = 1 << (FIELD - 1)
MAX_COUNT: Final = _GUARD_BIT - 1
"""The most cards of one value a packed multiset can hold."""
GUARDS: Final = tuple(sum(_GUARD_BIT << (FIELD * k) for k in range(values)) for values in range(64))
"""The guard bits of the bytes of values 1..i, by i."""
_SUM_FIELD: Final = FIELD * 8
"""Multiplying by a constant gathers a weighted sum of the bytes of values 1..9 here."""

_CHECK_FIELD: Final = 12
"""Bits per limit when the weights under several linear limits share one int."""
_CHECK_BIT: Final = 1 << (_CHECK_FIELD - 1)


def unit(value: int) -> int:
    """One card of this value, packed."""
    return 1 << (FIELD * (value - 1))


UNITS: Final = (0, *(unit(value) for value in range(1, 64)))
"""One card of each value, packed, by value."""


def count(s: int, value: int) -> int:
    """How many cards of this value the packed multiset holds."""
    return (s >> (FIELD * (value - 1))) & MASK


def top_value(s: int) -> int:
    """The biggest value in a non-empty packed multiset."""
    return (s.bit_length() - 1) // FIELD + 1


def without_value(s: int, value: int) -> int:
    """The packed multiset with every card of this value removed."""
    return s & ~(MASK << (FIELD * (value - 1)))


def partitions(total: int, largest: int) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as a sum of parts at most ``largest``, big parts first."""
    if total == 0:
        return [()]
    out: list[tuple[int, ...]] = []
    for part in range(min(total, largest), 0, -1):
        out.extend((part, *rest) for rest in partitions(total - part, part))
    return out


class SumTables:
    """What the solver for groups adding up to ``v`` reads: the groups by their biggest
    card, linear limits on every haul, and every choice of cards left behind."""

    __slots__ = ("_leaves", "_level", "bias", "gains", "groups", "limits", "v")

    def __init__(self, v: int) -> None:
        self.v = v
        # For each top value i < v, every group adding up to v whose biggest card is an i,
        # as (packed, cards, values big first); groups with fewer cards are tried first.
        groups: list[tuple[Entry, ...]] = [()]
        for top in range(1, v):
            made = [(top, *rest) for rest in partitions(v - top, top)]
            groups.append(tuple((sum(map(unit, g)), len(g), g) for g in made))
        self.groups: tuple[tuple[Entry, ...], ...] = tuple(groups)
        """Every group adding up to v, by the value of its biggest card."""
        # Linear limits on what can be taken, each "the weights of the cards taken add up to
        # at most 0" (true of every group, so of every haul), with the weight of a card
        # by value:
        # - a card of value i above v/2 lacks v-i, and only cards of at most v-i can make
        #   that up: for each x up to v/2, the cards of v-x and above weigh what they lack,
        #   the cards of x and below minus their value;
        # - m not dividing v: cards that are all multiples of m never add up to v, so every
        #   group holds another card, and its multiples of m add up to at most what the
        #   others lack of v: multiples weigh their value, the others minus what they lack.
        weights: list[list[int]] = []
        if v <= 10:
            for x in range(1, (v - 1) // 2 + 1):
                weights.append([v - i if i >= v - x else -i if i <= x else 0 for i in range(v)])
            for m in range(2, v // 2 + 1):
                if v % m:
                    weights.append([i if i % m == 0 else i - v for i in range(v)])
        # Each limit's weight of a multiset is the difference of two products; at least
        # that weight over the heaviest card's weight must stay behind.
        self.limits = tuple(
            (
                sum(w[i] << (_SUM_FIELD - FIELD * (i - 1)) for i in range(1, v) if w[i] > 0),
                sum(-w[i] << (_SUM_FIELD - FIELD * (i - 1)) for i in range(1, v) if w[i] < 0),
                max(w),
            )
            for w in weights
        )
        """Each limit as (positive weights, negative weights, heaviest card's weight)."""
        # The weights again, one limit to each 12-bit field around a bias: adding the
        # weights of the cards left behind to the bias less each limit's weight keeps every
        # field at or above the bias exactly when every limit is met.
        self.bias = sum(_CHECK_BIT << (_CHECK_FIELD * x) for x in range(len(weights)))
        """Every limit's field at its middle: what start() counts down from."""
        self.gains = tuple(
            sum(w[i] << (_CHECK_FIELD * x) for x, w in enumerate(weights)) for i in range(v)
        )
        """One card of each value's weights under every limit, one limit to a field."""
        self._leaves: list[dict[int, tuple[tuple[int, int], ...]]] = []
        self._level = [(0, 1, 0, 0)]

    def least_left(self, s: int, total: int) -> int:
        """A lower bound on how many cards of ``s`` (adding up to total) stay behind."""
        # What stays behind carries the remainder of the total: one card if one has
        # exactly that value, else two or more.
        rest = total % self.v
        drop = 0 if rest == 0 else 1 if count(s, rest) else 2
        for positive, negative, heaviest in self.limits:
            weight = ((s * positive) >> _SUM_FIELD) & MASK
            weight -= ((s * negative) >> _SUM_FIELD) & MASK
            if weight > drop * heaviest:
                drop = -(-weight // heaviest)
        return drop

    def start(self, s: int) -> int:
        """The bias less the weight of ``s`` under every limit, one limit to a field."""
        start = self.bias
        for x, (positive, negative, _) in enumerate(self.limits):
            weight = ((s * positive) >> _SUM_FIELD) & MASK
            weight -= ((s * negative) >> _SUM_FIELD) & MASK
            start -= weight << (_CHECK_FIELD * x)
        return start

    def greedy(self, s: int) -> int:
        """How many cards a quick pass takes: each top card into the first group that fits."""
        taken = 0
        groups = self.groups
        while s:
            top = top_value(s)
            guard = GUARDS[top]
            guarded = s | guard
            for packed, size, _ in groups[top]:
                if (guarded - packed) & guard == guard:
                    s -= packed
                    taken += size
                    break
            else:
                s = without_value(s, top)
        return taken

    def leave_table(self, k: int) -> dict[int, tuple[tuple[int, int], ...]]:
        """Every multiset of k values below v (at most 4 of each), by its sum modulo v, with
        its weights under the limits; built on first need, then kept. The caller holds the
        owning solver's lock: the lists grow here."""
        v = self.v
        tables = self._leaves
        while len(tables) <= k:
            if tables:
                # One more value, no smaller than the biggest one already in, and never a
                # fifth card of a value (R1): 4 of a value is one bit of its byte.
                self._level = [
                    (packed + UNITS[value], value, total + value, gain + self.gains[value])
                    for packed, least, total, gain in self._level
                    for value in range(least, v)
                    if not packed & (UNITS[value] << 2)
                ]
            by_rest: dict[int, list[tuple[int, int]]] = {}
            for packed, _, total, gain in self._level:
                by_rest.setdefault(total % v, []).append((packed, gain))
            tables.append({rest: tuple(entries) for rest, entries in by_rest.items()})
        return tables[k]
