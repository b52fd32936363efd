"""Re-adjudicating bot choices: a bot seat, or a seat whose clock ran out, plays the bot's card."""

from __future__ import annotations

from domain.bots import EasyBot, RandomBot
from domain.events import CardPlayed
from domain.rulesets import RULESETS
from domain.state import MatchState
from domain.views import seat_view
from replays.audit_text import Diverged, card_name


class BotReferee:
    """Follows every seat's plays so that each bot's next pick can be computed again."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.random_bots: dict[int, RandomBot] = {}
        self.plays_by_seat: dict[int, int] = {}

    def check(self, event: CardPlayed, state: MatchState) -> None:
        """Raise when a bot seat, or an ``auto`` play (R25), is not what the bot picks."""
        seat = event.seat
        count = self.plays_by_seat.get(seat, 0)
        self.plays_by_seat[seat] = count + 1
        setup = state.setup
        if not self.enabled or setup is None or state.turn != seat:
            return
        if seat >= len(state.hands) or event.card not in state.hands[seat]:
            return  # decide names the fault
        kind: str | None = None
        if state.is_bot(seat):
            kind = setup.bot_kind
        elif event.auto:
            kind = "easy"  # R25: the easy bot plays for a seat whose clock ran out
        if kind is None:
            return
        if kind == "random":
            if setup.key is None:
                return  # without the secret the random bot's draws are unknown
            bot = self.random_bots.get(seat)
            if bot is None:
                hand_size = RULESETS[setup.ruleset].hand_size
                bot = RandomBot.resume(setup.key, seat, hand_size, count)
                self.random_bots[seat] = bot
            choice = bot.choose_from(state.hands[seat])
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
