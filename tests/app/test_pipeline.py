"""The command pipeline: every command returns its outcome, observers see every outcome, and
one retry policy decides a lost race again in the service."""

from __future__ import annotations

import pytest

from app.api.edges.metrics import instrument
from app.errors import ConflictError
from app.service import MatchService
from app.service.outcome import Outcome
from domain.errors import NotYourTurnError
from domain.events import CardPlayed, MatchCreated, SeatTaken
from domain.evolve import fold
from domain.fairness import secret_from_text_seed

SECRET = secret_from_text_seed("pipeline")


def _seated(service: MatchService, match_id: str = "m-p") -> str:
    service.create_match(ruleset="classic", seats=2, bots=(1,), secret=SECRET, match_id=match_id)
    service.take_seat(match_id, 0, "alice", token_id="t0")
    return match_id


def test_a_command_returns_the_states_around_it_and_its_stored_events(
    service: MatchService,
) -> None:
    # given a seated match
    match_id = _seated(service)
    before = service.load(match_id)
    card = before.hands[0][0]

    # when seat 0 plays
    outcome = service.play_card(match_id, 0, card)

    # then the outcome holds the state decided on, the state after, and exactly what was stored
    assert outcome.kind == "play" and outcome.refused is None and outcome.code == "ok"
    assert outcome.before == before
    assert outcome.recorded and isinstance(outcome.recorded[0].event, CardPlayed)
    assert [r.seq for r in outcome.recorded] == list(range(before.events + 1, outcome.seq + 1))
    assert service.events(match_id, before.events) == outcome.events
    assert outcome.after == fold(r.event for r in service.events(match_id))
    assert outcome.after.events == outcome.seq


def test_create_and_seat_outcomes_carry_what_the_api_answers_from(service: MatchService) -> None:
    # when a two-seat table is created and its person sits down
    created = service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-c")
    seated = service.take_seat("m-c", 0, "ann")

    # then the status and setup are in the outcomes, no stream read needed
    assert isinstance(created.recorded[0].event, MatchCreated)
    assert created.after.status == "waiting" and created.after.setup is not None
    assert isinstance(seated.recorded[0].event, SeatTaken)
    assert seated.before.status == "waiting" and seated.after.status == "playing"
    assert seated.after.names[0] == "ann"


def test_observers_see_stored_and_refused_outcomes(service: MatchService) -> None:
    # given an observer on the service
    seen: list[Outcome] = []
    service.add_observer(seen.append)
    match_id = _seated(service)
    state = service.load(match_id)

    # when a play is refused, then one is stored
    with pytest.raises(NotYourTurnError):
        service.play_card(match_id, 1, state.hands[1][0])
    service.play_card(match_id, 0, state.hands[0][0])

    # then every command was observed, the refusal with its code and nothing stored
    assert [(o.kind, o.code) for o in seen] == [
        ("create", "ok"),
        ("seat", "ok"),
        ("play", "not_your_turn"),
        ("play", "ok"),
    ]
    refused = seen[2]
    assert isinstance(refused.refused, NotYourTurnError) and refused.recorded == ()
    assert refused.after == refused.before and refused.seq == state.events


def test_the_metrics_observe_outcomes_without_wrapping_the_service_or_the_store(
    service: MatchService,
) -> None:
    # when the server's metrics are installed on a service
    instrument(service)
    instrument(service)  # a second app over the same service counts nothing twice

    # then its commands and its store's calls are the classes' own methods, not wrappers
    assert service.play_card.__func__ is MatchService.play_card  # type: ignore[attr-defined]
    assert "play_card" not in vars(service) and "append" not in vars(service.store)


def test_a_play_without_seq_that_loses_a_race_is_decided_again_by_the_service(
    service: MatchService, other_service: MatchService
) -> None:
    # given a cached state here, and another process that plays for seat 0 meanwhile
    match_id = _seated(service)
    stale = service.load(match_id)
    other_service.play_card(match_id, 0, stale.hands[0][0])
    fresh = other_service.load(match_id)
    assert fresh.turn == 0 and fresh.events > stale.events

    # when seat 0 plays here without a seq, on the stale cached state
    outcome = service.play_card(match_id, 0, fresh.hands[0][0])

    # then the service decided it again on the stored state and stored it after the other's
    assert outcome.before == fresh
    assert outcome.recorded[0].seq == fresh.events + 1


def test_a_play_with_a_seq_that_loses_a_race_is_a_conflict_not_retried(
    service: MatchService, other_service: MatchService
) -> None:
    # given a state this process read, then another process's play
    match_id = _seated(service)
    stale = service.load(match_id)
    other_service.play_card(match_id, 0, stale.hands[0][0])

    # when seat 0 plays here naming the old seq, then it is a conflict and nothing is stored
    seen: list[Outcome] = []
    service.add_observer(seen.append)
    with pytest.raises(ConflictError):
        service.play_card(match_id, 0, stale.hands[0][1], expected_seq=stale.events)
    assert [(o.kind, o.code) for o in seen] == [("play", "conflict")]
    assert service.load(match_id) == other_service.load(match_id)
