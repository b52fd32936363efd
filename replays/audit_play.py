"""Re-adjudicating one play against the rules' own: what it takes, by which groups, its Basra."""

from __future__ import annotations

from domain.events import CardPlayed
from domain.rulesets import Classic
from replays.audit_text import Diverged, card_name, groups_text
from replays.words import cards_text

BASRA_RULING = {
    "classic": "R14",
    "egyptian": "R15",
    "lebanese": "R16",
    "yemeni": "R17",
    "jordanian": "R18",
}
"""The ruling that decides Basras in each rule set."""


def compare_play(
    event: CardPlayed, wanted: CardPlayed, rules: Classic, *, lenient: bool
) -> CardPlayed:
    """R8-R18: the play as the rules make it; ``lenient`` lets ``groups``/``sweep`` be left out."""
    head = f"seat {event.seat} plays {card_name(event.card)}"
    if event.captured != wanted.captured:
        took = cards_text(event.captured) if event.captured else "nothing"
        should = cards_text(wanted.captured) if wanted.captured else "nothing (a trail, R12)"
        raise Diverged(
            "play", f"{head} and the stream has it take {took}; the rules take {should} (R8-R11)"
        )
    if event.basra != wanted.basra:
        raise Diverged(
            "play",
            f"{head} and the stream scores a Basra of {event.basra}; under {rules.name} rules"
            f" it scores {wanted.basra} ({BASRA_RULING[rules.name]})",
        )
    groups_given = bool(event.groups) or not lenient
    if groups_given and event.groups != wanted.groups:
        raise Diverged(
            "play",
            f"{head} and the stream groups its haul as {groups_text(event.groups)}; the rules"
            f" group it as {groups_text(wanted.groups)} (R8)",
        )
    sweep_given = event.sweep or not lenient
    if sweep_given and event.sweep != wanted.sweep:
        raise Diverged(
            "play",
            f"{head} and the stream marks it {'a' if event.sweep else 'no'} sweep; the rules"
            f" say {'a' if wanted.sweep else 'no'} sweep (R10, R11)",
        )
    if event.auto != wanted.auto or event.seat != wanted.seat or event.card != wanted.card:
        raise Diverged("play", f"{head}: the recorded play differs from the rules' one")
    return wanted
