"""Bot-only matches played entirely in memory: decide, evolve, repeat until the match ends."""

from __future__ import annotations

from domain.bots import Bot, bot_at, bot_card
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve
from domain.state import INITIAL_STATE, MatchState


def bots_for(state: MatchState) -> dict[int, Bot]:
    """The bot of every bot seat of a created match as it stands in ``state``, each on its own
    seeded stream."""
    setup = state.setup
    assert setup is not None and setup.key is not None
    return {seat: bot_at(state, seat) for seat in setup.bots}


def play_bot_turns(
    state: MatchState, bots: dict[int, Bot], events: list[Event] | None = None
) -> MatchState:
    """Let bots play while one is on turn; append what happens to ``events``."""
    while state.status == "playing" and state.turn in bots:
        seat = state.turn
        card = bot_card(bots[seat], state, seat)
        for event in decide(state, PlayCard(seat, card)):
            state = evolve(state, event)
            if events is not None:
                events.append(event)
    return state


def play_match(command: CreateMatch) -> tuple[list[Event], MatchState]:
    """Create a match whose every seat is a bot and play it to the end."""
    events = list(decide(INITIAL_STATE, command))
    state = INITIAL_STATE
    for event in events:
        state = evolve(state, event)
    state = play_bot_turns(state, bots_for(state), events)
    return events, state
