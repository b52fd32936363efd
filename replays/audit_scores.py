"""Re-adjudicating a round's score (R19-R21) and the end of a match (R22, R25, R26)."""

from __future__ import annotations

from domain.events import MatchEnded, RoundScored
from replays.audit_text import Diverged, pickup_text, totals_text, winner_text

_SCORE_FIELDS = (
    ("cards", "cards", "R19"),
    ("majority", "most-cards award", "R20"),
    ("points", "point cards", "R18a"),
    ("basra", "Basra points", "R14-R18"),
    ("total", "round total", "R21"),
)
"""Each side's score fields, what they are called, and the ruling that fixes them."""


def compare_score(event: RoundScored, wanted: RoundScored) -> RoundScored:
    """R19-R21: the last pickup, card counts, majority and carry, point cards, Basras, totals."""
    where = f"round {event.round}'s score"
    if event.round != wanted.round:
        raise Diverged("score", f"{where} is where round {wanted.round}'s belongs")
    if event.last_pickup != wanted.last_pickup:
        raise Diverged(
            "score",
            f"{where} gives the last floor {pickup_text(event)}; the rules give it"
            f" {pickup_text(wanted)} (R19)",
        )
    if len(event.sides) != len(wanted.sides):
        raise Diverged("score", f"{where} has {len(event.sides)} sides; a match has 2 (R2)")
    for side, (got, should) in enumerate(zip(event.sides, wanted.sides, strict=True)):
        for field, label, ruling in _SCORE_FIELDS:
            a, b = getattr(got, field), getattr(should, field)
            if a != b:
                raise Diverged(
                    "score", f"{where}: side {side}'s {label} is {a}; the rules give {b} ({ruling})"
                )
    if event.carry != wanted.carry:
        raise Diverged(
            "score", f"{where}: the carry is {event.carry}; the rules give {wanted.carry} (R20)"
        )
    if event.totals != wanted.totals:
        raise Diverged(
            "score",
            f"{where}: the match totals are {totals_text(event.totals)}; the rules give"
            f" {totals_text(wanted.totals)} (R21)",
        )
    return event


def compare_end(event: MatchEnded, wanted: MatchEnded) -> MatchEnded:
    """R22, R25, R26: who wins, why, the totals and the revealed secret."""
    if event.reason != wanted.reason:
        raise Diverged(
            "end", f"the match ends by {event.reason}; the rules end it by {wanted.reason} (R22)"
        )
    if event.winner != wanted.winner:
        raise Diverged(
            "end",
            f"the stream names {winner_text(event.winner)} the winner; the rules name"
            f" {winner_text(wanted.winner)} (R22, R26)",
        )
    if event.totals != wanted.totals:
        raise Diverged(
            "end",
            f"the final totals are {totals_text(event.totals)}; the rules give"
            f" {totals_text(wanted.totals)}",
        )
    if event.seed != wanted.seed:
        raise Diverged(
            "end", "the secret revealed at the end is not the match's secret (docs/fairness.md)"
        )
    if event.seat != wanted.seat:
        raise Diverged("end", f"the end names seat {event.seat}; the rules name seat {wanted.seat}")
    return event
