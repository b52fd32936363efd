"""R25, R25a, R26 with time passed in: deadlines, the clock firing, leaving, waiting tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.autoplay import judge
from domain.bots import EasyBot
from domain.cards import DECK
from domain.commands import (
    AbandonTable,
    Command,
    CreateMatch,
    ExpireTurn,
    LeaveMatch,
    PlayCard,
    RecordRematch,
    TakeSeat,
)
from domain.decide import decide
from domain.errors import (
    CardNotInHandError,
    DeadlineNotReachedError,
    InvalidTurnSecondsError,
    MatchEndedError,
    MatchNotEndedError,
    MatchNotWaitingError,
    RematchExistsError,
    StaleDeadlineError,
    TurnExpiredError,
)
from domain.events import CardPlayed, MatchEnded, RematchCreated, optional
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.rulesets import RULESETS
from domain.state import INITIAL_STATE, MatchState
from domain.times import utc_micros, utc_text_us
from domain.views import seat_view, table_view

RULESET_NAMES = tuple(RULESETS)
T0 = 1_800_000_000_000_000
"""A fixed server time (Unix epoch µs): every test passes time in, none reads a clock."""
TURN = 30


def _us(text: str) -> int:
    return utc_micros(text)


def _run(state: MatchState, command: Command) -> MatchState:
    for event in judge(state, command):  # as the service: the clock's card chosen first
        state = evolve(state, event)
    return state


def _table(
    ruleset: str = "classic",
    seats: int = 2,
    *,
    turn_seconds: int | None = TURN,
    bots: tuple[int, ...] = (),
    seed: str = "clock",
    now_us: int = T0,
) -> MatchState:
    """A match whose person seats were all taken at ``now_us``: the first turn has begun."""
    created = CreateMatch(
        match_id="m-clock",
        ruleset=ruleset,
        seats=seats,
        secret=secret_from_text_seed(seed),
        bots=bots,
        bot_kind="easy",
        turn_seconds=turn_seconds,
    )
    state = _run(INITIAL_STATE, created)
    for seat in range(seats):
        if seat not in bots:
            state = _run(state, TakeSeat(seat, f"p{seat}", now_us=now_us))
    return state


def _expire(state: MatchState, now_us: int | None = None) -> MatchState:
    """The clock fires for the seat on turn, at its deadline unless told."""
    assert state.turn is not None and state.deadline is not None
    at = _us(state.deadline) if now_us is None else now_us
    return _run(state, ExpireTurn(state.turn, state.deadline, at))


def _accounted(state: MatchState) -> list[str]:
    piles = [c for pile in state.piles for c in pile]
    return sorted([*(c for h in state.hands for c in h), *state.floor, *state.stock, *piles])


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("seats", [2, 4])
def test_r25_the_first_turn_gets_its_deadline_when_the_last_seat_is_taken(
    ruleset: str, seats: int
) -> None:
    # given a table with a 30-second turn
    # when its last seat is taken at T0
    state = _table(ruleset, seats)
    # then the first floor carries the first seat's deadline, T0 + 30 s, shown in every view
    assert state.status == "playing"
    assert state.deadline == utc_text_us(T0 + TURN * 1_000_000)
    assert table_view(state).deadline == state.deadline
    assert seat_view(state, 0).turn_seconds == TURN


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_r25_two_seats_the_side_on_turn_forfeits_when_its_deadline_passes(ruleset: str) -> None:
    # given a 2-seat match on its first turn
    state = _table(ruleset, 2)
    seat = state.turn
    assert seat is not None and state.deadline is not None
    # when the clock fires at the deadline
    events = decide(state, ExpireTurn(seat, state.deadline, _us(state.deadline)))
    # then the match ends by timeout, the other side winning, naming the seat that ran out
    assert len(events) == 1
    ended = events[0]
    assert isinstance(ended, MatchEnded)
    assert (ended.reason, ended.winner, ended.seat) == ("timeout", 1 - seat % 2, seat)
    after = evolve(state, ended)
    assert after.deadline is None and after.status == "ended"
    # and a play after the timeout is refused
    with pytest.raises(MatchEndedError):
        decide(after, PlayCard((seat + 1) % 2, after.hands[(seat + 1) % 2][0], now_us=T0))


def test_r25_the_rules_play_the_card_the_expiry_names_and_refuse_one_that_names_none() -> None:
    # given a 4-seat match past its first deadline, and a card of the seat's hand that is not
    # the easy bot's pick
    state = _table("classic", 4)
    seat = state.turn
    assert seat is not None and state.deadline is not None
    picked = EasyBot().choose(seat_view(state, seat))
    other = next(c for c in state.hands[seat] if c != picked)
    late = _us(state.deadline) + 1
    # when the rules judge an expiry naming that card, and one naming none
    played = decide(state, ExpireTurn(seat, state.deadline, late, card=other))[0]
    # then they play the card named (the pick is made above them), and refuse no card at all
    assert isinstance(played, CardPlayed)
    assert (played.card, played.auto) == (other, True)
    with pytest.raises(CardNotInHandError):
        decide(state, ExpireTurn(seat, state.deadline, late))


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_r25_four_seats_the_easy_bot_plays_for_the_seat_and_the_match_goes_on(
    ruleset: str,
) -> None:
    # given a 4-seat match on its first turn
    state = _table(ruleset, 4)
    seat = state.turn
    assert seat is not None and state.deadline is not None
    wanted = EasyBot().choose(seat_view(state, seat))
    fired = _us(state.deadline) + 250_000
    # when the clock fires a little after the deadline
    events = judge(state, ExpireTurn(seat, state.deadline, fired))
    # then the seat plays the easy bot's card, marked auto, and the next seat's clock starts
    played = events[0]
    assert isinstance(played, CardPlayed)
    assert (played.seat, played.card, played.auto) == (seat, wanted, True)
    assert optional(played.deadline) == utc_text_us(fired + TURN * 1_000_000)
    after = _run(state, ExpireTurn(seat, state.deadline, fired))
    assert after.status == "playing" and after.turn == (seat + 1) % 4
    assert after.timed_out == (seat,)


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_r25a_once_every_person_has_run_out_turns_run_on_five_seconds(ruleset: str) -> None:
    # given a 4-seat match where three seats have run out in turn
    state = _table(ruleset, 4)
    for _ in range(3):
        state = _expire(state)
        assert state.deadline is not None
        assert _us(state.deadline) - _us(_prev_deadline(state)) >= 0
    assert len(state.timed_out) == 3
    # when the fourth runs out too
    before = state.deadline
    assert before is not None
    state = _expire(state)
    # then the next deadline is 5 seconds away, not 30
    assert state.deadline == utc_text_us(_us(before) + 5_000_000)
    # and when a seat plays for itself again, the turn time is back to 30 seconds
    seat = state.turn
    assert seat is not None
    now = _us(state.deadline) - 1
    state = _run(state, PlayCard(seat, state.hands[seat][0], now_us=now))
    assert seat not in state.timed_out
    assert state.deadline == utc_text_us(now + TURN * 1_000_000)


def _prev_deadline(state: MatchState) -> str:
    assert state.deadline is not None
    return state.deadline


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("seats", [2, 4])
def test_r25_a_stale_timer_does_nothing(ruleset: str, seats: int) -> None:
    # given a match whose seat on turn has a deadline
    state = _table(ruleset, seats)
    seat = state.turn
    assert seat is not None and state.deadline is not None
    late = _us(state.deadline) + 1
    # when the clock fires for another deadline, another seat, or after the seat played
    other = utc_text_us(_us(state.deadline) - 1_000_000)
    played = _run(state, PlayCard(seat, state.hands[seat][0], now_us=T0 + 1_000_000))
    # then each is refused as stale
    with pytest.raises(StaleDeadlineError):
        decide(state, ExpireTurn(seat, other, late))
    with pytest.raises(StaleDeadlineError):
        decide(state, ExpireTurn((seat + 1) % seats, state.deadline, late))
    with pytest.raises(StaleDeadlineError):
        decide(played, ExpireTurn(seat, state.deadline, late))


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("seats", [2, 4])
def test_r25_a_timer_before_its_deadline_is_refused(ruleset: str, seats: int) -> None:
    # given a seat on turn until its deadline
    state = _table(ruleset, seats)
    assert state.turn is not None and state.deadline is not None
    # when the clock fires one millisecond early, then refused; at the deadline itself, accepted
    with pytest.raises(DeadlineNotReachedError):
        decide(state, ExpireTurn(state.turn, state.deadline, _us(state.deadline) - 1))
    assert judge(state, ExpireTurn(state.turn, state.deadline, _us(state.deadline)))


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("seats", [2, 4])
def test_r25_a_play_that_races_its_deadline_lands_before_it_and_loses_at_it(
    ruleset: str, seats: int
) -> None:
    # given a seat on turn
    state = _table(ruleset, seats)
    seat = state.turn
    assert seat is not None and state.deadline is not None
    card = state.hands[seat][0]
    deadline_us = _us(state.deadline)
    # when it plays at its deadline: refused; one microsecond before: it lands
    with pytest.raises(TurnExpiredError):
        decide(state, PlayCard(seat, card, now_us=deadline_us))
    events = decide(state, PlayCard(seat, card, now_us=deadline_us - 1))
    assert isinstance(events[0], CardPlayed) and not events[0].auto


@pytest.mark.parametrize("seats", [2, 4])
def test_r25_no_deadline_without_a_clock_or_for_a_bot(seats: int) -> None:
    # given a table with no turn time, and one where a bot plays first
    clockless = _table("classic", seats, turn_seconds=None)
    # then no deadline is set
    assert clockless.deadline is None
    state = _table("classic", seats, bots=(1,))
    if state.turn == 1:
        assert state.deadline is None
    # and the play that passes the turn to the bot sets none either
    while state.turn != 0:
        turn = state.turn
        assert turn is not None
        state = _run(state, PlayCard(turn, EasyBot().choose(seat_view(state, turn)), now_us=T0))
    played = decide(state, PlayCard(0, state.hands[0][0], now_us=T0 + 1))[0]
    assert isinstance(played, CardPlayed) and optional(played.deadline) is None


@pytest.mark.parametrize("seconds", [4, 601, 0, -5])
def test_r25_a_turn_time_out_of_range_is_refused(seconds: int) -> None:
    command = CreateMatch("m", "classic", 2, secret_from_text_seed("x"), turn_seconds=seconds)
    with pytest.raises(InvalidTurnSecondsError):
        decide(INITIAL_STATE, command)


@pytest.mark.parametrize("seconds", [5, 600])
def test_r25_the_turn_time_bounds_are_accepted_and_recorded(seconds: int) -> None:
    command = CreateMatch("m", "classic", 2, secret_from_text_seed("x"), turn_seconds=seconds)
    state = _run(INITIAL_STATE, command)
    assert state.setup is not None and state.setup.turn_seconds == seconds


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("leaver", [0, 1, 2, 3])
def test_r26_leaving_at_four_seats_loses_for_the_pair_and_a_second_leave_is_refused(
    ruleset: str, leaver: int
) -> None:
    # given a 4-seat match in play
    state = _table(ruleset, 4)
    # when one seat leaves
    events = decide(state, LeaveMatch(leaver))
    # then the match ends by forfeit naming the leaver; its partner loses with it
    ended = events[0]
    assert isinstance(ended, MatchEnded)
    assert (ended.reason, ended.seat) == ("forfeit", leaver)
    assert ended.winner == 1 - leaver % 2
    after = evolve(state, ended)
    partner = (leaver + 2) % 4
    assert after.winner != partner % 2
    # and a second leave, by anyone, is refused: the match has ended
    for seat in range(4):
        with pytest.raises(MatchEndedError):
            decide(after, LeaveMatch(seat))


def test_a_waiting_table_is_closed_as_abandoned_and_only_a_waiting_one() -> None:
    # given a table with one seat taken and one empty
    state = _run(
        INITIAL_STATE, CreateMatch("m", "classic", 2, secret_from_text_seed("w"), turn_seconds=60)
    )
    state = _run(state, TakeSeat(0, "amira", now_us=T0))
    # when the server closes it
    (ended,) = decide(state, AbandonTable(T0 + 1_800_000_000))
    # then it ends abandoned, nobody winning
    assert isinstance(ended, MatchEnded)
    assert (ended.reason, ended.winner) == ("abandoned", None)
    # and a table in play, or ended, is not closed
    with pytest.raises(MatchNotWaitingError):
        decide(_table(), AbandonTable(T0))
    with pytest.raises(MatchNotWaitingError):
        decide(evolve(state, ended), AbandonTable(T0))


def test_a_rematch_is_recorded_once_and_only_after_the_end() -> None:
    state = _table()
    with pytest.raises(MatchNotEndedError):
        decide(state, RecordRematch("m-next"))
    ended = _run(state, LeaveMatch(0))
    (linked,) = decide(ended, RecordRematch("m-next"))
    assert linked == RematchCreated("m-next")
    after = evolve(ended, linked)
    assert after.rematch == "m-next" and table_view(after).rematch == "m-next"
    with pytest.raises(RematchExistsError):
        decide(after, RecordRematch("m-other"))


@settings(max_examples=25, deadline=None)
@given(
    ruleset=st.sampled_from(RULESET_NAMES),
    seats=st.sampled_from([2, 4]),
    seed=st.text(min_size=1, max_size=8),
    moves=st.lists(st.tuples(st.booleans(), st.integers(0, 40_000)), max_size=400),
)
def test_plays_and_expiries_interleaved_keep_every_card_and_an_idle_table_ends(
    ruleset: str, seats: int, seed: str, moves: list[tuple[bool, int]]
) -> None:
    # given a clocked match, and a random run of plays and clock firings at random delays
    state = _table(ruleset, seats, seed=seed)
    now = T0
    for fire, delay in moves:
        if state.status != "playing":
            break
        assert _accounted(state) == sorted(DECK)
        now += delay * 1000  # ms
        seat, deadline = state.turn, state.deadline
        assert seat is not None and deadline is not None
        if fire:
            try:
                state = _run(state, ExpireTurn(seat, deadline, now))
            except DeadlineNotReachedError:
                assert now < _us(deadline)
        else:
            try:
                state = _run(state, PlayCard(seat, state.hands[seat][-1], now_us=now))
            except TurnExpiredError:
                assert now >= _us(deadline)
    # when nobody plays any more and only the clock acts
    fired = 0
    while state.status == "playing":
        assert _accounted(state) == sorted(DECK)
        state = _expire(state)
        fired += 1
        assert fired < 5000
    # then the match reaches its end (R25a: a table everyone has left still ends)
    assert state.status == "ended"
    if seats == 2 and fired:
        assert state.end_reason == "timeout"


@pytest.mark.parametrize("seats", [2, 4])
def test_r25_a_deadline_is_the_full_turn_to_the_microsecond(seats: int) -> None:
    # given a table whose seat on turn plays at a time with a fraction of a millisecond
    state = _table("classic", seats)
    seat = state.turn
    assert seat is not None
    played_at = T0 + 5_069_328  # 5.069328 s into the turn
    assert played_at < _us(state.deadline or "")
    # when it plays then
    played = decide(state, PlayCard(seat, state.hands[seat][0], now_us=played_at))[0]
    # then the next seat's deadline is exactly the turn time later, not cut to the millisecond
    assert isinstance(played, CardPlayed)
    assert optional(played.deadline) == "2027-01-15T08:00:35.069328Z"
    assert _us(optional(played.deadline) or "") - played_at == TURN * 1_000_000


def test_r25_a_play_is_judged_at_its_arrival_and_the_next_turn_counts_from_its_record_time() -> (
    None
):
    # given a seat on turn, and a play that arrived just before its deadline but is recorded
    # a little after the stream's last event (decided again after losing a race)
    state = _table("classic", 2)
    seat = state.turn
    assert seat is not None and state.deadline is not None
    arrived = _us(state.deadline) - 1
    recorded = _us(state.deadline) + 40
    # when it is decided with both times
    played = decide(
        state, PlayCard(seat, state.hands[seat][0], now_us=recorded, arrived_us=arrived)
    )[0]
    # then it lands (it arrived in time), and the next turn runs a full turn from its record time
    assert isinstance(played, CardPlayed)
    assert optional(played.deadline) == utc_text_us(recorded + TURN * 1_000_000)
    # and a play that arrived at the deadline is refused however early it would be recorded
    with pytest.raises(TurnExpiredError):
        decide(
            state,
            PlayCard(seat, state.hands[seat][0], now_us=arrived, arrived_us=arrived + 1),
        )
