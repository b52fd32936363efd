"""Record times never go backwards, and a play is judged at its arrival, on every store.

Two services on one database stand for two server processes whose plays race. The one that
loses decides again on the stream the winner moved on; it keeps its arrival for the deadline
(R25) and is recorded no earlier than the event that won, so the match still verifies.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.errors import ConflictError
from app.service import MatchService
from domain.errors import RulesRefusalError, TurnExpiredError
from domain.fairness import secret_from_text_seed
from domain.times import utc_micros, utc_text
from replays.verification import verify_stream

T0 = 1_800_000_000_000
"""A fixed server time (Unix epoch ms)."""


def _at(ms: int) -> str:
    return utc_text(ms)


def _clocked_table(service: MatchService, match_id: str, turn_seconds: int | None = None) -> str:
    """A 2-seat table: seat 0 a person, seat 1 an easy bot; round 1 dealt at T0."""
    service.clock = lambda: _at(T0)
    service.create_match(
        ruleset="classic",
        seats=2,
        bots=(1,),
        secret=secret_from_text_seed(f"record-times/{match_id}"),
        match_id=match_id,
        turn_seconds=turn_seconds,
    )
    service.take_seat(match_id, 0, "alice", token_id="t0", caused_by="seat:0/token:t0")
    return match_id


def _ats(service: MatchService, match_id: str) -> list[int]:
    return [utc_micros(r.at) for r in service.events(match_id)]


def test_a_play_that_lost_a_race_is_recorded_after_the_event_that_won(
    service: MatchService, other_service: MatchService
) -> None:
    # given two processes that both hold the match at the same seq, seat 0 on turn
    match_id = _clocked_table(service, "m-race")
    stale = other_service.load(match_id)
    assert stale.turn == 0 and stale == service.load(match_id)
    # and the first process's play is recorded at T0 + 5 s (the bot replies, seat 0 again)
    service.clock = lambda: _at(T0 + 5000)
    service.play_card(match_id, 0, stale.hands[0][0], caused_by="seat:0/token:t0")
    # when the other process's play, which read its clock earlier (T0 + 4 s), loses the race
    # on its cached state and is decided again on the stream as it now is
    other_service.clock = lambda: _at(T0 + 4000)
    recorded = other_service.play_card(
        match_id, 0, service.load(match_id).hands[0][0], caused_by="seat:0/token:t0"
    ).events
    # then it is recorded no earlier than the play that won, and the stream's times never go
    # backwards
    assert utc_micros(recorded[0].at) == utc_micros(_at(T0 + 5000))
    ats = _ats(service, match_id)
    assert ats == sorted(ats)
    # and the whole match verifies, with no inversion to excuse
    result = verify_stream(match_id, service.events(match_id))
    assert result.ok, result.divergence
    assert result.inverted_times == ()


def test_every_command_is_recorded_no_earlier_than_the_stream_s_last_event(
    service: MatchService, other_service: MatchService
) -> None:
    # given a match last recorded at T0 + 9 s by a process whose clock runs ahead
    match_id = _clocked_table(service, "m-skew")
    service.clock = lambda: _at(T0 + 9000)
    service.play_card(match_id, 0, service.load(match_id).hands[0][0])
    # when a process whose clock is behind (T0 + 1 s) plays and then the seat leaves
    other_service.clock = lambda: _at(T0 + 1000)
    other_service.play_card(match_id, 0, other_service.load(match_id).hands[0][0])
    other_service.leave(match_id, 0)
    # then nothing it recorded is earlier than what was already there
    ats = _ats(service, match_id)
    assert ats == sorted(ats)
    assert verify_stream(match_id, service.events(match_id)).ok


def test_a_play_is_judged_at_its_arrival_however_late_it_is_decided(
    service: MatchService,
) -> None:
    # given a clocked table whose seat 0 is on turn until T0 + 30 s
    match_id = _clocked_table(service, "m-arrival", turn_seconds=30)
    deadline = service.load(match_id).deadline
    assert deadline == _at(T0 + 30_000)
    # when a play that arrived 1 ms before the deadline is decided after it
    service.clock = lambda: _at(T0 + 30_500)
    recorded = service.play_card(
        match_id, 0, service.load(match_id).hands[0][0], arrived=_at(T0 + 29_999)
    ).events
    # then it lands, recorded at its arrival (nothing later was stored before it)
    assert recorded[0].at == _at(T0 + 29_999)
    # and a play that arrived at the deadline is refused however early it is decided
    state = service.load(match_id)
    assert state.turn == 0 and state.deadline is not None
    late = utc_micros(state.deadline) // 1000
    with pytest.raises(TurnExpiredError):
        service.play_card(match_id, 0, state.hands[0][0], arrived=_at(late))


def test_a_play_naming_a_turn_the_clock_already_played_is_turn_expired(
    service: MatchService,
) -> None:
    # given a clocked table whose seat 0 ran out at its deadline, and the clock played for it
    match_id = _clocked_table(service, "m-expired", turn_seconds=30)
    named = service.load(match_id)
    assert named.turn == 0 and named.deadline is not None
    service.clock = lambda: _at(T0 + 30_200)
    service.expire_turn(match_id, 0, named.deadline)
    assert service.load(match_id).events > named.events
    # when seat 0's play that names the seq of that turn arrives after the deadline
    service.clock = lambda: _at(T0 + 30_300)
    # then it is refused as turn_expired, saying when the turn ran out (not as a stale seq)
    with pytest.raises(TurnExpiredError, match=named.deadline):
        service.play_card(match_id, 0, named.hands[0][0], expected_seq=named.events)


def test_a_stale_seq_whose_turn_had_not_run_out_is_still_a_conflict(
    service: MatchService,
) -> None:
    # given a clocked table where seat 0 played in time and the turn came back to it
    match_id = _clocked_table(service, "m-stale", turn_seconds=30)
    named = service.load(match_id)
    service.clock = lambda: _at(T0 + 1000)
    service.play_card(match_id, 0, named.hands[0][0], expected_seq=named.events)
    # when a second play names the old seq, within the old turn's time
    # then it is a conflict: the seat had not run out, the client is only behind
    with pytest.raises(ConflictError):
        service.play_card(match_id, 0, named.hands[0][1], expected_seq=named.events)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    moves=st.lists(
        st.tuples(st.booleans(), st.integers(-5_000, 5_000), st.integers(0, 3)),
        min_size=1,
        max_size=30,
    )
)
def test_any_interleaving_of_two_processes_with_skewed_clocks_keeps_times_in_order(
    tmp_path_factory: pytest.TempPathFactory, moves: list[tuple[bool, int, int]]
) -> None:
    # given two processes on one SQLite file, each with its own clock and its own cached states
    db = tmp_path_factory.mktemp("interleaved") / "basra.db"
    first, second = MatchService.open(db), MatchService.open(db)
    try:
        match_id = _clocked_table(first, "m-any", turn_seconds=600)
        now = T0
        for on_second, skew, pick in moves:
            # when either process plays at its own reading of the clock (up to 5 s off), from
            # whatever state it holds, any card of the hand
            service = second if on_second else first
            now += 700
            service.clock = lambda at=now + skew: _at(at)
            state = service.cache.get(match_id) or service.load(match_id)  # maybe stale
            if state.status != "playing" or state.turn != 0:
                break
            hand = state.hands[0]
            # a card from a stale hand may be refused (already played): nothing is stored
            with contextlib.suppress(RulesRefusalError):
                service.play_card(match_id, 0, hand[pick % len(hand)], caused_by="seat:0/token:t0")
        # then the stream's record times never go backwards, and the match verifies clean
        ats = _ats(first, match_id)
        assert ats == sorted(ats)
        result = verify_stream(match_id, first.events(match_id))
        assert result.ok, result.divergence
        assert result.inverted_times == ()
    finally:
        first.close()
        second.close()
