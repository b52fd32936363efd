"""What a rules page says about a rule set, read from the rule set itself (docs/rules.md).

Every number a rules page states comes from here, and each is found by asking the rule set's
own data and decisions (a Jack on a lone Jack, a 7♦ on numbers adding up to so much), so a
page can never say one number while the game plays another.
"""

from __future__ import annotations

from typing import Final

import msgspec

from domain.cards import CLASSIC_POINTS, DECK, JACKS, RANK, VALUE, Card
from domain.results import DRAW_POINTS, LOSS_POINTS, WIN_POINTS
from domain.rulesets import FIRST_FLOOR_CARDS, MAJORITY_CARDS, Classic

POOL_SEATS: Final = 2
"""The deals a round are stated for two seats (the canonical game)."""


class RuleFacts(msgspec.Struct, frozen=True, kw_only=True):
    """The numbers and choices of one rule set, as its rules page states them."""

    ruleset: str
    hand_size: int
    first_floor: int
    deals_two_seats: int
    deals_four_seats: int
    komi_sweeps: bool
    basra_points: int
    """A Basra made by a 5 (the same for every number card but in Jordanian)."""
    basra_doubles: bool
    """Jordanian: a Basra is worth twice the card that makes it (queens and kings 10)."""
    basra_by_card: dict[str, int]
    """A Basra's worth by the card making it, for the cards a page names (A, 7, 10, K)."""
    basra_lone_card_only: bool
    """Lebanese: a Basra only on a lone card (or a lone card and one trailed)."""
    jack_basra: int
    """A Jack on a lone Jack (0: a Jack's sweep is never a Basra)."""
    komi_basra_limit: int | None
    """The 7♦'s sweep is a Basra on numbers adding up to this or less (None: never)."""
    komi_extra_cases: bool
    """Yemeni: also on only 10s, queens and kings, or numbers in equal groups."""
    deck_cards: int
    ace_value: int
    court_counts: int
    """What a queen or king counts as in a Basra's worth where the worth follows the card."""
    majority_cards: int
    majority_tie: int
    """The split of the deck no side wins the majority on."""
    majority_award: int
    majority_carries: bool
    point_cards: dict[str, int]
    """Each point card's points by rank or card (empty: no point cards)."""
    round_points: int
    """What a round pays without Basras: the majority and every point card."""
    target: int
    profile_points: dict[str, int]
    """R27: profile points for a win, a draw and a loss between people."""


def _komi_limit(rules: Classic) -> int | None:
    """The largest sum of an ace and one number card the 7♦ sweeps for a Basra."""
    if not rules.komi_has_power:
        return None
    found = None
    for total in range(2, 12):
        other = next(c for c in DECK if VALUE[c] == total - 1 and c[-1] == "C")
        if rules.komi_basra(["AC", other]):
            found = total
    return found


def rule_facts(rules: Classic) -> RuleFacts:
    """The facts of ``rules`` for its rules page."""
    named: tuple[Card, ...] = ("AC", "7C", "10C", "KC")
    basra_by_card = {RANK[c]: rules.clear_value(c) for c in named}
    lone_only = rules.basra("5C", ["2C", "3C"], ["2C", "3C"], [["2C", "3C"]], None) == 0
    points = (
        {"A": CLASSIC_POINTS["AC"], "J": CLASSIC_POINTS["JC"], "2C": CLASSIC_POINTS["2C"]}
        | {"10D": CLASSIC_POINTS["10D"]}
        if rules.scores_point_cards
        else {}
    )
    point_total = sum(CLASSIC_POINTS.values()) if rules.scores_point_cards else 0
    stock = len(DECK) - FIRST_FLOOR_CARDS
    return RuleFacts(
        ruleset=rules.name,
        hand_size=rules.hand_size,
        first_floor=FIRST_FLOOR_CARDS,
        deals_two_seats=stock // (POOL_SEATS * rules.hand_size),
        deals_four_seats=stock // (4 * rules.hand_size),
        komi_sweeps=rules.komi_has_power,
        basra_points=rules.clear_value("5C"),
        basra_doubles=len(set(basra_by_card.values())) > 1,
        basra_by_card=basra_by_card,
        basra_lone_card_only=lone_only,
        jack_basra=rules.jack_basra([sorted(JACKS)[0]]),
        komi_basra_limit=_komi_limit(rules),
        komi_extra_cases=rules.komi_has_power and rules.komi_basra(["10C", "QC"]),
        deck_cards=len(DECK),
        ace_value=VALUE["AC"],
        court_counts=rules.clear_value("KC") // 2,
        majority_cards=MAJORITY_CARDS,
        majority_tie=len(DECK) // 2,
        majority_award=rules.majority_award,
        majority_carries=rules.carries_ties,
        point_cards=points,
        round_points=rules.majority_award + point_total,
        target=rules.default_target,
        profile_points={"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": LOSS_POINTS},
    )
