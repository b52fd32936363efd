"""What a number card takes (R8): the exact largest haul, and equal-sum splits (R17 iii).

R8 asks for the most floor number cards that split into groups each adding up to the played
value; ties go to the most Classic points, then to the cards lying earliest. Only how many
cards of each value lie on the floor decides which multisets of values can be taken, so the
hard part is solved on those counts, packed into one int, and remembered per count vector;
points and positions then pick the cards.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Final, TypeAlias

from domain.capture_tables import (
    GUARDS,
    MAX_COUNT,
    UNITS,
    SumTables,
    count,
    top_value,
    unit,
    without_value,
)
from domain.cards import CLASSIC_POINTS, DECK, VALUE, Card
from domain.errors import UnknownCardError

_Groups: TypeAlias = tuple[tuple[int, ...], ...]
_Candidates: TypeAlias = tuple[tuple[int, _Groups], ...]

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


class _Solver:
    """Exact answers for groups adding up to ``v`` in packed multisets of smaller values.

    The most cards that split into groups, and every multiset of values taking that many, are
    found in one of these ways, whichever is quick:

    - by what stays behind: try every choice of k cards to leave behind, k rising from a
      lower bound, keeping those whose total is a multiple of v and that meet every linear
      limit of the tables, and split the rest; the first k with a split gives the answer and
      every split found is a candidate. Used whenever a greedy pass leaves at most
      _MAX_LEFT_TRIED cards behind, so it ends soon;
    - by search: take the biggest value left; one more card of it joins a group with
      smaller cards (each way of making up the rest of v), or every card of it left stays
      behind. reach() answers "at least t cards?" with an upper bound to prune, and the
      most is found going up from the greedy pass. The candidates then come from the
      tables (up to _MAX_LEFT_LISTED cards left behind), or from following every branch of
      the search that reaches the most.

    Everything learnt is remembered per multiset. The memos are shared by every thread, so
    each public method holds the solver's lock from start to end: no thread ever reads a
    memo another thread is half-way through filling, or sees one cleared under it.
    """

    __slots__ = (
        "_drops",
        "_found",
        "_high",
        "_lo",
        "_lock",
        "_most",
        "_splits",
        "table",
        "tables",
        "v",
    )

    def __init__(self, v: int) -> None:
        self.v = v
        self.tables = SumTables(v)
        self.table = self.tables.groups
        self._lock = threading.Lock()
        self._drops: dict[int, int] = {}
        self._lo: dict[int, int] = {}
        self._high: dict[int, int] = {}
        self._most: dict[int, int] = {}
        self._splits: dict[int, _Groups | None] = {}
        self._found: dict[int, tuple[int, _Candidates]] = {}

    # --- entry points: each holds the lock -------------------------------------------------

    def solve(self, s: int, n: int, total: int) -> tuple[int, _Candidates]:
        """The most cards of ``s`` (n cards adding up to total) that split into groups of v,
        and every sub-multiset with that many cards that does, each with one way to split it.

        The memory the solver uses stays bounded: past _MEMO_LIMIT entries, the answers are
        forgotten, and so, apart, is what the searches learnt."""
        with self._lock:
            if len(self._found) > _MEMO_LIMIT:
                self._found.clear()
            learnt = (self._drops, self._lo, self._high, self._most, self._splits)
            if sum(len(memo) for memo in learnt) > _MEMO_LIMIT:
                for memo in learnt:
                    memo.clear()
            return self._candidates(s, n, total)

    def split_whole(self, s: int) -> _Groups | None:
        """One way to split all of ``s`` into groups of v, or None."""
        with self._lock:
            return self._split(s)

    def build(self) -> None:
        """Build every table of cards left behind the solver may read."""
        with self._lock:
            self.tables.leave_table(_MAX_LEFT_LISTED)

    def clear(self) -> None:
        """Forget every remembered multiset."""
        with self._lock:
            for memo in (self._drops, self._lo, self._high, self._most, self._splits, self._found):
                memo.clear()

    # --- the work, under the lock -----------------------------------------------------------

    def _bound(self, s: int, n: int, total: int) -> int:
        """At least the most cards of ``s`` (n cards adding up to total) that split into
        groups of v."""
        drop = self._drops.get(s)
        if drop is None:
            drop = self._drops[s] = self.tables.least_left(s, total)
        return n - drop

    def _most_taken(self, s: int, n: int, total: int) -> int:
        """The most cards of ``s`` that split into groups of v, by search: up from a greedy
        pass while _reach_at_least() confirms one more."""
        got = self._most.get(s)
        if got is None:
            got = self._lo.get(s)
            if got is None:
                got = self.tables.greedy(s)
            ceiling = self._bound(s, n, total)
            while got < ceiling and self._reach_at_least(s, n, total, got + 1):
                got += 1
            self._most[s] = got
        return got

    def _reach_at_least(self, s: int, n: int, total: int, target: int) -> bool:
        """True when at least ``target`` cards of ``s`` split into groups of v."""
        if target <= self._lo.get(s, 0):
            return True
        high = self._high.get(s)
        if high is None:
            high = self._bound(s, n, total)
        return target <= high and self._reach(s, n, total, target)

    def _reach(self, s: int, n: int, total: int, target: int) -> bool:
        """_reach_at_least() once the quick answers are ruled out.

        What each multiset is known to reach (``_lo``) and known not to pass (``_high``) is
        remembered, so each question is worked out once.
        """
        v = self.v
        los = self._lo
        highs = self._high
        drops = self._drops
        top = top_value(s)
        guard = GUARDS[top]
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
                sub_high = self._bound(sub, sub_n, total - v) if drop is None else sub_n - drop
            if sub_high >= need and self._reach(sub, sub_n, total - v, need):
                los[s] = target
                return True
        # ... or every card of the top value left stays behind.
        left = count(s, top)
        sub = without_value(s, top)
        if target <= los.get(sub, 0):
            los[s] = target
            return True
        sub_n = n - left
        sub_high = highs.get(sub)
        if sub_high is None:
            sub_high = self._bound(sub, sub_n, total - top * left)
        if sub_high >= target and self._reach(sub, sub_n, total - top * left, target):
            los[s] = target
            return True
        highs[s] = target - 1
        return False

    def _split(self, s: int) -> _Groups | None:
        """One way to split all of ``s`` into groups of v, or None; remembered."""
        if s == 0:
            return ()
        memo = self._splits
        if s in memo:
            return memo[s]
        top = top_value(s)
        guard = GUARDS[top]
        guarded = s | guard
        result: _Groups | None = None
        for packed, _, group in self.table[top]:
            if (guarded - packed) & guard == guard:
                rest = self._split(s - packed)
                if rest is not None:
                    result = (group, *rest)
                    break
        memo[s] = result
        return result

    def _candidates(self, s: int, n: int, total: int) -> tuple[int, _Candidates]:
        """solve() without the lock or the memory bound.

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
            greedy = self.tables.greedy(s)
            self._lo[s] = max(greedy, self._lo.get(s, 0))
            fewest = n - self._bound(s, n, total)
            if n - greedy <= _MAX_LEFT_TRIED:
                got = self._by_leaving(s, n, total, fewest, n - greedy)
            elif fewest < _MAX_LEFT_TRIED:
                got = self._by_leaving(s, n, total, fewest, fewest + 1)
            if got is None:
                best = self._most_taken(s, n, total)
                if n - best <= _MAX_LEFT_LISTED:
                    got = self._by_leaving(s, n, total, n - best, n - best)
                else:
                    got = (best, self._by_search(s, n, total, best))
                assert got is not None
            memo[s] = got
        return got

    def _by_leaving(
        self, s: int, n: int, total: int, fewest: int, most: int
    ) -> tuple[int, _Candidates] | None:
        """_candidates(), trying every choice of k cards left behind for k from ``fewest``
        to ``most`` (at most _MAX_LEFT_LISTED); None if none of them works."""
        v = self.v
        tables = self.tables
        bias = tables.bias
        start = tables.start(s)
        guard = GUARDS[v - 1]
        guarded = s | guard
        rest = total % v
        for k in range(fewest, most + 1):
            found: list[tuple[int, _Groups]] = []
            for left, gain in tables.leave_table(k).get(rest, ()):
                # What stays must lie on the floor and meet every limit.
                if (guarded - left) & guard == guard and (start + gain) & bias == bias:
                    groups = self._split(s - left)
                    if groups is not None:
                        found.append((s - left, groups))
            if found:
                self._most[s] = n - k
                return n - k, tuple(found)
        # More cards than that stay behind: a tighter bound for the search.
        self._drops[s] = max(self._drops[s], most + 1)
        return None

    def _by_search(self, s: int, n: int, total: int, best: int) -> _Candidates:
        """_candidates(), following every branch of the search that reaches ``best``."""
        if best == 0:
            return ((0, ()),)
        v = self.v
        top = top_value(s)
        guard = GUARDS[top]
        guarded = s | guard
        found: dict[int, _Groups] = {}
        for packed, size, group in self.table[top]:
            if (guarded - packed) & guard != guard:
                continue
            sub, sub_n, sub_total = s - packed, n - size, total - v
            if self._reach_at_least(sub, sub_n, sub_total, best - size):
                for taken, groups in self._searched(sub, sub_n, sub_total, best - size):
                    found.setdefault(taken + packed, (group, *groups))
                if best == n:
                    # Everything is taken: there is one largest haul.
                    break
        left = count(s, top)
        sub = without_value(s, top)
        sub_n, sub_total = n - left, total - top * left
        if best < n and self._reach_at_least(sub, sub_n, sub_total, best):
            for taken, groups in self._searched(sub, sub_n, sub_total, best):
                found.setdefault(taken, groups)
        return tuple(found.items())

    def _searched(self, s: int, n: int, total: int, best: int) -> _Candidates:
        """_by_search() of a multiset whose most is ``best``, remembered."""
        got = self._found.get(s)
        if got is None:
            got = self._found[s] = (best, self._by_search(s, n, total, best))
        return got[1]


_SOLVERS: Final[tuple[_Solver, ...]] = tuple(_Solver(v) for v in range(11))
"""The solver for groups adding up to each value 0..10, made at import: only their memos
and tables of cards left behind change later, each under its solver's lock."""

_LARGER: Final[dict[int, _Solver]] = {}
"""Solvers for sums above 10 (equal-sum splits with a larger max_sum), made on first need."""
_LARGER_LOCK: Final = threading.Lock()


def _solver(v: int) -> _Solver:
    """The solver for groups adding up to v; one per value for the whole process."""
    if v < len(_SOLVERS):
        return _SOLVERS[v]
    with _LARGER_LOCK:
        solver = _LARGER.get(v)
        if solver is None:
            solver = _LARGER[v] = _Solver(v)
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
            s += UNITS[card_value]
            n += 1
            total += card_value
    if total < value:
        return tuple(singles)
    if n > _MAX_CARDS_PER_VALUE and max(map(len, where.values())) > _MAX_CARDS_PER_VALUE:
        raise ValueError("a floor holds each card at most once")
    count_taken, candidates = _SOLVERS[value].solve(s, n, total)
    if count_taken == 0:
        return tuple(singles)
    if count_taken < n:
        # Where only some cards of a value are taken, the best go first: R8 (2) more
        # points, then R8 (3) earlier on the floor (the sort keeps floor order).
        for same in where.values():
            if len(same) > 1:
                same.sort(key=lambda pos: -_KIND_POINTS[kinds[pos]])
    taken, groups = candidates[0]
    if len(candidates) > 1:
        taken, groups = _best_candidate(candidates, where, kinds)
    chosen = {
        card_value: iter(sorted(same[: count(taken, card_value)]))
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
            weight += sum(same[: count(candidate[0], card_value)])
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
    if len(values) > MAX_COUNT:
        raise ValueError(f"at most {MAX_COUNT} values")
    total = sum(values)
    for target in range(max(values), min(max_sum, total // 2) + 1):
        if total % target:
            continue
        # A card of exactly the target is a group of its own; the rest must split whole.
        s = sum(unit(value) for value in values if value < target)
        if _solver(target).split_whole(s) is not None:
            return True
    return False


def build_tables() -> None:
    """Build now, for every played value, the tables the solver otherwise builds on first
    need (a one-time cost of some milliseconds): a server may call this as it starts."""
    for solver in _SOLVERS[2:]:
        solver.build()


def clear_caches() -> None:
    """Forget every remembered floor and multiset, so that the next call solves from scratch;
    the tables each solver builds once (groups, choices of cards left behind) are kept."""
    _haul.cache_clear()
    with _LARGER_LOCK:
        larger = tuple(_LARGER.values())
    for solver in (*_SOLVERS, *larger):
        solver.clear()
