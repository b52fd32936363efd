"""``decide(state, command) -> events``: the rules judge a request or refuse it precisely.

A new table is judged in domain/creation.py, deals in domain/dealing.py, a round's count in
domain/scoring.py and the turn clock in domain/clock.py; the choice of a card for a seat whose
turn ran out is made above the rules (domain/autoplay.py) and arrives in the command.
"""

from __future__ import annotations

from typing import Never, NoReturn

import msgspec

from domain.cards import Card
from domain.clock import timed_out_after, turn_deadline, turn_ran_out, with_first_deadline
from domain.commands import (
    AbandonTable,
    AnyCommand,
    CreateMatch,
    ExpireTurn,
    LeaveMatch,
    PlayCard,
    RecordRematch,
    TakeSeat,
)
from domain.creation import judge_create
from domain.dealing import deal_again, open_round
from domain.errors import (
    CardNotInHandError,
    DeadlineNotReachedError,
    InvalidSeatError,
    MatchEndedError,
    MatchNotEndedError,
    MatchNotStartedError,
    MatchNotWaitingError,
    NotYourTurnError,
    PlayerSeatedError,
    RematchExistsError,
    SeatReservedError,
    SeatTakenError,
    StaleDeadlineError,
    UnknownCommandError,
    UnseededMatchError,
)
from domain.events import CardPlayed, Event, MatchEnded, RematchCreated, SeatTaken
from domain.evolve import evolve
from domain.fairness import check_client_seed, first_dealer
from domain.names import recorded_seat_name, seat_name
from domain.play import resolve_play
from domain.rulesets import RULESETS, ruleset
from domain.scoring import match_result, score_round
from domain.state import MatchSetup, MatchState, side_of
from domain.times import reached


def decide(state: MatchState, command: AnyCommand) -> tuple[Event, ...]:
    """The events that follow from ``command`` at ``state``, or a BasraError; state is unchanged."""
    # The match names every command of the union, so the type checker reports here any command
    # type added later.
    match command:
        case PlayCard():
            # R13, R25: plays are nearly every command a match sees: tried first, and judged
            # right here, the seat on turn playing a card of its hand before its turn runs out.
            if state.status != "playing":
                if state.status == "ended":
                    raise MatchEndedError("the match has ended")
                if state.setup is None:
                    raise MatchNotStartedError("there is no such match")
                raise MatchNotStartedError("the match is waiting for seats")
            seat = command.seat
            hands = state.hands
            if seat != state.turn:
                if not 0 <= seat < len(hands):
                    last = len(hands) - 1
                    raise InvalidSeatError(f"seat {seat} is not a seat of this table (0..{last})")
                raise NotYourTurnError(f"it is seat {state.turn}'s turn, not seat {seat}'s")
            card = command.card
            if card not in hands[seat]:
                raise CardNotInHandError(f"{card} is not in seat {seat}'s hand")
            now_us = command.now_us
            arrived = command.arrived_us if command.arrived_us is not None else now_us
            deadline = state.deadline
            if arrived is not None and deadline is not None and reached(arrived, deadline):
                raise turn_ran_out(seat, deadline, arrived)
            return _play(state, seat, card, command.auto, now_us)
        case CreateMatch():
            return judge_create(state, command)
        case TakeSeat():
            return _take_seat(state, command)
        case LeaveMatch():
            return _leave(state, command)
        case ExpireTurn():
            return _expire(state, command)
        case AbandonTable():
            return _abandon(state)
        case RecordRematch():
            return _record_rematch(state, command)
        case unknown:
            _unknown(unknown)


def _unknown(command: Never) -> NoReturn:
    """A command of no known type (only a caller outside the type checker can send one)."""
    raise UnknownCommandError(f"unknown command {type(command).__name__}")


def _play(
    state: MatchState, seat: int, card: Card, auto: bool, now_us: int | None
) -> tuple[Event, ...]:
    """The events of ``seat`` playing ``card`` (a legal play), with the next turn's deadline."""
    setup = state.setup
    assert setup is not None
    rules = RULESETS[setup.ruleset]
    # R24: the one function that says what a card takes and scores, as previews and bots see it.
    outcome = resolve_play(rules, state.floor, card, state.trail_pair)
    played = CardPlayed(
        seat, card, outcome.captured, outcome.basra, outcome.groups, outcome.sweep, auto
    )
    if state.in_hands > 1 or state.stock:
        # The turn passes within the round (R3): the next seat's clock starts now (R25).
        deadline = None
        if now_us is not None and setup.turn_seconds is not None:
            timed_out = timed_out_after(state.timed_out, seat, auto)
            deadline = turn_deadline(setup, timed_out, (seat + 1) % setup.seats, now_us)
        if deadline is not None:
            played = msgspec.structs.replace(played, deadline=deadline)
        if state.in_hands > 1:
            return (played,)
        # Every hand is now empty: deal again (R5).
        dealer = state.dealer or 0
        return (
            played,
            deal_again(state.stock, setup.seats, dealer, rules, state.round, state.deal + 1),
        )
    # Every hand is empty and the stock too: count the round (R19-R22).
    after = evolve(state, played)
    scored = score_round(after, rules)
    events: list[Event] = [played, scored]
    ended = match_result(scored, after.round, setup)
    if ended is not None:
        events.append(ended)
    else:
        if setup.key is None:
            raise UnseededMatchError("this match has no secret to deal the next round from")
        dealer = ((state.dealer or 0) + 1) % setup.seats  # R3: the deal passes to the next seat
        opened = open_round(rules, setup.seats, setup.key, after.round + 1, dealer)
        events.extend(with_first_deadline(after, opened, now_us))
    return tuple(events)


def _open_table_seat(state: MatchState, seat: int) -> MatchSetup:
    """The setup of a match not yet ended, with ``seat`` one of its seats."""
    setup = _require_setup(state)
    if state.status == "ended":
        raise MatchEndedError("the match has ended")
    if not 0 <= seat < setup.seats:
        raise InvalidSeatError(f"seat {seat} is not a seat of this table (0..{setup.seats - 1})")
    return setup


def _take_seat(state: MatchState, cmd: TakeSeat) -> tuple[Event, ...]:
    """A person takes an empty seat; the last seat taken deals the first round (R3, R4)."""
    setup = _open_table_seat(state, cmd.seat)
    if state.names[cmd.seat] is not None:
        raise SeatTakenError(f"seat {cmd.seat} is taken")
    if cmd.player_id is not None and cmd.player_id in state.player_ids:
        raise PlayerSeatedError("this player holds a seat of this match already")
    kept = setup.reserved[cmd.seat] if setup.reserved else None
    if kept is not None and kept != cmd.player_id:
        raise SeatReservedError(
            f"seat {cmd.seat} of this rematch is kept for the player who held it in the match"
            " before"
        )
    # A registered player sits under the name their own stream records (checked when it was
    # recorded), or the erased placeholder; a recorded seat keeps the rule it was taken under.
    recorded = cmd.recorded or cmd.player_id is not None
    name = recorded_seat_name(cmd.name) if recorded else seat_name(cmd.name)
    taken = SeatTaken(
        seat=cmd.seat,
        name=name,
        token_id=cmd.token_id,
        token_hash=cmd.token_hash,
        player_id=msgspec.UNSET if cmd.player_id is None else cmd.player_id,
        client_seed=check_client_seed(cmd.client_seed) or msgspec.UNSET,
    )
    if sum(1 for n in state.names if n is None) > 1:
        return (taken,)
    # The last seat is taken: every client seed is now fixed, and the deal key with them.
    seated = evolve(state, taken)
    setup = _require_setup(seated)
    if setup.key is None:
        raise UnseededMatchError("this match has no secret to deal from")
    rules = ruleset(setup.ruleset)
    dealer = first_dealer(setup.key, setup.seats)
    opened = open_round(rules, setup.seats, setup.key, 1, dealer)
    return (taken, *with_first_deadline(seated, opened, cmd.now_us))


def _leave(state: MatchState, cmd: LeaveMatch) -> tuple[Event, ...]:
    """A seat leaves: a waiting table is abandoned, a match in play forfeited (R26)."""
    setup = _open_table_seat(state, cmd.seat)
    reveal = setup.revealed_secret()
    if state.status == "waiting":
        return (MatchEnded(None, "abandoned", state.totals, reveal, cmd.seat),)
    # R25, R26: the leaver's side loses; at four seats the partner loses too.
    winner = 1 - side_of(cmd.seat)
    return (MatchEnded(winner, cmd.reason, state.totals, reveal, cmd.seat),)


def _expire(state: MatchState, cmd: ExpireTurn) -> tuple[Event, ...]:
    """R25: the seat on turn ran out of its turn. Two seats: its side forfeits. Four: the card
    the command carries (the easy bot's pick, chosen above the rules) is played for it, and the
    match goes on."""
    setup = state.setup
    if (
        setup is None
        or state.status != "playing"
        or state.turn != cmd.seat
        or state.deadline is None
        or state.deadline != cmd.deadline
    ):
        raise StaleDeadlineError(
            f"the deadline {cmd.deadline} of seat {cmd.seat} is no longer in force"
        )
    if not reached(cmd.now_us, state.deadline):
        raise DeadlineNotReachedError(
            f"seat {cmd.seat}'s turn runs until {state.deadline}; the clock fired early"
        )
    if setup.seats == 2:
        winner = 1 - side_of(cmd.seat)
        return (MatchEnded(winner, "timeout", state.totals, setup.revealed_secret(), cmd.seat),)
    card = cmd.card
    if card is None or card not in state.hands[cmd.seat]:
        raise CardNotInHandError(f"the clock names no card of seat {cmd.seat}'s hand to play")
    return _play(state, cmd.seat, card, True, cmd.now_us)


def _abandon(state: MatchState) -> tuple[Event, ...]:
    """A table still waiting for players past its waiting time is closed, nobody winning."""
    setup = _require_setup(state)
    if state.status != "waiting":
        raise MatchNotWaitingError(f"the match is {state.status}, not waiting for players")
    return (MatchEnded(None, "abandoned", state.totals, setup.revealed_secret()),)


def _record_rematch(state: MatchState, cmd: RecordRematch) -> tuple[Event, ...]:
    """The ended match links to its rematch, once."""
    _require_setup(state)
    if state.status != "ended":
        raise MatchNotEndedError("a rematch follows only a match that has ended")
    if state.rematch is not None:
        raise RematchExistsError(f"this match's rematch is match {state.rematch}")
    return (RematchCreated(cmd.match_id),)


def _require_setup(state: MatchState) -> MatchSetup:
    if state.setup is None:
        raise MatchNotStartedError("there is no such match")
    return state.setup
