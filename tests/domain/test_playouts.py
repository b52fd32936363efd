"""Hypothesis playouts of whole matches: every rule set, 2 and 4 seats, random and easy bots."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.cards import CLASSIC_POINTS, DECK
from domain.commands import CreateMatch
from domain.events import (
    EVENT_DECODER,
    EVENT_ENCODER,
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    MatchEnded,
    RoundScored,
    RoundStarted,
)
from domain.evolve import evolve, fold
from domain.fairness import secret_from_text_seed
from domain.redaction import redact_event
from domain.rulesets import RULESETS
from domain.selfplay import play_match
from domain.state import INITIAL_STATE, MatchState

CARD_PATTERN = re.compile(r'"((?:10|[2-9AJQK])[CDHS])"')

matches = st.tuples(
    st.sampled_from(sorted(RULESETS)),
    st.sampled_from([2, 4]),
    st.sampled_from(["random", "easy"]),
    st.text(min_size=0, max_size=12),
)


def run(ruleset: str, seats: int, kind: str, seed: str) -> tuple[list[Event], MatchState]:
    return play_match(
        CreateMatch(
            "m-prop",
            ruleset,
            seats,
            secret_from_text_seed(seed),
            bots=tuple(range(seats)),
            bot_kind=kind,
        )
    )


PLAYOUT = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PLAYOUT
@given(matches)
def test_every_card_is_dealt_once_a_round_and_ends_in_exactly_one_pile(
    m: tuple[str, int, str, str],
) -> None:
    ruleset, seats, kind, seed = m
    events, state = run(ruleset, seats, kind, seed)
    assert state.status == "ended"
    dealt: Counter[str] = Counter()
    piles: list[list[str]] = [[], []]
    for e in events:
        if isinstance(e, CardsDealt):
            for hand in e.hands:
                assert hand is not None
                dealt.update(hand)
        elif isinstance(e, FloorDealt):
            dealt.update(e.cards)
        elif isinstance(e, CardPlayed) and e.captured:
            piles[e.seat % 2].extend((*e.captured, e.card))
        elif isinstance(e, RoundScored):
            # R4, R5: every card dealt exactly once in the round
            assert sorted(dealt.elements()) == sorted(DECK)
            if e.last_pickup is not None:
                piles[e.last_pickup.side].extend(e.last_pickup.cards)
            # R19: every card ends in exactly one pile, and the counts are the piles
            assert sorted(piles[0] + piles[1]) == sorted(DECK)
            assert [s.cards for s in e.sides] == [len(piles[0]), len(piles[1])]
            # R18a: point cards add up to 13 (0 in Egyptian)
            expected_points = 0 if ruleset == "egyptian" else 13
            assert sum(s.points for s in e.sides) == expected_points
            for side in (0, 1):
                if ruleset != "egyptian":
                    assert e.sides[side].points == sum(CLASSIC_POINTS[c] for c in piles[side])
            dealt.clear()
            piles = [[], []]


@PLAYOUT
@given(matches)
def test_round_totals_add_up_and_basras_are_the_plays_basras(m: tuple[str, int, str, str]) -> None:
    ruleset, seats, kind, seed = m
    events, state = run(ruleset, seats, kind, seed)
    totals = [0, 0]
    basra = [0, 0]
    for e in events:
        if isinstance(e, CardPlayed):
            basra[e.seat % 2] += e.basra
            if e.basra:
                assert e.captured  # a Basra takes cards
        elif isinstance(e, RoundScored):
            for side in (0, 1):
                s = e.sides[side]
                assert s.total == s.majority + s.points + s.basra
                assert s.basra == basra[side]
                totals[side] += s.total
            assert list(e.totals) == totals
            basra = [0, 0]
        elif isinstance(e, MatchEnded):
            assert list(e.totals) == totals
    assert list(state.totals) == totals


@PLAYOUT
@given(matches)
def test_folded_states_match_facts_counted_straight_from_the_events(
    m: tuple[str, int, str, str],
) -> None:
    # Given a whole match's events
    ruleset, seats, kind, seed = m
    events, final = run(ruleset, seats, kind, seed)
    # When the piles, their point cards, the Basras, the floor size, the cards in hand and the
    # plays are counted from the events alone (R4, R5, R12, R19)
    piles: list[list[str]] = [[], []]
    basras = [0, 0]
    floor_size = in_hands = plays = 0
    totals: tuple[int, ...] = (0, 0)
    state = INITIAL_STATE
    for event in events:
        if isinstance(event, RoundStarted):
            piles, basras, floor_size, in_hands = [[], []], [0, 0], 0, 0
        elif isinstance(event, CardsDealt):
            in_hands = sum(len(h or ()) for h in event.hands)
        elif isinstance(event, FloorDealt):
            floor_size = len(event.cards)
        elif isinstance(event, CardPlayed):
            plays += 1
            in_hands -= 1
            if event.captured:
                piles[event.seat % 2] += [*event.captured, event.card]
                basras[event.seat % 2] += event.basra
                floor_size -= len(event.captured)
            else:
                floor_size += 1
        elif isinstance(event, RoundScored):
            if event.last_pickup is not None:
                piles[event.last_pickup.side] += event.last_pickup.cards
            floor_size = 0
            totals = event.totals
        state = evolve(state, event)
        assert EVENT_DECODER.decode(EVENT_ENCODER.encode(event)) == event
        # Then the state folded so far agrees with every count
        assert state.pile_cards == tuple(len(p) for p in piles)
        assert state.pile_points == tuple(sum(CLASSIC_POINTS[c] for c in p) for p in piles)
        assert state.pile_basra == tuple(basras)
        assert len(state.floor) == floor_size
        assert state.in_hands == in_hands == sum(len(h) for h in state.hands)
        assert state.plays == plays
        assert state.totals == totals
    assert fold(events) == state == final
    assert final.events == len(events)


_SELF_PLAY = """
import sys
sys.path.insert(0, sys.argv[1])
from domain.commands import CreateMatch
from domain.events import EVENT_ENCODER
from domain.fairness import secret_from_text_seed
from domain.selfplay import play_match
TABLES = (("classic", 2, "easy"), ("yemeni", 4, "random"), ("lebanese", 4, "easy"))
for ruleset, seats, kind in TABLES:
    command = CreateMatch(
        "m-det", ruleset, seats, secret_from_text_seed("det/" + ruleset),
        bots=tuple(range(seats)), bot_kind=kind,
    )
    sys.stdout.buffer.write(EVENT_ENCODER.encode(play_match(command)[0]) + b"\\n")
"""


def test_r6_the_same_seed_gives_the_same_bytes_in_processes_with_different_hash_seeds() -> None:
    # Given seeded self-play matches run in two fresh interpreters whose string hashing
    # (and so the iteration order of sets and dicts of cards) differs
    root = str(Path(__file__).resolve().parents[2])
    outputs = [
        subprocess.run(
            [sys.executable, "-c", _SELF_PLAY, root],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            timeout=120,
        ).stdout
        for hash_seed in ("1", "2")
    ]
    # Then their encoded event streams are the same, byte for byte
    assert outputs[0].count(b"\n") == 3
    assert outputs[0] == outputs[1]


@PLAYOUT
@given(matches)
def test_r23_a_redacted_stream_never_holds_a_card_the_seat_could_not_see(
    m: tuple[str, int, str, str],
) -> None:
    ruleset, seats, kind, seed = m
    events, _ = run(ruleset, seats, kind, seed)
    secret = secret_from_text_seed(seed).hex()
    for viewer in range(seats):
        seen: set[str] = set()  # face-up cards and the viewer's own hands so far
        for e in events:
            if isinstance(e, CardsDealt):
                own = e.hands[viewer]
                assert own is not None
                seen.update(own)
            if isinstance(e, FloorDealt):
                seen.update(e.cards)
                seen.update(e.reburied)
            if isinstance(e, CardPlayed):
                seen.add(e.card)
            body = EVENT_ENCODER.encode(redact_event(e, viewer, revealed=False)).decode()
            leaked = set(CARD_PATTERN.findall(body)) - seen
            assert not leaked, f"{type(e).__name__} shows {leaked} to seat {viewer}"
            if not isinstance(e, MatchEnded):
                assert secret not in body
