"""``decide(state, command) -> events``: the rules judge a request or refuse it precisely."""

from __future__ import annotations

import msgspec

from domain.bots import EasyBot
from domain.cards import CLASSIC_POINTS, Card
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
from domain.errors import (
    CardNotInHandError,
    DeadlineNotReachedError,
    InvalidBotBudgetError,
    InvalidReservationError,
    InvalidSeatCountError,
    InvalidSeatError,
    InvalidTargetError,
    InvalidTurnSecondsError,
    MatchAlreadyCreatedError,
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
    TurnExpiredError,
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
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    SideScore,
)
from domain.evolve import evolve, round_deck
from domain.fairness import check_client_seed, check_secret, commitment, deal_key, first_dealer
from domain.names import recorded_seat_name, seat_name
from domain.play import resolve_play
from domain.rulesets import MAJORITY_CARDS, MAX_ROUNDS, RULESETS, Classic, ruleset
from domain.state import MatchSetup, MatchState, side_of
from domain.strong_bot import DEFAULT_BUDGET, LOGIC_VERSION
from domain.times import after_seconds, reached
from domain.views import seat_view

SEAT_COUNTS = (2, 4)
"""R2: two seats, or four in two partnerships."""

BOT_KINDS = ("easy", "random", "strong")
"""The bots a table can seat."""

EMPTY_TABLE_SECONDS = 5
"""R25a: the turn time of a seat whose person has run out, once every person has."""


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
    now_us = command.now_us
    arrived = command.arrived_us if command.arrived_us is not None else now_us
    if arrived is not None and state.deadline is not None and reached(arrived, state.deadline):
        raise turn_ran_out(seat, state.deadline)
    return _play(state, seat, card, command.auto, now_us)


def turn_ran_out(seat: int, deadline: str) -> TurnExpiredError:
    """The refusal of a play by ``seat`` that came at or after its ``deadline`` (R25)."""
    return TurnExpiredError(
        f"seat {seat}'s turn ran out at {deadline}; the clock plays for it (R25)"
    )


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
            timed_out = _timed_out_after(state.timed_out, seat, auto)
            deadline = _deadline(setup, timed_out, (seat + 1) % setup.seats, now_us)
        if deadline is not None:
            played = msgspec.structs.replace(played, deadline=deadline)
        if state.in_hands > 1:
            return (played,)
        # Every hand is now empty: deal again (R5).
        return (played, _deal(state.stock, setup.seats, state.dealer or 0, rules, state))
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
        opened = _open_round(rules, setup.seats, setup.key, after.round + 1, dealer)
        events.extend(_with_first_deadline(after, opened, now_us))
    return tuple(events)


def _timed_out_after(timed_out: tuple[int, ...], seat: int, auto: bool) -> tuple[int, ...]:
    """R25a: the seats run out after ``seat`` plays (``auto``: the clock played for it)."""
    if auto:
        return timed_out if seat in timed_out else tuple(sorted((*timed_out, seat)))
    return tuple([s for s in timed_out if s != seat])


def _deadline(
    setup: MatchSetup, timed_out: tuple[int, ...], seat: int, now_us: int | None
) -> str | None:
    """R25, R25a: when ``seat``'s turn runs out if its turn starts at ``now_us``; None for a
    bot, or a table with no clock.

    A person's seat has the table's turn time; once every person's seat has run out on its
    latest turn, those seats have 5 seconds each, so a table everyone has left still ends.
    """
    if now_us is None or setup.turn_seconds is None or seat in setup.bots:
        return None
    if all(s in timed_out or s in setup.bots for s in range(setup.seats)):
        return after_seconds(now_us, EMPTY_TABLE_SECONDS)
    return after_seconds(now_us, setup.turn_seconds)


def _with_first_deadline(
    state: MatchState, opened: tuple[Event, ...], now_us: int | None
) -> tuple[Event, ...]:
    """A round's opening events, its floor carrying the first seat's deadline (R25)."""
    started = opened[0]
    assert isinstance(started, RoundStarted)
    assert state.setup is not None
    first = (started.dealer + 1) % state.setup.seats  # R3: the seat after the dealer
    deadline = _deadline(state.setup, state.timed_out, first, now_us)
    if deadline is None:
        return opened
    floor = opened[-1]
    assert isinstance(floor, FloorDealt)
    return (*opened[:-1], msgspec.structs.replace(floor, deadline=deadline))


def _decide_other(state: MatchState, command: Command) -> tuple[Event, ...]:
    if isinstance(command, CreateMatch):
        return _create(state, command)
    if isinstance(command, TakeSeat):
        return _take_seat(state, command)
    if isinstance(command, LeaveMatch):
        return _leave(state, command)
    if isinstance(command, ExpireTurn):
        return _expire(state, command)
    if isinstance(command, AbandonTable):
        return _abandon(state)
    if isinstance(command, RecordRematch):
        return _record_rematch(state, command)
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
    bot_kinds, bot_budget = _check_bots(cmd)
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
        bot_kinds=bot_kinds,
        bot_budget=bot_budget,
        bot_logic=msgspec.UNSET if isinstance(bot_budget, msgspec.UnsetType) else LOGIC_VERSION,
        turn_seconds=_turn_seconds_of(cmd),
        private=True if cmd.private else msgspec.UNSET,
        spectators=False if not cmd.spectators else msgspec.UNSET,
        rematch_of=msgspec.UNSET if cmd.rematch_of is None else cmd.rematch_of,
        reserved=_check_reserved(cmd),
    )
    if len(cmd.bots) < cmd.seats:
        return (created,)
    key = deal_key(secret, seeds)
    opened = _open_round(rules, cmd.seats, key, 1, first_dealer(key, cmd.seats))
    # Every seat is a bot: no person is ever on turn, so no deadline is set.
    return (created, *opened)


BOT_BUDGET = (1, 4096)
"""The fewest and most deals the strong bot may sample per decision."""


def _check_bots(
    cmd: CreateMatch,
) -> tuple[dict[str, str] | msgspec.UnsetType, int | msgspec.UnsetType]:
    """The bot kinds by seat where they differ from ``bot_kind``, and the strong bot's budget:
    recorded whenever a strong bot plays, so its picks repeat whatever the default becomes."""
    per_seat = cmd.bot_kinds or {}
    for kind in (cmd.bot_kind, *per_seat.values()):
        if kind not in BOT_KINDS:
            raise UnknownBotKindError(f"unknown bot kind {kind!r}; choose {', '.join(BOT_KINDS)}")
    if any(seat not in cmd.bots for seat in per_seat):
        raise InvalidSeatError("a bot kind is given for a seat that no bot plays")
    differ = {str(s): k for s, k in sorted(per_seat.items()) if k != cmd.bot_kind}
    strong = any(per_seat.get(s, cmd.bot_kind) == "strong" for s in cmd.bots)
    budget = cmd.bot_budget
    low, high = BOT_BUDGET
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int) or not low <= budget <= high
    ):
        raise InvalidBotBudgetError(
            f"the strong bot's budget is a whole number of deals from {low} to {high}, not {budget}"
        )
    recorded: int | msgspec.UnsetType = msgspec.UNSET
    if strong:
        recorded = DEFAULT_BUDGET if budget is None else budget
    return (differ or msgspec.UNSET), recorded


TURN_SECONDS = (5, 600)
"""R25: the shortest and longest turn time a table can be given, in seconds."""

SERVER_TURN_SECONDS = (1, 600)
"""R25: the shortest and longest turn time a server may give tables that name none."""


def _turn_seconds_of(cmd: CreateMatch) -> int | msgspec.UnsetType:
    """R25: the table's own turn time (5-600), else the server's (1-600); UNSET: no clock."""
    if cmd.turn_seconds is not None:
        return _check_turn_seconds(cmd.turn_seconds, TURN_SECONDS, "a table's")
    if cmd.server_turn_seconds is not None:
        return _check_turn_seconds(cmd.server_turn_seconds, SERVER_TURN_SECONDS, "the server's")
    return msgspec.UNSET


def _check_turn_seconds(seconds: int, bounds: tuple[int, int], whose: str) -> int:
    """R25: a turn time within ``bounds``, in whole seconds."""
    low, high = bounds
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not low <= seconds <= high:
        raise InvalidTurnSecondsError(
            f"{whose} turn time must be a whole number of seconds from {low} to {high},"
            f" not {seconds}"
        )
    return seconds


def _check_reserved(cmd: CreateMatch) -> tuple[str | None, ...] | msgspec.UnsetType:
    """A rematch's kept seats: one entry per seat, a player at most once, no bot seat kept."""
    kept = cmd.reserved
    if kept is None or all(pid is None for pid in kept):
        return msgspec.UNSET  # nothing kept: left out of the line
    named = [pid for pid in kept if pid is not None]
    if len(kept) != cmd.seats or len(set(named)) != len(named):
        raise InvalidReservationError(
            f"kept seats name each player once, one entry for each of the {cmd.seats} seats"
        )
    if any(pid is not None and seat in cmd.bots for seat, pid in enumerate(kept)):
        raise InvalidReservationError("a bot's seat cannot be kept for a player")
    if cmd.rematch_of is None:
        raise InvalidReservationError("only a rematch keeps seats for the players before")
    return tuple(kept)


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
    opened = _open_round(rules, setup.seats, setup.key, 1, dealer)
    return (taken, *_with_first_deadline(seated, opened, cmd.now_us))


def _leave(state: MatchState, cmd: LeaveMatch) -> tuple[Event, ...]:
    setup = _open_table_seat(state, cmd.seat)
    reveal = setup.secret.hex() if setup.secret is not None else None
    if state.status == "waiting":
        return (MatchEnded(None, "abandoned", state.totals, reveal, cmd.seat),)
    # R25, R26: the leaver's side loses; at four seats the partner loses too.
    winner = 1 - cmd.seat % 2
    return (MatchEnded(winner, cmd.reason, state.totals, reveal, cmd.seat),)


def _expire(state: MatchState, cmd: ExpireTurn) -> tuple[Event, ...]:
    """R25: the seat on turn ran out of its turn. Two seats: its side forfeits. Four: the easy bot
    plays its card, and the match goes on."""
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
        reveal = setup.secret.hex() if setup.secret is not None else None
        winner = 1 - side_of(cmd.seat)
        return (MatchEnded(winner, "timeout", state.totals, reveal, cmd.seat),)
    # R25: the easy bot's card for that seat, from that seat's own view only.
    card = EasyBot().choose(seat_view(state, cmd.seat))
    return _play(state, cmd.seat, card, True, cmd.now_us)


def _abandon(state: MatchState) -> tuple[Event, ...]:
    """A table still waiting for players past its waiting time is closed, nobody winning."""
    setup = _require_setup(state)
    if state.status != "waiting":
        raise MatchNotWaitingError(f"the match is {state.status}, not waiting for players")
    reveal = setup.secret.hex() if setup.secret is not None else None
    return (MatchEnded(None, "abandoned", state.totals, reveal),)


def _record_rematch(state: MatchState, cmd: RecordRematch) -> tuple[Event, ...]:
    """The ended match links to its rematch, once."""
    _require_setup(state)
    if state.status != "ended":
        raise MatchNotEndedError("a rematch follows only a match that has ended")
    if state.rematch is not None:
        raise RematchExistsError(f"this match's rematch is match {state.rematch}")
    return (RematchCreated(cmd.match_id),)


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
