"""``evolve(state, event) -> state`` and ``fold(events)``: pure, total over valid streams."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import filterfalse
from typing import TypeVar, assert_never, cast

from msgspec import UNSET
from msgspec.structs import replace

from domain.cards import Card
from domain.clock import timed_out_after
from domain.dealing import first_to_play, round_deck
from domain.events import (
    AnyEvent,
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    optional,
    table_settings,
)
from domain.fairness import deal_key
from domain.names import bot_name
from domain.state import INITIAL_STATE, SIDE_OF_SEAT, MatchSetup, MatchState

_T = TypeVar("_T", int, tuple[Card, ...])


def _created(state: MatchState, e: MatchCreated) -> MatchState:
    secret = bytes.fromhex(e.secret) if e.secret is not None else None
    settings = table_settings(e)
    setup = MatchSetup(
        match_id=e.match_id,
        ruleset=e.ruleset,
        seats=e.seats,
        target=e.target,
        secret=secret,
        key=deal_key(secret, e.client_seeds) if secret is not None else None,
        client_seeds=e.client_seeds,
        commitment=e.commitment,
        bots=e.bots,
        bot_kind=e.bot_kind,
        origin=e.origin,
        turn_seconds=settings.turn_seconds,
        private=settings.private,
        spectators=settings.spectators,
        rematch_of=settings.rematch_of,
        bot_kinds=settings.bot_kinds,
        bot_budget=settings.bot_budget,
        bot_logic=settings.bot_logic,
        reserved=settings.reserved,
    )
    names = tuple(bot_name(setup.kind_at(s)) if s in e.bots else None for s in range(e.seats))
    return replace(
        state,
        setup=setup,
        status="waiting",
        names=names,
        hands=((),) * e.seats,
        events=state.events + 1,
    )


def _seat_taken(state: MatchState, e: SeatTaken) -> MatchState:
    state = _with_client_seed(state, e)
    names = state.names[: e.seat] + (e.name,) + state.names[e.seat + 1 :]
    if not isinstance(e.player_id, str):
        return replace(state, names=names, events=state.events + 1)
    ids = state.player_ids + (None,) * (len(names) - len(state.player_ids))
    ids = ids[: e.seat] + (e.player_id,) + ids[e.seat + 1 :]
    return replace(state, names=names, player_ids=ids, events=state.events + 1)


def _with_client_seed(state: MatchState, e: SeatTaken) -> MatchState:
    """The seat's client seed in the setup, and the deal key made again with it (R6)."""
    setup = state.setup
    if not isinstance(e.client_seed, str) or setup is None:
        return state
    seeds = setup.client_seeds[: e.seat] + (e.client_seed,) + setup.client_seeds[e.seat + 1 :]
    key = deal_key(setup.secret, seeds) if setup.secret is not None else None
    return replace(state, setup=replace(setup, client_seeds=seeds, key=key))


def _round_started(state: MatchState, e: RoundStarted) -> MatchState:
    assert state.setup is not None
    seats = state.setup.seats
    return replace(
        state,
        status="playing",
        round=e.round,
        deal=0,
        dealer=e.dealer,
        turn=first_to_play(e.dealer, seats),
        hands=((),) * seats,
        in_hands=0,
        floor=(),
        stock=round_deck(state.setup.key, e.round),
        piles=((), ()),
        pile_basra=(0, 0),
        last_capturer=None,
        trail_pair=None,  # R16: a new round breaks a lone-card setup
        reburied=(),
        events=state.events + 1,
    )


def _cards_dealt(state: MatchState, e: CardsDealt) -> MatchState:
    hands = tuple([h if h is not None else () for h in e.hands])
    dealt = set().union(*hands)
    count = len(dealt)
    stock = state.stock
    if dealt == set(stock[:count]):
        stock = stock[count:]  # R5: the cards came from the top of the stock, as they must
    else:
        stock = tuple([c for c in stock if c not in dealt])
    return replace(
        state,
        deal=e.deal,
        hands=hands,
        in_hands=count,
        stock=stock,
        events=state.events + 1,
    )


def _floor_dealt(state: MatchState, e: FloorDealt) -> MatchState:
    # R4: the turned cards leave the stock; the cards sent back go to its bottom, in order.
    moved = set(e.cards) | set(e.reburied)
    stock = tuple(filterfalse(moved.__contains__, state.stock)) + e.reburied
    return replace(
        state,
        floor=e.cards,
        stock=stock,
        reburied=e.reburied,
        deadline=optional(e.deadline),
        events=state.events + 1,
    )


def _round_scored(state: MatchState, e: RoundScored) -> MatchState:
    return replace(
        state,
        floor=(),
        turn=None,
        deadline=None,
        totals=e.totals,
        carry=e.carry,
        piles=_with_last_pickup(state.piles, e),
        events=state.events + 1,
    )


def _with_last_pickup(
    piles: tuple[tuple[Card, ...], ...], e: RoundScored
) -> tuple[tuple[Card, ...], ...]:
    # R19: the floor's last cards join the pile of the side that captured last.
    if e.last_pickup is None:
        return piles
    side = e.last_pickup.side
    return tuple(p + e.last_pickup.cards if s == side else p for s, p in enumerate(piles))


def _match_ended(state: MatchState, e: MatchEnded) -> MatchState:
    return replace(
        state,
        status="ended",
        turn=None,
        deadline=None,
        totals=e.totals,
        winner=e.winner,
        end_reason=e.reason,
        events=state.events + 1,
    )


def evolve(state: MatchState, event: Event) -> MatchState:
    """The state after one event; pure (events are trusted: ``decide`` and audits check them)."""
    # Every event of a stream is one of the tagged union (the decoder reads no other); the
    # match names each, so the type checker reports here any event type added later.
    known = cast(AnyEvent, event)
    match known:
        case CardPlayed():
            # Plays are most of a stream: they are tried first.
            return _card_played(state, known)
        case CardsDealt():
            return _cards_dealt(state, known)
        case RoundStarted():
            return _round_started(state, known)
        case FloorDealt():
            return _floor_dealt(state, known)
        case RoundScored():
            return _round_scored(state, known)
        case SeatTaken():
            return _seat_taken(state, known)
        case MatchCreated():
            return _created(state, known)
        case MatchEnded():
            return _match_ended(state, known)
        case RematchCreated():
            return replace(state, rematch=known.match_id, events=state.events + 1)
        case unknown:
            assert_never(unknown)


def _added(pair: tuple[_T, ...], side: int, extra: _T) -> tuple[_T, ...]:
    """``pair`` with ``extra`` added to the entry of ``side`` (0 or 1; R2: two sides)."""
    if side:
        return (pair[0], pair[1] + extra)
    return (pair[0] + extra, pair[1])


def _card_played(state: MatchState, event: CardPlayed) -> MatchState:
    """A card played (R8-R12), and the turn clock it passes on (R25, R25a)."""
    after = _card_moved(state, event)
    if event.deadline is UNSET and state.deadline is None and not (event.auto or state.timed_out):
        return after  # no clock runs on this table: most plays of every stream recorded so far
    return replace(
        after,
        deadline=optional(event.deadline),
        timed_out=timed_out_after(state.timed_out, event.seat, event.auto),
    )


def _card_moved(state: MatchState, event: CardPlayed) -> MatchState:
    """A card played (R8-R12): it leaves the hand and takes from the floor or joins it."""
    seat = event.seat
    card = event.card
    hand = state.hands[seat]
    i = hand.index(card)
    new_hands = list(state.hands)
    new_hands[seat] = hand[:i] + hand[i + 1 :]
    hands = tuple(new_hands)
    floor = state.floor
    captured = event.captured
    if captured:
        # R19: the capturing card joins its side's pile with the cards it took.
        if len(captured) == len(floor):
            floor = ()
        elif len(captured) <= 3:
            for c in captured:
                k = floor.index(c)
                floor = floor[:k] + floor[k + 1 :]
        else:
            taken = set(captured)
            floor = tuple([c for c in floor if c not in taken])
        side = SIDE_OF_SEAT[seat]  # R2
        pile_basra = state.pile_basra
        if event.basra:
            pile_basra = _added(pile_basra, side, event.basra)
        return replace(
            state,
            hands=hands,
            in_hands=state.in_hands - 1,
            floor=floor,
            turn=(seat + 1) % len(hands),
            piles=_added(state.piles, side, captured + (card,)),
            pile_basra=pile_basra,
            last_capturer=side,
            trail_pair=None,
            plays=state.plays + 1,
            events=state.events + 1,
        )
    # R12: a card that takes nothing goes to the end of the floor.
    # R16 (b): remember a card trailed beside a lone floor card.
    trail_pair = (floor[0], card) if len(floor) == 1 else None
    return replace(
        state,
        hands=hands,
        in_hands=state.in_hands - 1,
        floor=floor + (card,),
        turn=(seat + 1) % len(hands),
        trail_pair=trail_pair,
        plays=state.plays + 1,
        events=state.events + 1,
    )


def fold(events: Iterable[Event], state: MatchState = INITIAL_STATE) -> MatchState:
    """The state after a sequence of events, from the initial state (or ``state``)."""
    for event in events:
        state = evolve(state, event)
    return state
