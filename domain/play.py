"""What one card does to the floor: the capture (R8-R12) and its Basra (R14-R18)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.capture import best_haul
from domain.cards import RANK, VALUE, Card
from domain.rulesets import Classic


class PlayOutcome(msgspec.Struct, frozen=True):
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
    if rules.sweeps(card):
        # R10, R11: the Jack (and the Komi with power) take the whole floor.
        groups: tuple[tuple[Card, ...], ...] = (floor,)
        return PlayOutcome(floor, groups, rules.basra(card, floor, floor, groups, trail_pair), True)
    value = VALUE[card]
    if value == 0:
        # R9: a queen or king takes every floor card of its own rank, nothing else.
        rank = RANK[card]
        captured = tuple(c for c in floor if RANK[c] == rank)
        if not captured:
            return _TRAIL
        groups = tuple((c,) for c in captured)
    else:
        # R8: the largest haul of singles and sums, chosen by the exact solver.
        positions = best_haul(value, floor)
        if not positions:
            return _TRAIL
        groups = tuple(tuple(floor[i] for i in group) for group in positions)
        if len(positions) == 1:
            captured = groups[0]
        else:
            taken = sorted(i for group in positions for i in group)
            captured = tuple(floor[i] for i in taken)
    basra = rules.basra(card, floor, captured, groups, trail_pair)
    return PlayOutcome(captured, groups, basra, False)


def remaining_floor(floor: Sequence[Card], captured: Sequence[Card]) -> tuple[Card, ...]:
    """R12: the floor after a capture; the cards left keep their order."""
    if len(captured) == len(floor):
        return ()
    taken = set(captured)
    return tuple(c for c in floor if c not in taken)
