"""Re-adjudicating bot choices: a bot seat, or a seat whose clock ran out, plays the bot's card."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import msgspec

from domain.autoplay import clock_card
from domain.bot_kinds import DEFAULT_BUDGET, LOGIC_VERSION
from domain.bots import Bot, EasyBot, bot_at
from domain.events import CardPlayed
from domain.state import MatchState
from domain.strong_bot import StrongBot
from domain.views import seat_view
from replays.audit_text import Diverged, card_name

BOT_KINDS: Final = ("easy", "random", "strong", "auto")
"""The kinds a bot play is counted under, in this order; ``auto`` is the easy bot's card for a
person whose clock ran out (R25)."""


class BotPlays(msgspec.Struct, frozen=True, kw_only=True):
    """The bot plays a verification re-derived, by kind, and those it checked as legal only.

    A re-derived play is the card the bot picks, computed again from that seat's view at that
    moment (a random bot's draw from its stream ``bot/SEAT``, a strong bot's sampled deals from
    what the seat may know), and found equal to the card recorded. A play checked as legal only
    is a strong bot's without ``--bots``, or a random bot's when the secret is not known: it is
    judged as any play is, a legal card of the seat's own hand. Counted up to the divergence.
    """

    rederived: int = 0
    by_kind: dict[str, int] = msgspec.field(default_factory=dict)
    legal_only: dict[str, int] = msgspec.field(default_factory=dict)


def bot_plays_of(rederived: dict[str, int], legal_only: dict[str, int]) -> BotPlays:
    """Counts by kind as a ``BotPlays``, kinds in ``BOT_KINDS`` order, none counted zero."""
    return BotPlays(
        rederived=sum(rederived.values()),
        by_kind={kind: rederived[kind] for kind in BOT_KINDS if rederived.get(kind)},
        legal_only={kind: legal_only[kind] for kind in BOT_KINDS if legal_only.get(kind)},
    )


def total_bot_plays(counted: Iterable[BotPlays]) -> BotPlays:
    """The bot plays of several verifications added up (``verify --all``)."""
    rederived: dict[str, int] = {}
    legal_only: dict[str, int] = {}
    for one in counted:
        for kind, count in one.by_kind.items():
            rederived[kind] = rederived.get(kind, 0) + count
        for kind, count in one.legal_only.items():
            legal_only[kind] = legal_only.get(kind, 0) + count
    return bot_plays_of(rederived, legal_only)


def _plays(count: int, what: str) -> str:
    return f"{count} {what} play{'' if count == 1 else 's'}"


def bot_plays_text(counted: BotPlays) -> str:
    """``verify``'s words for the bot plays: how many it re-derived, from what, and which it
    checked as legal cards only, e.g. ``12 bot plays re-derived from each bot's seat view
    (easy: 8, strong: 4)``."""
    if not counted.rederived and not counted.legal_only:
        return "no bot play to re-derive"
    kinds = ", ".join(f"{kind}: {count}" for kind, count in counted.by_kind.items())
    words = _plays(counted.rederived, "bot") + " re-derived from each bot's seat view"
    if kinds:
        words += f" ({kinds})"
    why = {"strong": "--bots re-runs them", "random": "their stream needs the secret"}
    for kind, count in counted.legal_only.items():
        words += f"; {_plays(count, f'{kind} bot')} checked as legal cards only ({why[kind]})"
    return words


class BotReferee:
    """Keeps each random bot's stream from its first checked play on, to compute its picks,
    and counts the bot plays it re-derived and those it could only leave to the rules.

    A strong bot's picks are re-run only when ``strong`` is set: each costs its whole budget.
    """

    def __init__(self, *, enabled: bool, strong: bool = False) -> None:
        self.enabled = enabled
        self.strong = strong
        self.random_bots: dict[int, Bot] = {}
        self.rederived: dict[str, int] = {}
        self.legal_only: dict[str, int] = {}

    def counted(self) -> BotPlays:
        """The bot plays checked so far."""
        return bot_plays_of(self.rederived, self.legal_only)

    def _count(self, counts: dict[str, int], kind: str) -> None:
        counts[kind] = counts.get(kind, 0) + 1

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
                # decide has judged the card legal; its pick is re-run on request only
                self._count(self.legal_only, kind)
                return
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
                self._count(self.legal_only, kind)  # its draws come from the secret
                return
            bot = self.random_bots.get(seat)
            if bot is None:
                # Its stream resumed after the draws of every play the seat made before.
                bot = self.random_bots[seat] = bot_at(state, seat)
            choice = bot.choose(seat_view(state, seat))
            source = f"seat {seat} is a random bot: its stream bot/{seat} picks"
        elif event.auto and not state.is_bot(seat):
            choice = clock_card(state, seat)
            source = f"seat {seat} was played for by the easy bot (R25), which picks"
        else:
            choice = EasyBot().choose(seat_view(state, seat))
            source = f"seat {seat} is an easy bot, which picks"
        if choice != event.card:
            raise Diverged("bot", f"{source} {card_name(choice)}, not {card_name(event.card)}")
        self._count(self.rederived, "auto" if event.auto and not state.is_bot(seat) else kind)
