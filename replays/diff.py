"""What changed between two positions of a match: plays, captures by group, Basras, scores."""

from __future__ import annotations

from typing import assert_never

import msgspec

from domain.cards import Card
from domain.events import (
    CardPlayed,
    CardsDealt,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    tagged,
)
from domain.redaction import SUPPORT
from domain.state import side_of
from replays.cursor import MatchCursor, Viewer
from replays.words import card_text


class PlayChange(msgspec.Struct, frozen=True, kw_only=True):
    """One play between the two positions: what it took, group by group, and its Basra."""

    seq: int
    seat: int
    card: Card
    captured: tuple[Card, ...]
    groups: tuple[tuple[Card, ...], ...]
    basra: int
    sweep: bool


class PositionDiff(msgspec.Struct, frozen=True, kw_only=True):
    """What changed from position ``from_seq`` to ``to_seq`` (``backward`` when it is earlier).

    ``dealt`` holds the cards dealt to each seat in between, ``None`` for a hand the viewer may
    not see (R23); everything else is public.
    """

    from_seq: int
    to_seq: int
    backward: bool
    events: int
    plays: tuple[PlayChange, ...]
    basras: tuple[PlayChange, ...]
    taken: tuple[tuple[Card, ...], ...]
    dealt: tuple[tuple[Card, ...] | None, ...]
    rounds_started: tuple[int, ...]
    rounds_scored: tuple[RoundScored, ...]
    scores: tuple[tuple[int, ...], tuple[int, ...]]
    carry: tuple[int, int]
    piles: tuple[tuple[int, ...], tuple[int, ...]]
    floor: tuple[tuple[Card, ...], tuple[Card, ...]]


def diff(cursor: MatchCursor, from_seq: int, to_seq: int, viewer: Viewer = SUPPORT) -> PositionDiff:
    """What changed between the positions after ``from_seq`` and after ``to_seq``."""
    cursor.check_viewer(viewer)
    before = cursor.state(from_seq)
    after = cursor.state(to_seq)
    low, high = sorted((from_seq, to_seq))
    seats = cursor.seats
    plays: list[PlayChange] = []
    taken: list[list[Card]] = [[], []]
    dealt: list[list[Card]] = [[] for _ in range(seats)]
    started: list[int] = []
    scored: list[RoundScored] = []
    for seq in range(low + 1, high + 1):
        match tagged(cursor.recorded(seq).event):
            case CardPlayed() as event:
                plays.append(
                    PlayChange(
                        seq=seq,
                        seat=event.seat,
                        card=event.card,
                        captured=event.captured,
                        groups=event.groups,
                        basra=event.basra,
                        sweep=event.sweep,
                    )
                )
                taken[side_of(event.seat)].extend(event.captured)
            case CardsDealt(hands=hands):
                for seat, hand in enumerate(hands):
                    if hand is not None and seat < seats:
                        dealt[seat].extend(hand)
            case RoundStarted(round=number):
                started.append(number)
            case RoundScored() as event:
                scored.append(event)
                if event.last_pickup is not None:
                    # R19: the floor's last cards go to the side that captured last.
                    taken[event.last_pickup.side].extend(event.last_pickup.cards)
            case MatchCreated() | SeatTaken() | FloorDealt() | MatchEnded() | RematchCreated():
                pass
            case unknown:
                assert_never(unknown)
    visible = [viewer in (SUPPORT, seat) for seat in range(seats)]
    return PositionDiff(
        from_seq=from_seq,
        to_seq=to_seq,
        backward=to_seq < from_seq,
        events=high - low,
        plays=tuple(plays),
        basras=tuple(p for p in plays if p.basra),
        taken=(tuple(taken[0]), tuple(taken[1])),
        dealt=tuple(tuple(d) if visible[s] else None for s, d in enumerate(dealt)),
        rounds_started=tuple(started),
        rounds_scored=tuple(scored),
        scores=(before.totals, after.totals),
        carry=(before.carry, after.carry),
        piles=(before.pile_cards, after.pile_cards),
        floor=(before.floor, after.floor),
    )


def describe_diff(change: PositionDiff) -> str:
    """A diff in words: plays, what each side took, Basras announced, scores and carry."""
    sign = "back from" if change.backward else "since"
    origin = change.from_seq
    count = len(change.plays)
    parts = [f"{count} play{'s' if count != 1 else ''}" if count else "no play"]
    took = [f"side {side} took {len(cards)}" for side, cards in enumerate(change.taken) if cards]
    if took:
        parts.append(", ".join(took) + " from the floor")
    if change.basras:
        parts.append(
            "Basra "
            + ", ".join(f"seat {p.seat} +{p.basra} ({card_text(p.card)})" for p in change.basras)
        )
    for scored in change.rounds_scored:
        parts.append(f"round {scored.round} scored")
    before, after = change.scores
    if before != after:
        parts.append(f"scores {_totals(before)} → {_totals(after)}")
    if change.carry[0] != change.carry[1]:
        parts.append(f"carry {change.carry[0]} → {change.carry[1]}")  # R20
    return f"{sign} seq {origin}: " + "; ".join(parts)


def _totals(totals: tuple[int, ...]) -> str:
    return "–".join(str(t) for t in totals)
