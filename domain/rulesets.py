"""The five rule sets as data plus the few decisions each overrides (R14-R18, R20, R22).

Classic is the base; each other rule set changes only what it names, like a chess variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from domain.capture import splits_into_equal_groups
from domain.cards import JACKS, KOMI, RANK, VALUE, Card
from domain.errors import UnknownRulesetError

MAX_ROUNDS: Final = 30
"""R22: after round 30 with no winner, the higher total wins and equal totals draw."""

FIRST_FLOOR_CARDS: Final = 4
"""R4: four cards are turned for the first floor of a round."""

MAJORITY_CARDS: Final = 27
"""R20: the side with 27 or more of the 52 cards takes the majority award."""


class Classic:
    """The default rules (R14): Basra 10, Komi Basra on numbers adding to 10 or less."""

    name: ClassVar[str] = "classic"
    hand_size: ClassVar[int] = 4
    komi_has_power: ClassVar[bool] = True
    majority_award: ClassVar[int] = 30
    carries_ties: ClassVar[bool] = True
    scores_point_cards: ClassVar[bool] = True
    default_target: ClassVar[int] = 101

    def __init__(self) -> None:
        self.sweepers: frozenset[Card] = JACKS | ({KOMI} if self.komi_has_power else set())
        """R10, R11: the Jack, and the 7♦ where it has power, take the whole floor."""

    def sweeps(self, card: Card) -> bool:
        """R10, R11: the Jack, and the 7♦ where it has power, take the whole floor."""
        return card in self.sweepers

    def sent_back_from_first_floor(self, card: Card) -> bool:
        """R4: the cards that go back to the bottom of the stock when turned for the first floor."""
        return self.sweeps(card)

    def basra(
        self,
        card: Card,
        floor_before: Sequence[Card],
        captured: Sequence[Card],
        groups: Sequence[Sequence[Card]],
        trail_pair: tuple[Card, Card] | None,
    ) -> int:
        """Basra points for a play that took ``captured`` from ``floor_before`` (0 if none)."""
        if not captured or len(captured) != len(floor_before):
            return 0  # R14: a Basra leaves the floor empty
        if card in JACKS:
            return self.jack_basra(floor_before)
        if card == KOMI and self.komi_has_power:
            return self.clear_value(card) if self.komi_basra(floor_before) else 0
        return self.clear_value(card)

    def jack_basra(self, floor_before: Sequence[Card]) -> int:
        """R14: a Jack's sweep is never a Basra in Classic."""
        return 0

    def komi_basra(self, floor_before: Sequence[Card]) -> bool:
        """R14: the Komi's sweep is a Basra when the floor was all numbers adding to 10 or less."""
        values = [VALUE[c] for c in floor_before]
        return all(values) and sum(values) <= 10

    def clear_value(self, card: Card) -> int:
        """R14: a Basra is worth 10."""
        return 10


class Egyptian(Classic):
    """R15: no point cards, a Jack on a lone Jack is a Jack Basra of 20, target 121."""

    name: ClassVar[str] = "egyptian"
    scores_point_cards: ClassVar[bool] = False
    default_target: ClassVar[int] = 121

    def jack_basra(self, floor_before: Sequence[Card]) -> int:
        """R15: a Jack on a floor of exactly one card, a Jack, is worth 20."""
        return 20 if len(floor_before) == 1 and floor_before[0] in JACKS else 0


class Lebanese(Classic):
    """R16 (Ashoush): 6 cards a deal, the 7♦ is plain, Basras only on a lone card, majority 3."""

    name: ClassVar[str] = "lebanese"
    hand_size: ClassVar[int] = 6
    komi_has_power: ClassVar[bool] = False
    majority_award: ClassVar[int] = 3
    carries_ties: ClassVar[bool] = False

    def basra(
        self,
        card: Card,
        floor_before: Sequence[Card],
        captured: Sequence[Card],
        groups: Sequence[Sequence[Card]],
        trail_pair: tuple[Card, Card] | None,
    ) -> int:
        """R16: (a) a lone card taken by its rank, (b) a lone card and a trailed one as one sum."""
        if not captured or len(captured) != len(floor_before):
            return 0
        if len(floor_before) == 1:
            # (a) a Jack counts only on a lone Jack: rank against rank.
            return 10 if RANK[floor_before[0]] == RANK[card] else 0
        if trail_pair is not None and len(floor_before) == 2 and tuple(floor_before) == trail_pair:
            x, y = trail_pair
            value = VALUE[card]
            if (
                value
                and VALUE[x]
                and VALUE[y]
                and VALUE[x] + VALUE[y] == value
                and len(groups) == 1
            ):
                return 10  # (b) X and Y taken as one group adding up to the card's value
        return 0


class Yemeni(Classic):
    """R17: Jack Basra 20 on a lone Jack, and three Komi Basra cases."""

    name: ClassVar[str] = "yemeni"

    def jack_basra(self, floor_before: Sequence[Card]) -> int:
        """R17: a Jack on a lone Jack is a Jack Basra of 20."""
        return 20 if len(floor_before) == 1 and floor_before[0] in JACKS else 0

    def komi_basra(self, floor_before: Sequence[Card]) -> bool:
        """R17: (i) numbers adding to under 10, (ii) only 10s, queens, kings, (iii) equal groups."""
        values = [VALUE[c] for c in floor_before]
        if all(values) and sum(values) < 10:
            return True  # (i)
        if all(RANK[c] in ("10", "Q", "K") for c in floor_before):
            return True  # (ii)
        return all(values) and splits_into_equal_groups(values, max_sum=9)  # (iii)


class Jordanian(Classic):
    """R18: a Basra is worth twice the card that makes it, queens and kings counting 10."""

    name: ClassVar[str] = "jordanian"

    def clear_value(self, card: Card) -> int:
        """R18: ace 2, 7 14, 10/Q/K 20; the Komi's Basra is 14."""
        value = VALUE[card]
        return 2 * (value if value else 10)


RULESETS: Final[dict[str, Classic]] = {
    rules.name: rules for rules in (Classic(), Egyptian(), Lebanese(), Yemeni(), Jordanian())
}
"""The five rule sets by their names in the replay format and the API (docs/replay-format.md)."""


def ruleset(name: str) -> Classic:
    """The rule set of this name: classic, egyptian, lebanese, yemeni or jordanian."""
    rules = RULESETS.get(name)
    if rules is None:
        raise UnknownRulesetError(f"unknown rule set {name!r}; choose one of {', '.join(RULESETS)}")
    return rules
