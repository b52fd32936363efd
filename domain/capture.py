"""What a number card takes (R8): the exact largest haul, and equal-sum splits (R17 iii).

R8 asks for the most floor number cards that split into groups each adding up to the played
value; ties go to the most Classic points, then to the cards lying earliest. Only how many
cards of each value lie on the floor decides which multisets of values can be taken, so the
hard part is solved on those counts, packed into one int, and remembered per count vector;
points and positions then pick the cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final, TypeAlias

from domain.cards import CLASSIC_POINTS, DECK, VALUE, Card
from domain.errors import UnknownCardError

_Groups: TypeAlias = tuple[tuple[int, ...], ...]
_Candidates: TypeAlias = tuple[tuple[int, _Groups], ...]
_Entry: TypeAlias = tuple[int, int, tuple[int, ...]]

# A multiset of card values is packed into one int: the count of value j is the byte at bit
# 8*(j-1). A floor holds at most 4 cards of a value (R1), so each byte keeps its top bit free
# as a guard: one subtraction tells whether a group fits in what is left, and one
# multiplication adds up a weighted run of bytes.
_FIELD: Final = 8
_MASK: Final = (1 << _FIELD) - 1
_GUARD_BIT: Final = 1 << (_FIELD - 1)
_MAX_COUNT: Final = _GUARD_BIT - 1
_GUARDS: Final = tuple(
    sum(_GUARD_BIT << (_FIELD * k) for k in range(values)) for values in range(64)
)
"""The guard bits of the bytes of values 1..i, by i."""
_SUM_FIELD: Final = _FIELD * 8
"""Multiplying by a constant gathers a weighted sum of the bytes of values 1..9 here."""

_CHECK_FIELD: Final = 12
"""Bits per limit when the weights under several linear limits share one int."""
_CHECK_BIT: Final = 1 << (_CHECK_FIELD - 1)

_MAX_LEFT_TRIED: Final = 6
"""Up to this many cards left behind, every choice of them is tried, fewest first."""

_MAX_LEFT_LISTED: Final = 7
"""Up to this many cards left behind, once the most is known, the choices are listed."""

_MEMO_LIMIT: Final = 1 << 16
"""Past this many remembered multisets a solver forgets them, which bounds its memory."""

_HAUL_CACHE_SIZE: Final = 1 << 15
"""Floors remembered by best_haul: the same small floors come back again and again."""

# R7, R8, R18a: all a card brings to a capture is its value and its Classic points. Jacks,
# Queens and Kings never join a sum (R7), so they share one kind with no value.
_KIND_LIST: Final = sorted({(VALUE[c], CLASSIC_POINTS[c] if VALUE[c] else 0) for c in DECK})
_KIND: Final[dict[Card, int]] = {
    c: _KIND_LIST.index((VALUE[c], CLASSIC_POINTS[c] if VALUE[c] else 0)) for c in DECK
}
_KIND_VALUE: Final = tuple(value for value, _ in _KIND_LIST)
_KIND_POINTS: Final = tuple(points for _, points in _KIND_LIST)
_MAX_CARDS_PER_VALUE: Final = max(
    sum(1 for c in DECK if VALUE[c] == value) for value in range(1, 11)
)


def _unit(value: int) -> int:
    """One card of this value, packed."""
    return 1 << (_FIELD * (value - 1))


_UNITS: Final = (0, *(_unit(value) for value in range(1, 64)))
"""One card of each value, packed, by value."""


def _count(s: int, value: int) -> int:
    """How many cards of this value the packed multiset holds."""
    return (s >> (_FIELD * (value - 1))) & _MASK


def _top_value(s: int) -> int:
    """The biggest value in a non-empty packed multiset."""
    return (s.bit_length() - 1) // _FIELD + 1


def _partitions(total: int, largest: int) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as a sum of parts at most ``largest``, big parts first."""
    if total == 0:
        return [()]
    out: list[tuple[int, ...]] = []
    for part in range(min(total, largest), 0, -1):
        out.extend((part, *rest) for rest in _partitions(total - part, part))
    return out


class _Solver:
    """Exact answers for groups adding up to ``v`` in packed multisets of smaller values.

    The most cards that split into groups, and every multiset of values taking that many, are
    found in one of these ways, whichever is quick:

    - by what stays behind: try every choice of k cards to leave behind, k rising from a
      lower bound, keeping those whose total is a multiple of v and that meet every linear
      limit below, and split the rest; the first k with a split gives the answer and every
      split found is a candidate. The choices come from tables built once; used whenever a
      greedy pass leaves at most _MAX_LEFT_TRIED cards behind, so it ends soon;
    - by search: take the biggest value left; one more card of it joins a group with
      smaller cards (each way of making up the rest of v), or every card of it left stays
      behind. reach() answers "at least t cards?" with an upper bound to prune, and the
      most is found going up from the greedy pass. The candidates then come from the
      tables (up to _MAX_LEFT_LISTED cards left behind), or from following every branch of
      the search that reaches the most.

    Everything learnt is remembered per multiset.
    """

    __slots__ = (
        "_bias",
        "_drops",
        "_found",
        "_gains",
        "_high",
        "_leaves",
        "_level",
        "_limits",
        "_lo",
        "_most",
        "_splits",
        "table",
        "v",
    )

    def __init__(self, v: int) -> None:
        self.v = v
        # For each top value i < v, every group adding up to v whose biggest card is an i,
        # as (packed, cards, values big first); groups with fewer cards are tried first.
        table: list[tuple[_Entry, ...]] = [()]
        for top in range(1, v):
            groups = [(top, *rest) for rest in _partitions(v - top, top)]
            table.append(tuple((sum(map(_unit, g)), len(g), g) for g in groups))
        self.table: tuple[tuple[_Entry, ...], ...] = tuple(table)
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
        self._limits = tuple(
            (
                sum(w[i] << (_SUM_FIELD - _FIELD * (i - 1)) for i in range(1, v) if w[i] > 0),
                sum(-w[i] << (_SUM_FIELD - _FIELD * (i - 1)) for i in range(1, v) if w[i] < 0),
                max(w),
            )
            for w in weights
        )
        # The weights again, one limit to each 12-bit field around a bias: adding the
        # weights of the cards left behind to the bias less each limit's weight keeps every
        # field at or above the bias exactly when every limit is met.
        self._bias = sum(_CHECK_BIT << (_CHECK_FIELD * x) for x in range(len(weights)))
        self._gains = tuple(
            sum(w[i] << (_CHECK_FIELD * x) for x, w in enumerate(weights)) for i in range(v)
        )
        self._leaves: list[dict[int, tuple[tuple[int, int], ...]]] = []
        self._level = [(0, 1, 0, 0)]
        self._drops: dict[int, int] = {}
        self._lo: dict[int, int] = {}
        self._high: dict[int, int] = {}
        self._most: dict[int, int] = {}
        self._splits: dict[int, _Groups | None] = {}
        self._found: dict[int, tuple[int, _Candidates]] = {}

    def _leave_table(self, k: int) -> dict[int, tuple[tuple[int, int], ...]]:
        """Every multiset of k values below v (at most 4 of each), by its sum modulo v, with
        its weights under the limits; built on first need, then kept."""
        v = self.v
        tables = self._leaves
        while len(tables) <= k:
            if tables:
                # One more value, no smaller than the biggest one already in, and never a
                # fifth card of a value (R1): 4 of a value is one bit of its byte.
                self._level = [
                    (packed + _UNITS[value], value, total + value, gain + self._gains[value])
                    for packed, least, total, gain in self._level
                    for value in range(least, v)
                    if not packed & (_UNITS[value] << 2)
                ]
            by_rest: dict[int, list[tuple[int, int]]] = {}
            for packed, _, total, gain in self._level:
                by_rest.setdefault(total % v, []).append((packed, gain))
            tables.append({rest: tuple(entries) for rest, entries in by_rest.items()})
        return tables[k]

    def clear(self) -> None:
        """Forget every remembered multiset."""
        for memo in (self._drops, self._lo, self._high, self._most, self._splits, self._found):
            memo.clear()

    def bound(self, s: int, n: int, total: int) -> int:
        """At least the most cards of ``s`` (n cards adding up to total) that split into
        groups of v."""
        drop = self._drops.get(s)
        if drop is None:
            # What stays behind carries the remainder of the total: one card if one has
            # exactly that value, else two or more.
            rest = total % self.v
            drop = 0 if rest == 0 else 1 if _count(s, rest) else 2
            for positive, negative, heaviest in self._limits:
                weight = ((s * positive) >> _SUM_FIELD) & _MASK
                weight -= ((s * negative) >> _SUM_FIELD) & _MASK
                if weight > drop * heaviest:
                    drop = -(-weight // heaviest)
            self._drops[s] = drop
        return n - drop

    def most(self, s: int, n: int, total: int) -> int:
        """The most cards of ``s`` (n cards adding up to total) that split into groups of v,
        by search: up from a greedy pass while reach() confirms one more."""
        got = self._most.get(s)
        if got is None:
            got = self._lo.get(s)
            if got is None:
                got = self._greedy(s)
            ceiling = self.bound(s, n, total)
            while got < ceiling and self.reach(s, n, total, got + 1):
                got += 1
            self._most[s] = got
        return got

    def _greedy(self, s: int) -> int:
        """How many cards a quick pass takes: each top card into the first group that fits."""
        taken = 0
        while s:
            top = _top_value(s)
            guard = _GUARDS[top]
            guarded = s | guard
            for packed, size, _ in self.table[top]:
                if (guarded - packed) & guard == guard:
                    s -= packed
                    taken += size
                    break
            else:
                s &= ~(_MASK << (_FIELD * (top - 1)))
        return taken

    def reach(self, s: int, n: int, total: int, target: int) -> bool:
        """True when at least ``target`` cards of ``s`` split into groups of v."""
        if target <= self._lo.get(s, 0):
            return True
        high = self._high.get(s)
        if high is None:
            high = self.bound(s, n, total)
        return target <= high and self._reach(s, n, total, target)

    def _reach(self, s: int, n: int, total: int, target: int) -> bool:
        """reach() once the quick answers are ruled out.

        What each multiset is known to reach (``_lo``) and known not to pass (``_high``) is
        remembered, so each question is worked out once.
        """
        v = self.v
        los = self._lo
        highs = self._high
        drops = self._drops
        top = _top_value(s)
        guard = _GUARDS[top]
        guarded = s | guard
        # Either one more card of the top value goes into a group with smaller cards ...
        for packed, size, _ in self.table[top]:
            if (guarded - packed) & guard != guard:
                continue
            sub = s - packed
            need = target - size
            if need <= los.get(sub, 0):
                los[s] = target
                return True
            sub_n = n - size
            sub_high = highs.get(sub)
            if sub_high is None:
                drop = drops.get(sub)
                sub_high = self.bound(sub, sub_n, total - v) if drop is None else sub_n - drop
            if sub_high >= need and self._reach(sub, sub_n, total - v, need):
                los[s] = target
                return True
        # ... or every card of the top value left stays behind.
        left = _count(s, top)
        sub = s & ~(_MASK << (_FIELD * (top - 1)))
        if target <= los.get(sub, 0):
            los[s] = target
            return True
        sub_n = n - left
        sub_high = highs.get(sub)
        if sub_high is None:
            sub_high = self.bound(sub, sub_n, total - top * left)
        if sub_high >= target and self._reach(sub, sub_n, total - top * left, target):
            los[s] = target
            return True
        highs[s] = target - 1
        return False

    def splits(self, s: int) -> _Groups | None:
        """One way to split all of ``s`` into groups of v, or None."""
        if s == 0:
            return ()
        memo = self._splits
        if s in memo:
            return memo[s]
        top = _top_value(s)
        guard = _GUARDS[top]
        guarded = s | guard
        result: _Groups | None = None
        for packed, _, group in self.table[top]:
            if (guarded - packed) & guard == guard:
                rest = self.splits(s - packed)
                if rest is not None:
                    result = (group, *rest)
                    break
        memo[s] = result
        return result

    def candidates(self, s: int, n: int, total: int) -> tuple[int, _Candidates]:
        """The most cards of ``s`` that split into groups of v, and every sub-multiset with
        that many cards that does, each with one way to split it.

        R8 ranks hauls by count first; points and floor positions (criteria 2 and 3) only
        choose between hauls of equal count, and which one they choose depends on the floor,
        so every equally large multiset is kept. Cards of one value are alike here.
        """
        memo = self._found
        got = memo.get(s)
        if got is None:
            # A greedy pass takes some cards, so leaving the rest behind works: if that is
            # few cards, try every choice of as many or fewer, from the bound up, which is
            # quick and sure to end. Else try the two fewest, then search.
            greedy = self._greedy(s)
            self._lo[s] = max(greedy, self._lo.get(s, 0))
            fewest = n - self.bound(s, n, total)
            if n - greedy <= _MAX_LEFT_TRIED:
                got = self._by_leaving(s, n, total, fewest, n - greedy)
            elif fewest < _MAX_LEFT_TRIED:
                got = self._by_leaving(s, n, total, fewest, fewest + 1)
            if got is None:
                best = self.most(s, n, total)
                if n - best <= _MAX_LEFT_LISTED:
                    got = self._by_leaving(s, n, total, n - best, n - best)
                else:
                    got = (best, self._by_search(s, n, total, best))
                assert got is not None
            memo[s] = got
        return got

    def solve(self, s: int, n: int, total: int) -> tuple[int, _Candidates]:
        """candidates(), keeping the memory the solver uses bounded: past _MEMO_LIMIT
        entries, the answers are forgotten, and so, apart, is what the searches learnt."""
        if len(self._found) > _MEMO_LIMIT:
            self._found.clear()
        learnt = (self._drops, self._lo, self._high, self._most, self._splits)
        if sum(len(memo) for memo in learnt) > _MEMO_LIMIT:
            for memo in learnt:
                memo.clear()
        return self.candidates(s, n, total)

    def _start(self, s: int) -> int:
        """The bias less the weight of ``s`` under every limit, one limit to a field."""
        start = self._bias
        for x, (positive, negative, _) in enumerate(self._limits):
            weight = ((s * positive) >> _SUM_FIELD) & _MASK
            weight -= ((s * negative) >> _SUM_FIELD) & _MASK
            start -= weight << (_CHECK_FIELD * x)
        return start

    def _by_leaving(
        self, s: int, n: int, total: int, fewest: int, most: int
    ) -> tuple[int, _Candidates] | None:
        """candidates(), trying every choice of k cards left behind for k from ``fewest`` to
        ``most`` (at most _MAX_LEFT_LISTED); None if none of them works."""
        v = self.v
        bias = self._bias
        start = self._start(s)
        guard = _GUARDS[v - 1]
        guarded = s | guard
        rest = total % v
        for k in range(fewest, most + 1):
            found: list[tuple[int, _Groups]] = []
            for left, gain in self._leave_table(k).get(rest, ()):
                # What stays must lie on the floor and meet every limit.
                if (guarded - left) & guard == guard and (start + gain) & bias == bias:
                    groups = self.splits(s - left)
                    if groups is not None:
                        found.append((s - left, groups))
            if found:
                self._most[s] = n - k
                return n - k, tuple(found)
        # More cards than that stay behind: a tighter bound for the search.
        self._drops[s] = max(self._drops[s], most + 1)
        return None

    def _by_search(self, s: int, n: int, total: int, best: int) -> _Candidates:
        """candidates(), following every branch of the search that reaches ``best``."""
        if best == 0:
            return ((0, ()),)
        v = self.v
        top = _top_value(s)
        guard = _GUARDS[top]
        guarded = s | guard
        found: dict[int, _Groups] = {}
        for packed, size, group in self.table[top]:
            if (guarded - packed) & guard != guard:
                continue
            sub, sub_n, sub_total = s - packed, n - size, total - v
            if self.reach(sub, sub_n, sub_total, best - size):
                for taken, groups in self._searched(sub, sub_n, sub_total, best - size):
                    found.setdefault(taken + packed, (group, *groups))
                if best == n:
                    # Everything is taken: there is one largest haul.
                    break
        left = _count(s, top)
        sub = s & ~(_MASK << (_FIELD * (top - 1)))
        sub_n, sub_total = n - left, total - top * left
        if best < n and self.reach(sub, sub_n, sub_total, best):
            for taken, groups in self._searched(sub, sub_n, sub_total, best):
                found.setdefault(taken, groups)
        return tuple(found.items())

    def _searched(self, s: int, n: int, total: int, best: int) -> _Candidates:
        """_by_search() of a multiset whose most is ``best``, remembered."""
        got = self._found.get(s)
        if got is None:
            got = self._found[s] = (best, self._by_search(s, n, total, best))
        return got[1]


_SOLVERS: Final[dict[int, _Solver]] = {}


def _solver(v: int) -> _Solver:
    """The solver for groups adding up to v, made on first use."""
    solver = _SOLVERS.get(v)
    if solver is None:
        solver = _SOLVERS[v] = _Solver(v)
    return solver


@lru_cache(maxsize=_HAUL_CACHE_SIZE)
def _haul(value: int, kinds: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """best_haul on a floor read as kinds, remembered because floors come back."""
    if not 1 <= value <= 10:
        raise ValueError(f"a number card has a value from 1 to 10, not {value}")
    singles: list[tuple[int, ...]] = []
    where: dict[int, list[int]] = {}
    s = n = total = 0
    for pos, kind in enumerate(kinds):
        card_value = _KIND_VALUE[kind]
        if card_value == value:
            # R8: a lone card of the played rank is a group of its own; taking it never
            # costs anything, so it is always taken.
            singles.append((pos,))
        elif 0 < card_value < value:
            # R7: J, Q, K (no value) and cards above the played value never join a sum.
            if card_value in where:
                where[card_value].append(pos)
            else:
                where[card_value] = [pos]
            s += _UNITS[card_value]
            n += 1
            total += card_value
    if total < value:
        return tuple(singles)
    if n > _MAX_CARDS_PER_VALUE and max(map(len, where.values())) > _MAX_CARDS_PER_VALUE:
        raise ValueError("a floor holds each card at most once")
    solver = _SOLVERS.get(value) or _solver(value)
    count, candidates = solver.solve(s, n, total)
    if count == 0:
        return tuple(singles)
    if count < n:
        # Where only some cards of a value are taken, the best go first: R8 (2) more
        # points, then R8 (3) earlier on the floor (the sort keeps floor order).
        for same in where.values():
            if len(same) > 1:
                same.sort(key=lambda pos: -_KIND_POINTS[kinds[pos]])
    taken, groups = candidates[0]
    if len(candidates) > 1:
        taken, groups = _best_candidate(candidates, where, kinds)
    chosen = {
        card_value: iter(sorted(same[: _count(taken, card_value)]))
        for card_value, same in where.items()
    }
    hauled = [tuple(sorted(next(chosen[g]) for g in group)) for group in groups]
    return tuple(sorted(singles + hauled))


def _best_candidate(
    candidates: _Candidates, where: dict[int, list[int]], kinds: tuple[int, ...]
) -> tuple[int, _Groups]:
    """R8 (1) leaves a tie between multisets of values: the one whose cards carry the most
    points (2), then lie earliest on the floor (3), wins; ``where`` holds each value's
    positions best first."""
    size = len(kinds)
    # One bit per position, below the points, so that adding up weights compares sets of
    # equal size exactly as their sorted positions compare.
    weights = {
        card_value: [(_KIND_POINTS[kinds[pos]] << size) | (1 << (size - 1 - pos)) for pos in same]
        for card_value, same in where.items()
    }
    best = candidates[0]
    best_weight = -1
    for candidate in candidates:
        weight = 0
        for card_value, same in weights.items():
            weight += sum(same[: _count(candidate[0], card_value)])
        if weight > best_weight:
            best, best_weight = candidate, weight
    return best


def best_haul(value: int, floor: Sequence[Card]) -> tuple[tuple[int, ...], ...]:
    """The groups the card of this value takes (R8): each group a tuple of floor positions
    ascending; groups ordered by their first position; () when it takes nothing."""
    try:
        kinds = tuple(map(_KIND.__getitem__, floor))
    except KeyError as exc:
        raise UnknownCardError(str(exc.args[0])) from None
    return _haul(value, kinds)


def splits_into_equal_groups(values: Sequence[int], max_sum: int = 9) -> bool:
    """True when these number values split, using every one, into two or more groups of equal
    sum, each sum at most max_sum (used for the Yemeni Komi Basra, R17 (iii): e.g. A,2,7,8 ->
    1+8 = 2+7)."""
    if not values or not all(1 <= value <= 10 for value in values):
        # R17 (iii) speaks of number cards only (R7: ace 1 to 10).
        return False
    if len(values) > _MAX_COUNT:
        raise ValueError(f"at most {_MAX_COUNT} values")
    total = sum(values)
    for target in range(max(values), min(max_sum, total // 2) + 1):
        if total % target:
            continue
        # A card of exactly the target is a group of its own; the rest must split whole.
        s = sum(_unit(value) for value in values if value < target)
        if _solver(target).splits(s) is not None:
            return True
    return False


def build_tables() -> None:
    """Build now, for every played value, the tables the solver otherwise builds on first
    need (a one-time cost of some milliseconds): a server may call this as it starts."""
    for value in range(2, 11):
        solver = _solver(value)
        solver._leave_table(_MAX_LEFT_LISTED)


def clear_caches() -> None:
    """Forget every remembered floor and multiset, so that the next call solves from scratch;
    the tables each solver builds once (groups, choices of cards left behind) are kept."""
    _haul.cache_clear()
    for solver in _SOLVERS.values():
        solver.clear()
