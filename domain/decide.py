"""``decide(state, command) -> events``: the rules judge a request or refuse it precisely."""

from __future__ import annotations

import msgspec

from domain.cards import CLASSIC_POINTS, Card
from domain.commands import Command, CreateMatch, LeaveMatch, PlayCard, TakeSeat
from domain.errors import (
    CardNotInHandError,
    InvalidSeatCountError,
    InvalidSeatError,
    InvalidTargetError,
    MatchAlreadyCreatedError,
    MatchEndedError,
    MatchNotStartedError,
    NotYourTurnError,
    PlayerSeatedError,
    SeatTakenError,
    UnknownBotKindError,
    UnknownCommandError,
    UnseededMatchError,
)
from domain.events import (
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    LastPickup,
    MatchCreated,
    MatchEnded,
    RoundScored,
    RoundStarted,
    SeatTaken,
    SideScore,
)
from domain.evolve import evolve, round_deck
from domain.fairness import check_client_seed, check_secret, commitment, deal_key, first_dealer
from domain.names import seat_name
from domain.play import resolve_play
from domain.rulesets import MAJORITY_CARDS, MAX_ROUNDS, RULESETS, Classic, ruleset
from domain.state import MatchSetup, MatchState

SEAT_COUNTS = (2, 4)
"""R2: two seats, or four in two partnerships."""

BOT_KINDS = ("easy", "random")
"""The bots a table can seat."""


def decide(state: MatchState, command: Command) -> tuple[Event, ...]:
    """The events that follow from ``command`` at ``state``, or a BasraError; state is unchanged."""
    if not isinstance(command, PlayCard):
        # Plays are nearly every command a match sees: they are judged here, the rest apart.
        return _decide_other(state, command)
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
            raise InvalidSeatError(f"seat {seat} is not a seat of this table (0..{len(hands) - 1})")
        raise NotYourTurnError(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    card = command.card
    if card not in hands[seat]:
        raise CardNotInHandError(f"{card} is not in seat {seat}'s hand")
    setup = state.setup
    assert setup is not None
    rules = RULESETS[setup.ruleset]
    # R24: the one function that says what a card takes and scores, as previews and bots see it.
    outcome = resolve_play(rules, state.floor, card, state.trail_pair)
    played = CardPlayed(
        seat, card, outcome.captured, outcome.basra, outcome.groups, outcome.sweep, command.auto
    )
    if state.in_hands > 1:
        return (played,)
    # Every hand is now empty: deal again (R5), or count the round (R19-R22).
    if state.stock:
        return (played, _deal(state.stock, setup.seats, state.dealer or 0, rules, state))
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
        events.extend(_open_round(rules, setup.seats, setup.key, after.round + 1, dealer))
    return tuple(events)


def _decide_other(state: MatchState, command: Command) -> tuple[Event, ...]:
    if isinstance(command, CreateMatch):
        return _create(state, command)
    if isinstance(command, TakeSeat):
        return _take_seat(state, command)
    if isinstance(command, LeaveMatch):
        return _leave(state, command)
    raise UnknownCommandError(f"unknown command {type(command).__name__}")


def _create(state: MatchState, cmd: CreateMatch) -> tuple[Event, ...]:
    if state.setup is not None:
        raise MatchAlreadyCreatedError(f"match {state.setup.match_id} already exists")
    rules = ruleset(cmd.ruleset)
    if cmd.seats not in SEAT_COUNTS:
        raise InvalidSeatCountError(f"a table has 2 or 4 seats, not {cmd.seats}")
    target = rules.default_target if cmd.target is None else cmd.target
    if isinstance(target, bool) or not 1 <= target <= 1000:
        raise InvalidTargetError(f"the target must be a whole number from 1 to 1000, not {target}")
    if len(set(cmd.bots)) != len(cmd.bots) or any(not 0 <= s < cmd.seats for s in cmd.bots):
        raise InvalidSeatError(f"bot seats must be distinct seats 0..{cmd.seats - 1}")
    if cmd.bot_kind not in BOT_KINDS:
        raise UnknownBotKindError(f"unknown bot kind {cmd.bot_kind!r}; choose easy or random")
    secret = check_secret(cmd.secret)
    seeds = cmd.client_seeds if cmd.client_seeds is not None else ("",) * cmd.seats
    if len(seeds) != cmd.seats:
        raise InvalidSeatCountError(f"{len(seeds)} client seeds for {cmd.seats} seats")
    for seed in seeds:
        check_client_seed(seed)
    created = MatchCreated(
        match_id=cmd.match_id,
        ruleset=rules.name,
        seats=cmd.seats,
        target=target,
        secret=secret.hex(),
        client_seeds=tuple(seeds),
        commitment=commitment(cmd.match_id, secret),
        bots=tuple(sorted(cmd.bots)),
        bot_kind=cmd.bot_kind,
    )
    if len(cmd.bots) < cmd.seats:
        return (created,)
    key = deal_key(secret, seeds)
    return (created, *_open_round(rules, cmd.seats, key, 1, first_dealer(key, cmd.seats)))


def _open_table_seat(state: MatchState, seat: int) -> MatchSetup:
    """The setup of a match not yet ended, with ``seat`` one of its seats."""
    setup = _require_setup(state)
    if state.status == "ended":
        raise MatchEndedError("the match has ended")
    if not 0 <= seat < setup.seats:
        raise InvalidSeatError(f"seat {seat} is not a seat of this table (0..{setup.seats - 1})")
    return setup


def _take_seat(state: MatchState, cmd: TakeSeat) -> tuple[Event, ...]:
    setup = _open_table_seat(state, cmd.seat)
    if state.names[cmd.seat] is not None:
        raise SeatTakenError(f"seat {cmd.seat} is taken")
    if cmd.player_id is not None and cmd.player_id in state.player_ids:
        raise PlayerSeatedError("this player holds a seat of this match already")
    name = seat_name(cmd.name)
    taken = SeatTaken(
        seat=cmd.seat,
        name=name,
        token_id=cmd.token_id,
        token_hash=cmd.token_hash,
        player_id=msgspec.UNSET if cmd.player_id is None else cmd.player_id,
    )
    if sum(1 for n in state.names if n is None) > 1:
        return (taken,)
    if setup.key is None:
        raise UnseededMatchError("this match has no secret to deal from")
    rules = ruleset(setup.ruleset)
    dealer = first_dealer(setup.key, setup.seats)
    return (taken, *_open_round(rules, setup.seats, setup.key, 1, dealer))


def _leave(state: MatchState, cmd: LeaveMatch) -> tuple[Event, ...]:
    setup = _open_table_seat(state, cmd.seat)
    reveal = setup.secret.hex() if setup.secret is not None else None
    if state.status == "waiting":
        return (MatchEnded(None, "abandoned", state.totals, reveal, cmd.seat),)
    # R25, R26: the leaver's side loses; at four seats the partner loses too.
    winner = 1 - cmd.seat % 2
    return (MatchEnded(winner, cmd.reason, state.totals, reveal, cmd.seat),)


def _deal(
    stock: tuple[Card, ...], seats: int, dealer: int, rules: Classic, state: MatchState
) -> CardsDealt:
    hands = deal_hands(stock, seats, dealer, rules.hand_size)
    return CardsDealt(round=state.round, deal=state.deal + 1, hands=hands)


def deal_hands(
    stock: tuple[Card, ...], seats: int, dealer: int, hand_size: int
) -> tuple[tuple[Card, ...], ...]:
    """R4, R5 (docs/fairness.md step 7): one card at a time from the top, from the seat after the
    dealer round the table."""
    count = seats * hand_size
    top = stock[:count]
    first = (dealer + 1) % seats
    return tuple([top[(seat - first) % seats :: seats] for seat in range(seats)])


def turn_first_floor(
    stock: tuple[Card, ...], rules: Classic
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """R4: turn cards for the first floor, sending Jacks (and a powered 7♦) to the bottom."""
    floor: list[Card] = []
    reburied: list[Card] = []
    for card in stock:
        if len(floor) == 4:
            break
        if rules.sent_back_from_first_floor(card):
            reburied.append(card)
        else:
            floor.append(card)
    return tuple(floor), tuple(reburied)


def _open_round(
    rules: Classic, seats: int, key: bytes, round_number: int, dealer: int
) -> tuple[Event, ...]:
    deck = round_deck(key, round_number)
    hands = deal_hands(deck, seats, dealer, rules.hand_size)
    floor, reburied = turn_first_floor(deck[seats * rules.hand_size :], rules)
    return (
        RoundStarted(round=round_number, dealer=dealer),
        CardsDealt(round=round_number, deal=1, hands=hands),
        FloorDealt(round=round_number, cards=floor, reburied=reburied),
    )


def score_round(state: MatchState, rules: Classic) -> RoundScored:
    """R19-R21: the last pickup, most cards with the carry, point cards and Basras."""
    cards = list(state.pile_cards)
    points = list(state.pile_points)
    pickup = None
    if state.floor and state.last_capturer is not None:
        side = state.last_capturer
        pickup = LastPickup(side=side, cards=state.floor)
        cards[side] += len(state.floor)
        points[side] += sum(map(CLASSIC_POINTS.__getitem__, state.floor))
    if not rules.scores_point_cards:
        points = [0, 0]  # R15: Egyptian has no point cards
    majority = [0, 0]
    carry = state.carry
    for side in (0, 1):
        if cards[side] >= MAJORITY_CARDS:
            majority[side] = rules.majority_award + carry  # R20: the carry goes to the next winner
            carry = 0
            break
    else:
        if rules.carries_ties:
            carry += rules.majority_award  # R20: 26-26 carries the award (not in Lebanese)
    sides = tuple(
        SideScore(
            cards=cards[s],
            majority=majority[s],
            points=points[s],
            basra=state.pile_basra[s],
            total=majority[s] + points[s] + state.pile_basra[s],
        )
        for s in (0, 1)
    )
    totals = tuple(state.totals[s] + sides[s].total for s in (0, 1))
    return RoundScored(
        round=state.round, last_pickup=pickup, sides=sides, carry=carry, totals=totals
    )


def match_result(scored: RoundScored, round_number: int, setup: MatchSetup) -> MatchEnded | None:
    """R22: one side at or past the target wins; both, the higher; level plays on; 30 rounds end."""
    a, b = scored.totals
    target = setup.target
    reveal = setup.secret.hex() if setup.secret is not None else None
    if (a >= target or b >= target) and a != b:
        return MatchEnded(0 if a > b else 1, "target", scored.totals, reveal)
    if round_number >= MAX_ROUNDS:
        winner = None if a == b else (0 if a > b else 1)
        return MatchEnded(winner, "round_limit", scored.totals, reveal)
    return None


def _require_setup(state: MatchState) -> MatchSetup:
    if state.setup is None:
        raise MatchNotStartedError("there is no such match")
    return state.setup
