"""The play path's shortcuts agree with the exact solver on every floor (R8), and one function
says what a play does for decide, previews and bots (R24)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import domain.decide
from domain.capture import best_haul
from domain.cards import DECK, RANK, VALUE
from domain.commands import PlayCard
from domain.decide import decide
from domain.events import CardPlayed
from domain.evolve import fold
from domain.play import PlayOutcome, resolve_play, takes
from domain.rulesets import RULESETS
from domain.selfplay import bots_for
from domain.views import preview_play, seat_view
from tests.domain.builders import created

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


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["classic", "egyptian", "lebanese", "yemeni", "jordanian"]),
    st.sampled_from([2, 4]),
    st.text(min_size=1, max_size=8),
)
def test_r24_a_play_decided_is_exactly_its_preview_and_the_bots_outcome(
    ruleset: str, seats: int, seed: str
) -> None:
    # Given a seeded bot match of any rule set, played through to the end
    _, state = created(ruleset, seats, seed)
    bots = bots_for(state)
    rules = RULESETS[ruleset]
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        card = bots[seat].choose(seat_view(state, seat))
        # When the seat plays, the preview and the bots' outcome are worked out first
        preview = preview_play(state, seat, card)
        outcome = resolve_play(rules, state.floor, card, state.trail_pair)
        events = decide(state, PlayCard(seat, card))
        played = events[0]
        assert isinstance(played, CardPlayed)
        # Then the event records exactly what both said the card would take and score (R24)
        said = (outcome.captured, outcome.groups, outcome.basra, outcome.sweep)
        assert (preview.captured, preview.groups, preview.basra, preview.sweep) == said
        assert (played.captured, played.groups, played.basra, played.sweep) == said
        state = fold(events, state)


def test_r24_decide_judges_a_play_by_resolve_play_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a dealt position and a resolve_play that marks its answers
    _, state = created("classic", 2, "one path")
    seat = state.turn
    assert seat is not None
    marked = PlayOutcome(("marked",), (("marked",),), 99, False)
    monkeypatch.setattr(domain.decide, "resolve_play", lambda *args: marked)
    # When the seat plays its first card
    played = decide(state, PlayCard(seat, state.hands[seat][0]))[0]
    # Then the event is what resolve_play said: there is no second implementation of a play
    assert isinstance(played, CardPlayed)
    assert (played.captured, played.groups, played.basra) == (("marked",), (("marked",),), 99)
