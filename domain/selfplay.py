"""Bot-only matches played entirely in memory: decide, evolve, repeat until the match ends."""

from __future__ import annotations

from domain.autoplay import play_bot_turns
from domain.bots import Bot, bot_at
from domain.commands import CreateMatch
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


def play_match(command: CreateMatch) -> tuple[list[Event], MatchState]:
    """Create a match whose every seat is a bot and play it to the end."""
    events = list(decide(INITIAL_STATE, command))
    state = INITIAL_STATE
    for event in events:
        state = evolve(state, event)

    def kept(event: Event, _seat: int) -> None:
        events.append(event)

    state = play_bot_turns(state, bots_for(state), on_event=kept)
    return events, state
