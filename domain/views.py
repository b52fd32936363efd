"""Per-viewer projections of a position (R23): a seat's view, the public table, support's view."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import msgspec

from domain.cards import Card
from domain.errors import CardNotInHandError, InvalidSeatError, MatchNotStartedError
from domain.state import MatchSetup, MatchState, Status

if TYPE_CHECKING:
    from domain.play import PlayOutcome


class TableView(msgspec.Struct, frozen=True, kw_only=True):
    """What everyone at the table sees: floor, counts, scores, turn; no hand, no stock order.

    The banner of a table reads from it: cards left to deal (``stock``), the carry pending
    (``carry``, R20), whose turn (``turn``) and until when (``deadline``).
    """

    match_id: str
    ruleset: str
    seats: int
    target: int
    status: Status
    round: int
    deal: int
    dealer: int | None
    turn: int | None
    floor: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    stock: int
    scores: tuple[int, ...]
    carry: int
    piles: tuple[int, ...]
    round_basra: tuple[int, ...]
    trail_pair: tuple[Card, Card] | None
    names: tuple[str | None, ...]
    bots: tuple[int, ...]
    commitment: str | None
    winner: int | None
    end_reason: str | None
    seq: int
    # The turn clock (R25, R25a): when the seat on turn runs out (UTC text, or None: a bot on
    # turn, no clock, or no turn), the table's turn time, and the seats whose latest turn ran out.
    deadline: str | None = None
    turn_seconds: int | None = None
    timed_out: tuple[int, ...] = ()
    rematch_of: str | None = None
    rematch: str | None = None
    # Every seat's client seed, by seat ("" for none and for bots): public, since each enters
    # the deal beside the secret the server committed to (docs/fairness.md).
    client_seeds: tuple[str, ...] = ()


class SeatView(TableView, frozen=True, kw_only=True):
    """The table as one seat sees it: the public table plus its own hand (R23)."""

    seat: int
    hand: tuple[Card, ...]


class SupportView(TableView, frozen=True, kw_only=True):
    """Support's view: every hand; the stock order and the secret only once the match has ended."""

    hands: tuple[tuple[Card, ...], ...]
    stock_order: tuple[Card, ...] | None
    seed: str | None


class PlayPreview(msgspec.Struct, frozen=True):
    """R24: what a card in the hand would take, by group, and whether it would be a Basra."""

    card: Card
    captured: tuple[Card, ...]
    groups: tuple[tuple[Card, ...], ...]
    basra: int
    sweep: bool


_View = TypeVar("_View", bound=TableView)


def _setup_of(state: MatchState) -> MatchSetup:
    """The setup of a created match (MatchNotStartedError before it exists)."""
    if state.setup is None:
        raise MatchNotStartedError("there is no such match")
    return state.setup


def _built(state: MatchState, seq: int | None, make: Callable[..., _View]) -> _View:
    """``make`` (a view type, with the fields of its own given) called with the public table."""
    setup = _setup_of(state)
    return make(
        match_id=setup.match_id,
        ruleset=setup.ruleset,
        seats=setup.seats,
        target=setup.target,
        status=state.status,
        round=state.round,
        deal=state.deal,
        dealer=state.dealer,
        turn=state.turn,
        floor=state.floor,
        hand_counts=tuple(len(h) for h in state.hands),
        stock=len(state.stock) if state.status == "playing" else 0,
        scores=state.totals,
        carry=state.carry,
        piles=state.pile_cards,
        round_basra=state.pile_basra,
        trail_pair=state.trail_pair,
        names=state.names,
        bots=setup.bots,
        commitment=setup.commitment,
        winner=state.winner,
        end_reason=state.end_reason,
        seq=state.events if seq is None else seq,
        deadline=state.deadline,
        turn_seconds=setup.turn_seconds,
        timed_out=state.timed_out,
        rematch_of=setup.rematch_of,
        rematch=state.rematch,
        client_seeds=setup.client_seeds,
    )


def table_view(state: MatchState, seq: int | None = None) -> TableView:
    """The public table (R23)."""
    return _built(state, seq, TableView)


def seat_view(state: MatchState, seat: int, seq: int | None = None) -> SeatView:
    """The table as ``seat`` sees it: its own hand and nothing of any other (R23)."""
    _setup_of(state)
    if not 0 <= seat < len(state.hands):
        raise InvalidSeatError(f"seat {seat} is not a seat of this table")
    return _built(state, seq, partial(SeatView, seat=seat, hand=state.hands[seat]))


def support_view(state: MatchState, seq: int | None = None) -> SupportView:
    """Support's view (R23): every hand always; stock order and secret only after the end."""
    ended = state.status == "ended"
    make = partial(
        SupportView,
        hands=state.hands,
        stock_order=state.stock if ended else None,
        seed=_setup_of(state).revealed_secret() if ended else None,
    )
    return _built(state, seq, make)


def preview_play(state: MatchState, seat: int, card: Card) -> PlayPreview:
    """R24: what ``card`` from ``seat``'s hand would take now, changing nothing."""
    if state.status != "playing" or state.setup is None:
        raise MatchNotStartedError("there is no table in play")
    if not 0 <= seat < len(state.hands):
        raise InvalidSeatError(f"seat {seat} is not a seat of this table")
    if card not in state.hands[seat]:
        raise CardNotInHandError(f"{card} is not in seat {seat}'s hand")
    from domain.play import resolve_play  # the capture solver: only a preview needs it
    from domain.rulesets import ruleset

    outcome: PlayOutcome = resolve_play(
        ruleset(state.setup.ruleset), state.floor, card, state.trail_pair
    )
    return PlayPreview(card, outcome.captured, outcome.groups, outcome.basra, outcome.sweep)
