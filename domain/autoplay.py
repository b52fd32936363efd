"""Above the rules: the cards the server plays itself, chosen by the bots, then judged by
``decide`` like any other.

The clock plays the easy bot's card for a seat whose turn ran out at four seats (R25), and each
bot on turn plays its own pick until a person is on turn or the match ends (R13). The rules
modules never import the bots; the service, self-play and audits come through here.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from domain.bots import Bot, EasyBot, bot_at, bot_card
from domain.cards import Card
from domain.commands import AnyCommand, ExpireTurn, PlayCard
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve
from domain.state import MatchState
from domain.views import seat_view

OnEvent = Callable[[Event, int], object]
"""Told of each event a bot's play made, with that bot's seat."""


def clock_card(state: MatchState, seat: int) -> Card:
    """R25: the card the clock plays for ``seat`` whose turn ran out: the easy bot's pick, from
    that seat's own view only."""
    return EasyBot().choose(seat_view(state, seat))


def with_clock_card(state: MatchState, command: AnyCommand) -> AnyCommand:
    """``command``, an expiry at four seats then naming the card the clock plays (R25); the
    rules refuse an expiry that is stale or early whatever it names."""
    if not isinstance(command, ExpireTurn) or command.card is not None:
        return command
    setup = state.setup
    seat = command.seat
    if (
        setup is None
        or setup.seats == 2  # R25: two seats forfeit; no card is played
        or state.status != "playing"
        or state.turn != seat
        or not state.hands[seat]
    ):
        return command
    return replace(command, card=clock_card(state, seat))


def judge(state: MatchState, command: AnyCommand) -> tuple[Event, ...]:
    """``decide``, with the card the clock plays for a seat whose turn ran out chosen first."""
    return decide(state, with_clock_card(state, command))


def play_bot_turns(
    state: MatchState,
    bots: dict[int, Bot] | None = None,
    *,
    now_us: int | None = None,
    on_event: OnEvent | None = None,
) -> MatchState:
    """Every bot on turn plays until a person is on turn or the match ends; the state after.

    ``bots`` holds each seat's bot once made (a random bot resumes its seeded stream, docs/
    fairness.md); ``now_us`` is the command's time: a bot's play that passes the turn to a
    person sets that person's deadline from it (R25). An imported match without its secret has
    no bot streams: its bots wait.
    """
    made = {} if bots is None else bots
    while state.status == "playing" and state.turn is not None and state.is_bot(state.turn):
        seat = state.turn
        if state.setup is None or state.setup.key is None:
            break
        bot = made.get(seat)
        if bot is None:
            bot = made[seat] = bot_at(state, seat)
        card = bot_card(bot, state, seat)  # from what the seat may know only (R23)
        for event in decide(state, PlayCard(seat=seat, card=card, now_us=now_us)):
            state = evolve(state, event)
            if on_event is not None:
                on_event(event, seat)
    return state
