"""Above the rules (domain/autoplay.py): the clock's card for a seat whose turn ran out (R25),
and the one loop in which bots play their turns (R13), for self-play and the server alike."""

from __future__ import annotations

import msgspec

from domain.autoplay import clock_card, judge, play_bot_turns, with_clock_card
from domain.bots import EasyBot
from domain.commands import CreateMatch, ExpireTurn, PlayCard, TakeSeat
from domain.decide import decide
from domain.events import CardPlayed, Event
from domain.evolve import evolve, fold
from domain.fairness import secret_from_text_seed
from domain.selfplay import play_match
from domain.state import INITIAL_STATE, MatchState
from domain.times import utc_micros
from domain.views import seat_view

T0 = 1_800_000_000_000_000


def _clocked(seats: int, bots: tuple[int, ...] = ()) -> MatchState:
    """A table with a 30-second clock, every person seat taken at T0."""
    command = CreateMatch(
        match_id="m-clock",
        ruleset="classic",
        seats=seats,
        secret=secret_from_text_seed("autoplay"),
        bots=bots,
        turn_seconds=30,
        now_us=T0,
    )
    state = fold(decide(INITIAL_STATE, command))
    for seat in range(seats):
        if seat not in bots:
            state = fold(decide(state, TakeSeat(seat, f"p{seat}", now_us=T0)), state)
    return state


def test_r25_the_clock_card_is_the_easy_bots_pick_from_the_seats_own_view() -> None:
    # given a four-seat match whose seat on turn has run out
    state = _clocked(4)
    seat, deadline = state.turn, state.deadline
    assert seat is not None and deadline is not None
    # when the clock's card is chosen for the expiry
    command = with_clock_card(state, ExpireTurn(seat, deadline, utc_micros(deadline)))
    # then the expiry names the easy bot's pick, and the rules play exactly that card
    assert isinstance(command, ExpireTurn)
    assert command.card == clock_card(state, seat) == EasyBot().choose(seat_view(state, seat))
    played = judge(state, command)[0]
    assert isinstance(played, CardPlayed) and (played.card, played.auto) == (command.card, True)


def test_r25_at_two_seats_the_clock_names_no_card_and_the_side_forfeits() -> None:
    # given a two-seat match past its deadline
    state = _clocked(2)
    seat, deadline = state.turn, state.deadline
    assert seat is not None and deadline is not None
    expiry = ExpireTurn(seat, deadline, utc_micros(deadline))
    # when the clock's card is chosen, then none is: a two-seat timeout plays no card
    assert with_clock_card(state, expiry) is expiry
    assert judge(state, expiry) == decide(state, expiry)


def test_r13_bots_play_until_a_person_is_on_turn_each_event_told_with_its_seat() -> None:
    # given a four-seat table where seats 1-3 are bots and the person at seat 0 plays
    state = _clocked(4, bots=(1, 2, 3))
    state = play_bot_turns(state, now_us=T0)
    assert state.turn == 0
    card = state.hands[0][0]
    for event in decide(state, PlayCard(0, card, now_us=T0)):
        state = evolve(state, event)
    told: list[tuple[Event, int]] = []
    # when the bots take their turns
    after = play_bot_turns(state, now_us=T0, on_event=lambda e, s: told.append((e, s)))
    # then they played until the person was on turn again, each play told with its bot's seat,
    # and the person's clock started from the time given (R25)
    assert after.turn == 0 or after.status != "playing"
    plays = [(e, s) for e, s in told if isinstance(e, CardPlayed)]
    assert [e.seat for e, _ in plays] == [s for _, s in plays] == [1, 2, 3]
    assert after.deadline is None or utc_micros(after.deadline) == T0 + 30_000_000
    assert fold((e for e, _ in told), state) == after


def test_self_play_is_the_same_loop_with_the_bots_made_up_front() -> None:
    # given an all-bot match played by self-play
    command = CreateMatch(
        match_id="m-self",
        ruleset="classic",
        seats=2,
        secret=secret_from_text_seed("selfplay"),
        bots=(0, 1),
        bot_kind="random",
    )
    events, final = play_match(command)
    # when the same table is played by the loop with bots made as each comes on turn
    opened = list(decide(INITIAL_STATE, command))
    again: list[Event] = list(opened)
    state = play_bot_turns(fold(opened), on_event=lambda e, _s: again.append(e))
    # then the streams are the same, byte for byte
    encode = msgspec.json.encode
    assert [encode(e) for e in again] == [encode(e) for e in events]
    assert state == final and final.status == "ended"
