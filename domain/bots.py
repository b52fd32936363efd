"""Bots: the easy and the strong bot (domain/strong_bot.py), which see only their seat's view,
and a seeded random bot for tests."""

from __future__ import annotations

from typing import Final, Protocol

from domain.bot_kinds import DEFAULT_BUDGET, LOGIC_VERSION
from domain.cards import CLASSIC_POINTS, DECK, JACKS, KOMI, VALUE, Card
from domain.fairness import Stream, bot_stream
from domain.play import remaining_floor, resolve_play
from domain.rulesets import FIRST_FLOOR_CARDS, ruleset
from domain.state import MatchState
from domain.strong_bot import StrongBot
from domain.views import SeatView, seat_view

CARDS_DEALT_PER_ROUND: Final = len(DECK) - FIRST_FLOOR_CARDS
"""R4, R5: the 52 cards less the 4 of the first floor go to the hands over a round's deals."""


class Bot(Protocol):
    """Anything that picks a card to play from its seat's view."""

    def choose(self, view: SeatView) -> Card:
        """The card to play; ``view`` is exactly what this seat may see."""
        ...


class RandomBot:
    """Plays a uniformly random card of its current hand, drawing from the ``bot/SEAT`` stream
    (docs/fairness.md)."""

    def __init__(self, key: bytes, seat: int) -> None:
        self.seat = seat
        self.stream: Stream = bot_stream(key, seat)

    @classmethod
    def resume(cls, key: bytes, seat: int, hand_size: int, plays_made: int) -> RandomBot:
        """The bot as it stands after ``plays_made`` plays: each deal its hand shrinks from
        ``hand_size`` cards to 1, and each play drew uniform(cards then in hand)."""
        bot = cls(key, seat)
        for k in range(plays_made):
            bot.stream.uniform(hand_size - k % hand_size)
        return bot

    def choose_from(self, hand: tuple[Card, ...]) -> Card:
        """A uniformly random card of ``hand``."""
        return hand[self.stream.uniform(len(hand))]

    def choose(self, view: SeatView) -> Card:
        """A uniformly random card of the seat's hand."""
        return self.choose_from(view.hand)


class EasyBot:
    """A simple greedy player that looks one play ahead, from its own seat's view only.

    It values Basras most, then point cards and card count, keeps its Jacks for loaded floors,
    and avoids leaving a lone card or a small all-number floor that the next player could clear.
    """

    def choose(self, view: SeatView) -> Card:
        """The best card by the easy heuristic; ties go to the earliest card in the hand."""
        rules = ruleset(view.ruleset)
        best: tuple[float, int] | None = None
        best_card = view.hand[0]
        for index, card in enumerate(view.hand):
            outcome = resolve_play(rules, view.floor, card, view.trail_pair)
            score = 0.0
            if outcome.captured:
                score += 4.0 * outcome.basra
                score += 3.0 * (
                    CLASSIC_POINTS[card] + sum(CLASSIC_POINTS[c] for c in outcome.captured)
                )
                score += 1.0 + len(outcome.captured)
                after = remaining_floor(view.floor, outcome.captured)
                if card in JACKS or (card == KOMI and rules.komi_has_power):
                    score -= 5.0  # a sweep is worth keeping for a loaded floor
            else:
                after = (*view.floor, card)
                score -= 2.5 * CLASSIC_POINTS[card]  # a trailed point card is a gift
                if VALUE[card] == 0 and card not in JACKS:
                    score += 0.5  # queens and kings are the safest discards
                if card in JACKS:
                    score -= 4.0
            score -= _exposure(after)
            key = (score, -index)
            if best is None or key > best:
                best = key
                best_card = card
        return best_card


def _exposure(floor: tuple[Card, ...]) -> float:
    """How much a floor invites the next player to clear it for a Basra."""
    if not floor:
        return 0.0
    values = [VALUE[c] for c in floor]
    if len(floor) == 1:
        return 6.0
    if all(values) and sum(values) <= 10:
        return 3.0
    return 0.0


def plays_made(state: MatchState, seat: int) -> int:
    """How many cards ``seat`` has played so far in the match: every deal of every round gives
    each seat a full hand (R5), and the cards it still holds are the ones not yet played."""
    setup = state.setup
    if setup is None or state.round == 0:
        return 0
    hand_size = ruleset(setup.ruleset).hand_size
    deals_per_round = CARDS_DEALT_PER_ROUND // (setup.seats * hand_size)
    deals = (state.round - 1) * deals_per_round + state.deal
    return deals * hand_size - len(state.hands[seat])


def bot_at(state: MatchState, seat: int) -> Bot:
    """The bot of ``seat`` as it stands in ``state``: a random bot resumes its stream after the
    draws of every play the seat has made; the easy bot remembers nothing, so it is new."""
    setup = state.setup
    assert setup is not None and setup.key is not None
    kind = setup.kind_at(seat)
    if kind == "random":
        hand_size = ruleset(setup.ruleset).hand_size
        return RandomBot.resume(setup.key, seat, hand_size, plays_made(state, seat))
    return make_bot(kind, setup.key, seat, setup.bot_budget, setup.bot_logic)


def make_bot(
    kind: str, key: bytes, seat: int, budget: int | None = None, logic: int = LOGIC_VERSION
) -> Bot:
    """A bot of ``kind`` (``easy``, ``random`` or ``strong``, sampling ``budget`` deals per
    decision the way ``logic`` numbers) for ``seat``."""
    if kind == "random":
        return RandomBot(key, seat)
    if kind == "strong":
        return StrongBot(key, seat, DEFAULT_BUDGET if budget is None else budget, logic)
    return EasyBot()


def bot_card(bot: Bot, state: MatchState, seat: int) -> Card:
    """The card ``bot`` plays for ``seat`` at ``state``, from what that seat may know only: the
    strong bot reads its view and the round's taken cards, which were face up (R19, R23)."""
    if isinstance(bot, StrongBot):
        return bot.choose_at(state, seat)
    return bot.choose(seat_view(state, seat))
