"""Test builders: matches created from a text seed, and hand-made positions."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from domain.bots import bot_card
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, fold
from domain.fairness import secret_from_text_seed
from domain.selfplay import bots_for
from domain.state import INITIAL_STATE, MatchState


def created(
    ruleset: str = "classic",
    seats: int = 2,
    seed: str = "test",
    bots: Sequence[int] | None = None,
    target: int | None = None,
    bot_kind: str = "random",
) -> tuple[list[Event], MatchState]:
    """The events and state of a fresh match (all seats bots unless told), dealt if full."""
    command = CreateMatch(
        match_id="m-test",
        ruleset=ruleset,
        seats=seats,
        secret=secret_from_text_seed(seed),
        target=target,
        bots=tuple(range(seats)) if bots is None else tuple(bots),
        bot_kind=bot_kind,
    )
    events = list(decide(INITIAL_STATE, command))
    return events, fold(events)


def position(
    ruleset: str = "classic",
    seats: int = 2,
    *,
    hands: Sequence[Sequence[str]],
    floor: Sequence[str] = (),
    turn: int = 0,
    stock: Sequence[str] = ("2H",) * 0,
    trail_pair: tuple[str, str] | None = None,
    totals: tuple[int, int] = (0, 0),
    carry: int = 0,
    round_number: int = 1,
    target: int | None = None,
) -> MatchState:
    """A hand-made position in play: given hands, floor, stock and turn."""
    _, state = created(ruleset, seats, target=target)
    return replace(
        state,
        hands=tuple(tuple(h) for h in hands),
        in_hands=sum(len(h) for h in hands),
        floor=tuple(floor),
        stock=tuple(stock),
        turn=turn,
        trail_pair=trail_pair,
        totals=totals,
        carry=carry,
        round=round_number,
    )


def apply(state: MatchState, events: Sequence[Event]) -> MatchState:
    """The state after ``events``."""
    for event in events:
        state = evolve(state, event)
    return state


def easy_position(ruleset: str, seats: int, seed: str, plays: int) -> MatchState:
    """The position ``plays`` plays into an easy-bot match (or its end, if it comes first)."""
    _, state = created(ruleset, seats, seed=seed, bot_kind="easy")
    bots = bots_for(state)
    for _ in range(plays):
        if state.status != "playing":
            break
        seat = state.turn
        assert seat is not None
        state = fold(decide(state, PlayCard(seat, bot_card(bots[seat], state, seat))), state)
    return state
