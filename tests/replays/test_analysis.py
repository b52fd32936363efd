"""Analysis of a recorded match: a missed Basra is found, golden files analyse, nothing leaks."""

from __future__ import annotations

import pytest

from domain.bots import EasyBot
from domain.commands import CreateMatch, PlayCard, TakeSeat
from domain.decide import decide
from domain.errors import MatchNotEndedError
from domain.events import CardPlayed, Event, MatchEnded
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.play import resolve_play
from domain.recorded import RecordedEvent
from domain.rulesets import ruleset
from domain.state import INITIAL_STATE, MatchState
from domain.strong_bot import StrongBot
from domain.views import seat_view
from replays.analysis import (
    MISTAKE_POINTS,
    analyse,
    analyse_recorded,
    analysis_at,
    analysis_line,
)
from replays.audit import audit
from replays.cursor import MatchCursor
from replays.replay_reader import load_replay
from replays.session import Session
from tests.replays.streams import GOLDEN_NAMES, golden_bytes


def _recorded(events: list[Event]) -> list[RecordedEvent]:
    return [
        RecordedEvent(seq=seq, at="2026-12-01T08:00:00.000000Z", event=e, caused_by="server")
        for seq, e in enumerate(events, 1)
    ]


def _run(state: MatchState, events: list[Event], command: object) -> MatchState:
    for event in decide(state, command):  # type: ignore[arg-type]
        events.append(event)
        state = evolve(state, event)
    return state


def _match_with_a_missed_basra(seed: str) -> tuple[list[Event], int, str] | None:
    """A match of a person (seat 0) against the easy bot, where at some turn the person holds
    exactly one card that clears the floor for a Basra and plays a card that takes nothing."""
    events: list[Event] = []
    state = _run(
        INITIAL_STATE,
        events,
        CreateMatch("m-missed", "classic", 2, secret_from_text_seed(seed), bots=(1,)),
    )
    state = _run(state, events, TakeSeat(0, "amira"))
    rules = ruleset("classic")
    missed: tuple[int, str] | None = None
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        card = EasyBot().choose(seat_view(state, seat))
        if seat == 0 and missed is None and state.stock:
            outcomes = {
                c: resolve_play(rules, state.floor, c, state.trail_pair) for c in state.hands[0]
            }
            basras = [c for c, o in outcomes.items() if o.basra]
            trails = [c for c, o in outcomes.items() if not o.captured]
            if len(basras) == 1 and trails:
                missed = (state.plays + 1, basras[0])
                card = trails[0]
        state = _run(state, events, PlayCard(seat, card))
    if missed is None:
        return None
    return events, missed[0], missed[1]


def test_a_missed_basra_is_the_costliest_kind_of_mistake_and_is_named() -> None:
    # Given a match where the person trailed a card with a Basra on the floor in hand
    found = next(
        m for m in (_match_with_a_missed_basra(f"missed-{k}") for k in range(40)) if m is not None
    )
    events, play, basra_card = found
    # When the match is analysed
    analysis = analyse(events)
    [at] = [p for p in analysis.plays if p.play == play]
    # Then the strong bot's card is the Basra, the play cost at least the Basra's worth less
    # what the trailed card can bring, it is a mistake, and the reason says a Basra was missed
    assert at.best == basra_card
    assert at.cost >= MISTAKE_POINTS
    assert at.mistake and at in analysis.mistakes
    assert at.reason is not None and at.reason.startswith("missed a Basra")
    assert "missed a Basra" in analysis_line(at)
    # And only the person's plays are analysed, never the bot's
    plays_by_person = sum(1 for e in events if isinstance(e, CardPlayed) and e.seat == 0)
    assert len(analysis.plays) == plays_by_person
    assert all(p.seat == 0 for p in analysis.plays)
    # And the analysis repeats exactly
    assert analyse(events) == analysis


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_every_golden_file_analyses_each_person_play_from_its_hand(name: str) -> None:
    # Given a golden replay file
    replay = load_replay(golden_bytes(name))
    events = [r.event for r in replay.events]
    # When it is analysed with a small budget
    analysis = analyse(events, budget=4)
    # Then each play a person chose has an analysis, the strong bot's card came from the same
    # hand, no play gains on the strong bot's card, and the mistakes are the costliest first
    state = INITIAL_STATE
    chosen = 0
    by_play = {p.play: p for p in analysis.plays}
    number = 0
    for event in events:
        if isinstance(event, CardPlayed):
            number += 1
            if not state.is_bot(event.seat) and not event.auto:
                chosen += 1
                p = by_play[number]
                assert p.played == event.card and p.seat == event.seat
                assert p.best in state.hands[event.seat]
                assert p.best_points >= p.played_points
                assert p.cost == pytest.approx(p.best_points - p.played_points, abs=0.02)
        state = evolve(state, event)
    assert len(analysis.plays) == chosen > 0
    costs = [p.cost for p in analysis.mistakes]
    assert costs == sorted(costs, reverse=True)
    assert all(p.cost >= MISTAKE_POINTS for p in analysis.mistakes)
    assert analysis.ended


def test_before_the_end_only_support_sees_an_analysis() -> None:
    # Given a person's match in play (the last event not the end)
    found = next(
        m for m in (_match_with_a_missed_basra(f"missed-{k}") for k in range(40)) if m is not None
    )
    events, play, _ = found
    ended_at = next(i for i, e in enumerate(events) if isinstance(e, MatchEnded))
    recorded = _recorded(events[:ended_at])
    # Then a seat is refused the analysis, and the replay's line for a play is not given
    with pytest.raises(MatchNotEndedError):
        analyse_recorded(recorded, support=False, budget=2)
    seq = _seq_of_play(recorded, play)
    assert analysis_at(recorded, seq, support=False, budget=2) is None
    # And support sees it, as anyone does once the match has ended
    assert analysis_at(recorded, seq, support=True, budget=2) is not None
    assert analysis_at(_recorded(events), seq, support=False, budget=2) is not None


def _seq_of_play(recorded: list[RecordedEvent], play: int) -> int:
    number = 0
    for r in recorded:
        if isinstance(r.event, CardPlayed):
            number += 1
            if number == play:
                return r.seq
    raise AssertionError("no such play")


def test_verify_re_runs_strong_picks_only_when_asked() -> None:
    # Given a strong bot's seat that played a legal card other than its pick
    events: list[Event] = []
    state = _run(
        INITIAL_STATE,
        events,
        CreateMatch(
            "m-tamper",
            "classic",
            2,
            secret_from_text_seed("tamper"),
            bots=(0, 1),
            bot_kind="strong",
            bot_budget=4,
        ),
    )
    seat = state.turn
    assert seat is not None and state.setup is not None and state.setup.key is not None
    pick = StrongBot(state.setup.key, seat, 4).choose_at(state, seat)
    other = next(c for c in state.hands[seat] if c != pick)
    _run(state, events, PlayCard(seat, other))
    recorded = _recorded(events)
    # Then a plain audit finds the play legal, and an audit of strong picks names the bot
    assert audit(recorded).divergence is None
    divergence = audit(recorded, strong_bots=True).divergence
    assert divergence is not None and divergence.kind == "bot"
    assert "strong bot" in divergence.explanation


def test_the_interactive_replay_shows_the_analysis_of_a_person_s_play() -> None:
    # Given a match a person played against the easy bot, with a missed Basra at one play
    found = next(
        m for m in (_match_with_a_missed_basra(f"missed-{k}") for k in range(40)) if m is not None
    )
    events, play, _ = found
    recorded = _recorded(events)
    seq = _seq_of_play(recorded, play)
    # When the replay stands on that play, as seat 0 once the match has ended
    ended = Session(MatchCursor(recorded), viewer=0, seq=seq).frame()
    # Then the frame says what the strong bot plays there and that a Basra was missed
    assert "analysis: play" in ended and "missed a Basra" in ended
    # And before the end the seat sees no analysis, while support does
    ended_at = next(i for i, e in enumerate(events) if isinstance(e, MatchEnded))
    cut = _recorded(events[:ended_at])
    assert "analysis:" not in Session(MatchCursor(cut), viewer=0, seq=seq).frame()
    assert "analysis:" in Session(MatchCursor(cut), seq=seq).frame()
    # And a bot's play has none
    bot_seq = next(r.seq for r in recorded if isinstance(r.event, CardPlayed) and r.event.seat)
    assert "analysis:" not in Session(MatchCursor(recorded), seq=bot_seq).frame()
