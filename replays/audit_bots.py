"""Re-adjudicating bot choices: a bot seat, or a seat whose clock ran out, plays the bot's card."""

from __future__ import annotations

from domain.bots import Bot, EasyBot, bot_at
from domain.events import CardPlayed
from domain.state import MatchState
from domain.strong_bot import DEFAULT_BUDGET, LOGIC_VERSION, StrongBot
from domain.views import seat_view
from replays.audit_text import Diverged, card_name


class BotReferee:
    """Keeps each random bot's stream from its first checked play on, to compute its picks.

    A strong bot's picks are re-run only when ``strong`` is set: each costs its whole budget.
    """

    def __init__(self, *, enabled: bool, strong: bool = False) -> None:
        self.enabled = enabled
        self.strong = strong
        self.random_bots: dict[int, Bot] = {}

    def check(self, event: CardPlayed, state: MatchState) -> None:
        """Raise when a bot seat, or an ``auto`` play (R25), is not what the bot picks."""
        seat = event.seat
        setup = state.setup
        if not self.enabled or setup is None or state.turn != seat:
            return
        if seat >= len(state.hands) or event.card not in state.hands[seat]:
            return  # decide names the fault
        kind: str | None = None
        if state.is_bot(seat):
            kind = setup.kind_at(seat)
        elif event.auto:
            kind = "easy"  # R25: the easy bot plays for a seat whose clock ran out
        if kind is None:
            return
        if kind == "strong":
            if not self.strong or setup.key is None:
                return  # decide has judged the card legal; its pick is re-run on request only
            budget = setup.bot_budget or DEFAULT_BUDGET
            logic = setup.bot_logic
            if not 1 <= logic <= LOGIC_VERSION:
                raise Diverged(
                    "bot",
                    f"seat {seat} is a strong bot of logic {logic}, which this version cannot "
                    f"re-run (it knows 1 to {LOGIC_VERSION})",
                )
            choice = StrongBot(setup.key, seat, budget, logic).choose_at(state, seat)
            source = f"seat {seat} is a strong bot (budget {budget}, logic {logic}), which picks"
        elif kind == "random":
            if setup.key is None:
                return  # without the secret the random bot's draws are unknown
            bot = self.random_bots.get(seat)
            if bot is None:
                # Its stream resumed after the draws of every play the seat made before.
                bot = self.random_bots[seat] = bot_at(state, seat)
            choice = bot.choose(seat_view(state, seat))
            source = f"seat {seat} is a random bot: its stream bot/{seat} picks"
        else:
            choice = EasyBot().choose(seat_view(state, seat))
            source = (
                f"seat {seat} was played for by the easy bot (R25), which picks"
                if event.auto and not state.is_bot(seat)
                else f"seat {seat} is an easy bot, which picks"
            )
        if choice != event.card:
            raise Diverged("bot", f"{source} {card_name(choice)}, not {card_name(event.card)}")
