"""R8 on large floors of repeated values (12 to 20 number cards), where the solver searches
instead of trying what stays behind: checked against an exhaustive count-vector reference."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.capture import best_haul, clear_caches
from domain.cards import CLASSIC_POINTS, DECK, VALUE, Card

BY_VALUE = {v: [c for c in DECK if VALUE[c] == v] for v in range(1, 11)}


def _parts(need: int, largest: int, counts: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every sub-multiset of ``counts`` (count of value i at index i-1) of values at most
    ``largest`` adding up to ``need``, as the counts it uses."""
    if need == 0:
        yield (0,) * len(counts)
        return
    for value in range(min(need, largest), 0, -1):
        if counts[value - 1]:
            rest = list(counts)
            rest[value - 1] -= 1
            for used in _parts(need - value, value, tuple(rest)):
                out = list(used)
                out[value - 1] += 1
                yield tuple(out)


@cache
def _splits(v: int, counts: tuple[int, ...]) -> bool:
    """Every card of ``counts`` used, in groups each adding up to v: exhaustive."""
    if not any(counts):
        return True
    top = max(i + 1 for i, c in enumerate(counts) if c)
    rest = list(counts)
    rest[top - 1] -= 1
    # The biggest card is in some group; try every way to make up the rest of that group.
    for used in _parts(v - top, top, tuple(rest)):
        if _splits(v, tuple(r - u for r, u in zip(rest, used, strict=True))):
            return True
    return False


def reference_haul(value: int, floor: Sequence[Card]) -> tuple[int, ...]:
    """R8 by enumerating every multiset of values the floor offers: the most cards that
    split into groups of the value, then (2) the most Classic points, then (3) the earliest
    positions. Cards of the played value are each a group of their own and always taken.

    Which cards of one value are taken does not change which cards of another value can be,
    so once a multiset of values is fixed, the best cards are chosen value by value: most
    points first, then earliest on the floor; that choice is best for the whole set."""
    singles = [pos for pos, card in enumerate(floor) if VALUE[card] == value]
    where: dict[int, list[int]] = {v: [] for v in range(1, value)}
    for pos, card in enumerate(floor):
        if 0 < VALUE[card] < value:
            where[VALUE[card]].append(pos)
    counts = tuple(len(where[v]) for v in range(1, value))
    best: tuple[int, int, tuple[int, ...]] = (0, 0, ())
    best_positions: tuple[int, ...] = ()
    for taken in product(*(range(c + 1) for c in counts)):
        size = sum(taken)
        if size < best[0] or sum((i + 1) * t for i, t in enumerate(taken)) % value:
            continue
        if not _splits(value, taken):
            continue
        positions: list[int] = []
        for v, k in zip(range(1, value), taken, strict=True):
            ranked = sorted(where[v], key=lambda pos: (-CLASSIC_POINTS[floor[pos]], pos))
            positions.extend(ranked[:k])
        positions.sort()
        points = sum(CLASSIC_POINTS[floor[pos]] for pos in positions)
        key = (size, points, tuple(-pos for pos in positions))
        if key > best:
            best, best_positions = key, tuple(positions)
    return tuple(sorted((*singles, *best_positions)))


def flat(haul: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Every position a haul takes, ascending."""
    return tuple(sorted(pos for group in haul for pos in group))


def assert_groups_add_up(
    value: int, floor: Sequence[Card], haul: tuple[tuple[int, ...], ...]
) -> None:
    """Each group adds up to the value and no card is taken twice (R8)."""
    for group in haul:
        assert sum(VALUE[floor[pos]] for pos in group) == value
    assert len(flat(haul)) == len(set(flat(haul)))


@pytest.mark.parametrize(
    ("value", "floor"),
    [
        # 9+A makes one group; the 9s, 8s and 7s cannot pair up among themselves.
        (10, ["9C", "9D", "9H", "9S", "8C", "8D", "8H", "8S", "7C", "7D", "7H", "7S", "AC"]),
        (10, ["AC", "AD", "AH", "AS", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "9C"]),
        (9, ["8C", "8D", "8H", "8S", "7C", "7D", "7H", "7S", "6C", "6D", "6H", "6S", "AC", "2C"]),
        (
            10,
            [
                "9C",
                "9D",
                "9H",
                "9S",
                "8C",
                "8D",
                "8H",
                "8S",
                "7C",
                "7D",
                "7H",
                "7S",
                "2C",
                "2D",
                "AH",
                "AS",
                "3C",
                "6C",
                "6D",
                "4S",
            ],
        ),
    ],
)
def test_r8_large_floors_of_repeated_values_match_the_reference(
    value: int, floor: list[Card]
) -> None:
    # Given a large floor of repeated values and empty memos
    clear_caches()
    # When the card of this value is played
    haul = best_haul(value, floor)
    # Then it takes exactly what the exhaustive reference takes, in groups that add up
    assert_groups_add_up(value, floor, haul)
    assert flat(haul) == reference_haul(value, floor)


@st.composite
def large_floors(draw: st.DrawFn) -> tuple[int, list[Card]]:
    """A played value and 12 to 20 number cards, heavy in values just below it (few of which
    pair up) with a few small ones: the floors on which the solver has to search."""
    value = draw(st.integers(min_value=7, max_value=10))
    floor: list[Card] = []
    for v in range(1, 11):
        high = v >= value - 3 and v != value
        most = 4 if high or draw(st.booleans()) else 1
        k = draw(st.integers(min_value=2 if high else 0, max_value=most))
        floor.extend(draw(st.permutations(BY_VALUE[v]))[:k])
    floor = draw(st.permutations(floor))
    extra = max(0, len(floor) - 20)
    return value, floor[extra:]


@settings(max_examples=60, deadline=None)
@given(large_floors())
def test_r8_random_large_floors_match_the_reference(
    value_and_floor: tuple[int, list[Card]],
) -> None:
    value, floor = value_and_floor
    clear_caches()
    haul = best_haul(value, floor)
    assert_groups_add_up(value, floor, haul)
    assert flat(haul) == reference_haul(value, floor)
