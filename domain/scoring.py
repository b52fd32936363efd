"""Counting a round (R19-R21) and the end of a match by its score (R22)."""

from __future__ import annotations

from domain.cards import CLASSIC_POINTS
from domain.events import LastPickup, MatchEnded, RoundScored, SideScore
from domain.rulesets import MAJORITY_CARDS, MAX_ROUNDS, Classic
from domain.state import MatchSetup, MatchState


def score_round(state: MatchState, rules: Classic) -> RoundScored:
    """R19-R21: the last pickup, most cards with the carry, point cards and Basras."""
    cards = list(state.pile_cards)
    points = list(state.pile_points)
    pickup = None
    if state.floor and state.last_capturer is not None:
        side = state.last_capturer
        pickup = LastPickup(side=side, cards=state.floor)
        cards[side] += len(state.floor)
        points[side] += sum(map(CLASSIC_POINTS.__getitem__, state.floor))
    if not rules.scores_point_cards:
        points = [0, 0]  # R15: Egyptian has no point cards
    majority = [0, 0]
    carry = state.carry
    for side in (0, 1):
        if cards[side] >= MAJORITY_CARDS:
            majority[side] = rules.majority_award + carry  # R20: the carry goes to the next winner
            carry = 0
            break
    else:
        if rules.carries_ties:
            carry += rules.majority_award  # R20: 26-26 carries the award (not in Lebanese)
    sides = tuple(
        SideScore(
            cards=cards[s],
            majority=majority[s],
            points=points[s],
            basra=state.pile_basra[s],
            total=majority[s] + points[s] + state.pile_basra[s],
        )
        for s in (0, 1)
    )
    totals = tuple(state.totals[s] + sides[s].total for s in (0, 1))
    return RoundScored(
        round=state.round, last_pickup=pickup, sides=sides, carry=carry, totals=totals
    )


def match_result(scored: RoundScored, round_number: int, setup: MatchSetup) -> MatchEnded | None:
    """R22: one side at or past the target wins; both, the higher; level plays on; 30 rounds end."""
    a, b = scored.totals
    target = setup.target
    reveal = setup.revealed_secret()
    if (a >= target or b >= target) and a != b:
        return MatchEnded(0 if a > b else 1, "target", scored.totals, reveal)
    if round_number >= MAX_ROUNDS:
        winner = None if a == b else (0 if a > b else 1)
        return MatchEnded(winner, "round_limit", scored.totals, reveal)
    return None
