"""R8: what a number card takes; R17 (iii): equal-sum splits. Checked against brute force."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.capture import best_haul, build_tables, clear_caches, splits_into_equal_groups
from domain.cards import CLASSIC_POINTS, DECK, VALUE, Card
from domain.errors import UnknownCardError

NUMBER_CARDS = tuple(c for c in DECK if VALUE[c] > 0)


# --- brute force reference -------------------------------------------------------------


def _splits_into_sums(values: Sequence[int], target: int) -> bool:
    """Every value used, in groups each adding up to target: exhaustive search."""
    if not values:
        return True
    first, rest = values[0], list(values[1:])
    need = target - first
    if need < 0:
        return False
    if need == 0:
        return _splits_into_sums(rest, target)
    for size in range(1, len(rest) + 1):
        for picked in combinations(range(len(rest)), size):
            if sum(rest[i] for i in picked) == need:
                left = [rest[i] for i in range(len(rest)) if i not in picked]
                if _splits_into_sums(left, target):
                    return True
    return False


def brute_haul(value: int, floor: Sequence[Card]) -> tuple[int, ...]:
    """R8 by enumeration: every set of usable floor cards that splits into groups of the
    value, best by (1) most cards, (2) most Classic points, (3) earliest sorted positions."""
    usable = [pos for pos, card in enumerate(floor) if 0 < VALUE[card] <= value]
    best: tuple[int, ...] = ()
    best_key: tuple[int, int, tuple[int, ...]] = (0, 0, ())
    for size in range(1, len(usable) + 1):
        for subset in combinations(usable, size):
            values = [VALUE[floor[pos]] for pos in subset]
            if sum(values) % value or not _splits_into_sums(values, value):
                continue
            points = sum(CLASSIC_POINTS[floor[pos]] for pos in subset)
            # Same size only is ever compared lexicographically: negated positions, larger wins.
            key = (size, points, tuple(-pos for pos in subset))
            if key > best_key:
                best, best_key = subset, key
    return best


def brute_splits(values: Sequence[int], max_sum: int) -> bool:
    """R17 (iii) by enumeration: some common sum at most max_sum, two or more groups."""
    if not values or any(not 1 <= v <= 10 for v in values):
        return False
    total = sum(values)
    return any(
        total % target == 0
        and total // target >= 2
        and _splits_into_sums(sorted(values, reverse=True), target)
        for target in range(1, max_sum + 1)
    )


def flat(haul: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Every position a haul takes, ascending."""
    return tuple(sorted(pos for group in haul for pos in group))


def assert_well_formed(
    value: int, floor: Sequence[Card], haul: tuple[tuple[int, ...], ...]
) -> None:
    """Each group adds up to the value (R8), ascending, disjoint, ordered by first position."""
    for group in haul:
        assert group == tuple(sorted(group))
        assert sum(VALUE[floor[pos]] for pos in group) == value
        assert all(VALUE[floor[pos]] > 0 for pos in group)  # R7: never a J, Q or K
    assert len(flat(haul)) == len(set(flat(haul)))
    assert [group[0] for group in haul] == sorted(group[0] for group in haul)


# --- worked examples ----------------------------------------------------------------------


def test_r8_nine_takes_rank_and_two_sums_leaving_king() -> None:
    floor = ["9C", "5D", "4H", "KS", "6C", "3D"]
    assert best_haul(9, floor) == ((0,), (1, 2), (4, 5))


def test_r8_ten_takes_rank_and_pair_leaving_three() -> None:
    assert best_haul(10, ["4C", "6D", "10H", "3S"]) == ((0, 1), (2,))


def test_r8_takes_nothing_from_an_empty_floor() -> None:
    assert best_haul(7, []) == ()


def test_r8_takes_nothing_when_no_sum_works() -> None:
    assert best_haul(10, ["4C", "3D", "KH", "JS"]) == ()


def test_r8_lone_cards_of_the_played_rank_are_each_a_group() -> None:
    assert best_haul(5, ["5C", "QD", "5H"]) == ((0,), (2,))


# --- the three tie-breaks -----------------------------------------------------------------


def test_r8_rule_1_most_cards_beats_more_points_and_earlier_cards() -> None:
    # 6+2+A would take 3 cards, the ace's point and the three first places;
    # 6+3 and 2+7 take 4 cards, and most cards comes first.
    floor = ["6S", "2D", "AD", "3H", "7S"]
    assert best_haul(9, floor) == ((0, 3), (1, 4))


def test_r8_rule_2_more_points_beats_earlier_cards() -> None:
    # 2D+3D lie first, but 3D+2C carries the 2 points of the two of clubs (R18a).
    assert best_haul(5, ["2D", "3D", "2C"]) == ((1, 2),)


def test_r8_rule_2_aces_count_their_point() -> None:
    # 3+3+4 and 4+5+A both take three cards; the ace's point (R18a) beats lying first.
    assert best_haul(10, ["3D", "3H", "4C", "5S", "AC"]) == ((2, 3, 4),)


def test_r8_rule_3_earliest_cards_break_the_last_tie() -> None:
    # 7D+A and 7H+A: same count, same points; the seven lying first is taken.
    assert best_haul(8, ["7D", "AS", "7H"]) == ((0, 1),)


# --- what never joins a sum ---------------------------------------------------------------


def test_r7_jacks_queens_and_kings_never_join_a_sum() -> None:
    floor = ["QH", "KS", "JD", "5C", "5D", "QC"]
    assert best_haul(10, floor) == ((3, 4),)


def test_r7_an_ace_counts_one() -> None:
    assert best_haul(3, ["AC", "2D"]) == ((0, 1),)
    assert best_haul(1, ["AC", "2C", "AD"]) == ((0,), (2,))
    assert best_haul(4, ["AC", "AD", "AH", "AS"]) == ((0, 1, 2, 3),)


def test_r8_cards_above_the_played_value_are_never_taken() -> None:
    assert best_haul(4, ["5C", "AC", "3D", "9H"]) == ((1, 2),)


# --- every floor: against the brute force ------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(DECK), unique=True, max_size=10))
def test_r8_matches_brute_force_on_random_floors(floor: list[Card]) -> None:
    for value in range(1, 11):
        haul = best_haul(value, floor)
        assert_well_formed(value, floor, haul)
        assert flat(haul) == brute_haul(value, floor)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(NUMBER_CARDS), unique=True, max_size=10))
def test_r8_matches_brute_force_on_floors_of_number_cards(floor: list[Card]) -> None:
    for value in range(2, 11):
        haul = best_haul(value, floor)
        assert_well_formed(value, floor, haul)
        assert flat(haul) == brute_haul(value, floor)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=10).flatmap(
        lambda value: st.tuples(
            st.just(value),
            st.lists(
                st.sampled_from([c for c in NUMBER_CARDS if VALUE[c] < value]),
                unique=True,
                max_size=11,
            ),
        )
    )
)
def test_r8_matches_brute_force_when_every_card_can_join_a_sum(
    value_and_floor: tuple[int, list[Card]],
) -> None:
    value, floor = value_and_floor
    haul = best_haul(value, floor)
    assert_well_formed(value, floor, haul)
    assert flat(haul) == brute_haul(value, floor)


def test_r8_building_the_tables_up_front_changes_no_answer() -> None:
    floor = ["4C", "4D", "6H", "6S", "2C", "8D", "3H", "7C", "AS", "9D", "5C", "5H"]
    clear_caches()
    before = [best_haul(value, floor) for value in range(1, 11)]
    build_tables()
    clear_caches()
    assert [best_haul(value, floor) for value in range(1, 11)] == before


def test_r8_answers_do_not_depend_on_what_was_asked_before() -> None:
    floor = ["6S", "2D", "AD", "3H", "7S", "4C", "5H", "8D", "2C", "AH"]
    clear_caches()
    first = [best_haul(value, floor) for value in range(1, 11)]
    for other in (floor[::-1], floor[1:], floor[:-2]):
        for value in range(1, 11):
            best_haul(value, other)
    assert [best_haul(value, floor) for value in range(1, 11)] == first
    clear_caches()
    assert [best_haul(value, floor) for value in reversed(range(1, 11))] == first[::-1]


@pytest.mark.parametrize("value", range(1, 11))
def test_r8_the_39_card_floor_is_taken_whole_up_to_the_played_value(value: int) -> None:
    # Every number card but the one played (R7): 1+9, 2+8, 3+7, 4+6, 5+5 and their like
    # pair up, so every card of the played value or less is taken and no other.
    played = next(c for c in NUMBER_CARDS if VALUE[c] == value)
    floor = [c for c in NUMBER_CARDS if c != played]
    clear_caches()
    haul = best_haul(value, floor)
    assert_well_formed(value, floor, haul)
    assert flat(haul) == tuple(pos for pos, card in enumerate(floor) if VALUE[card] <= value)
    assert len(flat(haul)) == 4 * value - 1


# --- refusals -----------------------------------------------------------------------------


def test_an_unknown_card_on_the_floor_is_refused() -> None:
    with pytest.raises(UnknownCardError):
        best_haul(5, ["5C", "XX"])


@pytest.mark.parametrize("value", [0, 11, -3])
def test_only_a_number_card_value_is_solved(value: int) -> None:
    with pytest.raises(ValueError):
        best_haul(value, ["5C"])


# --- R17 (iii): equal-sum splits ---------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1, 2, 7, 8], True),  # 1+8 = 2+7
        ([5, 5], True),
        ([4, 4, 4], True),
        ([3, 7], False),  # one group of 10 only
        ([9], False),  # needs two groups
        ([10, 10], False),  # each sum must be at most 9
        ([10, 5, 5], False),
        ([1, 1, 1, 1, 2, 2], True),  # 2+2 = 1+1+1+1, or 1+2 three times
        ([6, 3, 2, 1], True),  # 6 = 3+2+1
        ([8, 1, 4, 4], False),  # 8+1 = 9 but 4+4 = 8
        ([], False),
        ([0, 5, 5], False),  # a card with no value is not a number card
    ],
)
def test_r17_iii_splits_into_equal_groups(values: list[int], expected: bool) -> None:
    assert splits_into_equal_groups(values) is expected


def test_r17_iii_max_sum_bounds_each_group() -> None:
    assert splits_into_equal_groups([10, 10], max_sum=10) is True
    assert splits_into_equal_groups([6, 6, 4, 8], max_sum=9) is False
    assert splits_into_equal_groups([6, 6, 4, 8], max_sum=12) is True


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=10), max_size=8),
    st.integers(min_value=1, max_value=12),
)
def test_r17_iii_matches_brute_force(values: list[int], max_sum: int) -> None:
    assert splits_into_equal_groups(values, max_sum) is brute_splits(values, max_sum)
