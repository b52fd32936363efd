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
    # The very groups the solver reports, in its order: recorded events never change.
    solver = tuple(tuple(floor_t[i] for i in g) for g in best_haul(VALUE[card], floor_t))
    assert groups == solver


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_r8_three_or_four_smaller_cards_take_what_the_solver_takes(data: st.DataObject) -> None:
    # Given a number card and exactly three or four smaller number cards among other cards
    card = data.draw(st.sampled_from([c for c in number_cards if VALUE[c] >= 3]))
    smaller = [c for c in number_cards if VALUE[c] < VALUE[card]]
    size = data.draw(st.sampled_from([3, 4]))
    three = data.draw(st.lists(st.sampled_from(smaller), min_size=size, max_size=size, unique=True))
    others = data.draw(
        st.lists(
            st.sampled_from([c for c in DECK if VALUE[c] == 0 or VALUE[c] >= VALUE[card]]),
            unique=True,
            max_size=5,
        )
    )
    floor = tuple(data.draw(st.permutations([*three, *[c for c in others if c != card]])))
    # When the play path works it out, then it matches the solver exactly
    captured, groups = takes(VALUE[card], RANK[card], floor)
    haul = best_haul(VALUE[card], floor)
    assert set(captured) == {floor[i] for group in haul for i in group}
    # ... by the very groups the solver reports, so recorded events never change
    assert sorted(groups) == sorted(tuple(floor[i] for i in group) for group in haul)
