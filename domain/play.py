"""What one card does to the floor: the capture (R8-R12) and its Basra (R14-R18)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.capture import best_haul
from domain.cards import CLASSIC_POINTS, RANK, VALUE, Card
from domain.rulesets import Classic


class PlayOutcome(msgspec.Struct, frozen=True, gc=False):
    """What a card would take, group by group, and the Basra points it would score."""

    captured: tuple[Card, ...]
    groups: tuple[tuple[Card, ...], ...]
    basra: int
    sweep: bool


_TRAIL = PlayOutcome((), (), 0, False)


def resolve_play(
    rules: Classic,
    floor: tuple[Card, ...],
    card: Card,
    trail_pair: tuple[Card, Card] | None = None,
) -> PlayOutcome:
    """The outcome of playing ``card`` onto ``floor`` under ``rules``; changes nothing (R24)."""
    if not floor:
        return _TRAIL  # R10, R11: a sweep on an empty floor stays; nothing else can take
    if card in rules.sweepers:
        # R10, R11: the Jack (and the Komi with power) take the whole floor.
        groups: tuple[tuple[Card, ...], ...] = (floor,)
        return PlayOutcome(floor, groups, rules.basra(card, floor, floor, groups, trail_pair), True)
    captured, groups = takes(VALUE[card], RANK[card], floor)
    if not captured:
        return _TRAIL
    basra = (
        rules.basra(card, floor, captured, groups, trail_pair)
        if len(captured) == len(floor)
        else 0  # R14: only a play that leaves the floor empty can be a Basra
    )
    return PlayOutcome(captured, groups, basra, False)


_OF_RANK: dict[str, frozenset[Card]] = {
    rank: frozenset(c for c in RANK if RANK[c] == rank) for rank in set(RANK.values())
}
"""The four cards of every rank."""


def takes(
    value: int, rank: str, floor: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[tuple[Card, ...], ...]]:
    """What a card that does not sweep takes from ``floor``, and by which groups (R8, R9)."""
    if value == 0:
        # R9: a queen or king takes every floor card of its own rank, nothing else.
        same_rank = _OF_RANK[rank]
        if same_rank.isdisjoint(floor):
            return (), ()
        captured = tuple(filter(same_rank.__contains__, floor))
        return captured, _alone(captured)
    # R8: cards of the played value are always taken alone; only smaller numbers form sums,
    # so the solver sees just those (their order is all that tie-break (3) needs).
    same: list[Card] = []
    smaller: list[Card] = []
    total = 0
    for c in floor:
        v = VALUE[c]
        if v == value:
            same.append(c)
        elif 0 < v < value:
            smaller.append(c)
            total += v
    if total < value or len(smaller) < 2 or (len(smaller) == 2 and total != value):
        # Too little to make a sum, or a pair that does not add up to the value.
        if not same:
            return (), ()
        captured = tuple(same)
        return captured, _alone(captured)
    if total == value:
        # Every smaller number makes one group adding up to the value: all are taken.
        sums = [tuple(smaller)]
    elif len(smaller) == 3:
        # Three cards that do not add up to the value together: only a pair can. Pairs come in
        # floor-position order, so the first with the most points wins (R8 (2), then (3)).
        sums = []
        best = -1
        for x, y in ((0, 1), (0, 2), (1, 2)):
            a, b = smaller[x], smaller[y]
            if VALUE[a] + VALUE[b] == value:
                points = CLASSIC_POINTS[a] + CLASSIC_POINTS[b]
                if points > best:
                    best = points
                    sums = [(a, b)]
    else:
        sums = [tuple([smaller[i] for i in group]) for group in best_haul(value, smaller)]
    if not same:
        if len(sums) == 1:
            return sums[0], (sums[0],)
        if not sums:
            return (), ()
        # The solver lists groups by their first card in floor order already.
        taken = {c for group in sums for c in group}
        return tuple([c for c in floor if c in taken]), tuple(sums)
    groups = [(c,) for c in same] + sums
    taken = {c for group in groups for c in group}
    groups.sort(key=lambda group: floor.index(group[0]))
    return tuple([c for c in floor if c in taken]), tuple(groups)


def _alone(cards: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    """Each card a group of its own (R8: a card of the played rank is taken alone)."""
    if len(cards) == 1:
        return (cards,)
    return tuple(map(_one, cards))


def _one(card: Card) -> tuple[Card]:
    return (card,)


def remaining_floor(floor: Sequence[Card], captured: Sequence[Card]) -> tuple[Card, ...]:
    """R12: the floor after a capture; the cards left keep their order."""
    if len(captured) == len(floor):
        return ()
    taken = set(captured)
    return tuple(c for c in floor if c not in taken)
