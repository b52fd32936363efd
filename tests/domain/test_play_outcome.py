"""The play path's shortcuts agree with the exact solver on every floor (R8)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.capture import best_haul
from domain.cards import DECK, RANK, VALUE
from domain.play import takes

number_cards = [c for c in DECK if VALUE[c] > 0]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(DECK), unique=True, max_size=12),
    st.sampled_from(number_cards),
)
def test_r8_takes_equals_the_solver_on_the_whole_floor(floor: list[str], card: str) -> None:
    # Given any floor and a number card not on it
    floor_t = tuple(c for c in floor if c != card)
    # When the play path works out the capture
    captured, groups = takes(VALUE[card], RANK[card], floor_t)
    # Then it takes exactly what the solver takes from the whole floor, by valid groups
    expected = {floor_t[i] for group in best_haul(VALUE[card], floor_t) for i in group}
    assert set(captured) == expected
    assert list(captured) == [c for c in floor_t if c in expected]  # floor order (R12)
    assert sorted(c for g in groups for c in g) == sorted(captured)
    assert all(sum(VALUE[c] for c in g) == VALUE[card] for g in groups)
    firsts = [floor_t.index(g[0]) for g in groups]
    assert firsts == sorted(firsts)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_r8_three_smaller_cards_take_the_same_pair_as_the_solver(data: st.DataObject) -> None:
    # Given a number card and exactly three smaller number cards among other floor cards
    card = data.draw(st.sampled_from([c for c in number_cards if VALUE[c] >= 3]))
    smaller = [c for c in number_cards if VALUE[c] < VALUE[card]]
    three = data.draw(st.lists(st.sampled_from(smaller), min_size=3, max_size=3, unique=True))
    others = data.draw(
        st.lists(
            st.sampled_from([c for c in DECK if VALUE[c] == 0 or VALUE[c] >= VALUE[card]]),
            unique=True,
            max_size=5,
        )
    )
    floor = tuple(data.draw(st.permutations([*three, *[c for c in others if c != card]])))
    # When the play path works it out, then it matches the solver exactly
    captured, _ = takes(VALUE[card], RANK[card], floor)
    expected = {floor[i] for group in best_haul(VALUE[card], floor) for i in group}
    assert set(captured) == expected
