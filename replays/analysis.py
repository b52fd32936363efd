"""Analysis of a recorded match: for every person's play, what the strong bot would have played
from that seat's view at that moment, the expected points of both, and what the play cost.

The strong bot (domain/strong_bot.py) values each card of the hand by its mean outcome for the
seat's side over sampled deals of the cards the seat had not seen: the side's points for the rest
of the round less the other side's. Its deals come from the stream ``analysis/SEAT/N`` of the
match key, so an analysis repeats exactly and never draws from a bot's own stream. A play that
cost at least ``MISTAKE_POINTS`` is a mistake, given a reason in words where one of the seeds'
strategy points applies (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import msgspec

from domain.bot_kinds import DEFAULT_BUDGET
from domain.cards import CLASSIC_POINTS, JACKS, KOMI, RANK, VALUE, Card, display
from domain.errors import MatchNotEndedError
from domain.events import CardPlayed, Event, MatchEnded
from domain.evolve import evolve
from domain.play import remaining_floor, resolve_play
from domain.recorded import RecordedEvent
from domain.rulesets import ruleset
from domain.state import INITIAL_STATE, MatchState
from domain.strong_bot import analysis_key, best_card, evaluate, knowledge
from replays.verification import Verification

MISTAKE_POINTS: Final = 2.0
"""A play whose expected points fall this far below the strong bot's card is a mistake."""

LABEL: Final = "analysis"
"""The analysis draws its deals from the streams ``analysis/SEAT/N`` (docs/fairness.md)."""


class PlayAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """One person's play against the strong bot's pick from the same seat's view.

    ``played_points`` and ``best_points`` are the expected points of the seat's side for the
    rest of the round less the other side's; ``cost`` is how many points the play gave up.
    """

    seq: int
    play: int
    round: int
    seat: int
    played: Card
    best: Card
    played_points: float
    best_points: float
    cost: float
    mistake: bool
    reason: str | None


class MatchAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """Every person's play of a match analysed, and the mistakes, the costliest first."""

    match_id: str
    ended: bool
    budget: int
    plays: tuple[PlayAnalysis, ...]
    mistakes: tuple[PlayAnalysis, ...]


def analyse(
    events: Iterable[Event],
    *,
    budget: int = DEFAULT_BUDGET,
    seqs: Sequence[int] | None = None,
    only: int | None = None,
) -> MatchAnalysis:
    """The analysis of every play a person made in ``events`` (a whole stream, or its start).

    Bot seats and plays the clock made for a person (``auto``, R25) are not analysed. ``seqs``
    numbers the events (1, 2, … when not given); ``only`` analyses that one play number alone.
    """
    state = INITIAL_STATE
    plays: list[PlayAnalysis] = []
    basras: dict[int, int] = {}
    number = 0
    for index, event in enumerate(events):
        seq = seqs[index] if seqs is not None else index + 1
        if isinstance(event, CardPlayed):
            number += 1
            basras[number] = event.basra
            wanted = only is None or only == number
            if wanted and _by_a_person(state, event):
                plays.append(_analysed(state, event, seq, number, budget))
        state = evolve(state, event)
    plays = _with_consequences(plays, basras)
    setup = state.setup
    mistakes = sorted((p for p in plays if p.mistake), key=lambda p: (-p.cost, p.seq))
    return MatchAnalysis(
        match_id=setup.match_id if setup is not None else "",
        ended=state.status == "ended",
        budget=budget,
        plays=tuple(plays),
        mistakes=tuple(mistakes),
    )


def _by_a_person(state: MatchState, event: CardPlayed) -> bool:
    """A play a person chose: not a bot seat's, not the clock's for a seat that ran out."""
    return not state.is_bot(event.seat) and not event.auto and state.setup is not None


def _analysed(
    state: MatchState, event: CardPlayed, seq: int, number: int, budget: int
) -> PlayAnalysis:
    """The strong bot's values of the seat's hand at ``state``, from that seat's view only."""
    setup = state.setup
    assert setup is not None
    seat = event.seat
    known = knowledge(state, seat)
    values = evaluate(known, analysis_key(setup.match_id, setup.key), budget, LABEL)
    hand = state.hands[seat]
    best = best_card(hand, values)
    cost = max(0.0, values[best] - values[event.card])
    if best == event.card or values[best] - values[event.card] < 1e-9:
        best = event.card
        cost = 0.0
    mistake = cost >= MISTAKE_POINTS
    return PlayAnalysis(
        seq=seq,
        play=number,
        round=state.round,
        seat=seat,
        played=event.card,
        best=best,
        played_points=round(values[event.card], 2),
        best_points=round(values[best], 2),
        cost=round(cost, 2),
        mistake=mistake,
        reason=reason(state, seat, event.card, best) if mistake else None,
    )


def known_cards(state: MatchState, seat: int) -> set[Card]:
    """Every card ``seat`` has seen this round: its hand, the floor and the cards taken."""
    return set(state.hands[seat]) | set(state.floor) | {c for p in state.piles for c in p}


def unseen_of_rank(seen: set[Card]) -> dict[str, int]:
    """How many cards of each rank the seat has not seen this round."""
    counts: dict[str, int] = {}
    for card in RANK:
        if card not in seen:
            counts[RANK[card]] = counts.get(RANK[card], 0) + 1
    return counts


def reason(state: MatchState, seat: int, played: Card, best: Card) -> str | None:
    """A one-line reason for a costly play where a strategy point applies (docs/bots.md)."""
    setup = state.setup
    assert setup is not None
    seen = known_cards(state, seat)
    unseen = unseen_of_rank(seen)
    taken = {c for pile in state.piles for c in pile}
    rules = ruleset(setup.ruleset)
    floor = state.floor
    mine = resolve_play(rules, floor, played, state.trail_pair)
    theirs = resolve_play(rules, floor, best, state.trail_pair)
    if theirs.basra and not mine.basra:
        return f"missed a Basra: {display(best)} cleared the floor for {theirs.basra}"
    after = remaining_floor(floor, mine.captured) if mine.captured else (*floor, played)
    lone = after[0] if len(after) == 1 else None
    left = unseen.get(RANK[lone], 0) if lone is not None else 0
    if lone is not None and VALUE[lone] and left:
        gone = f" after the {display(KOMI)} was gone" if KOMI in taken else ""
        return (
            f"left a lone {display(lone)}{gone} with {left} card(s) of its rank unseen:"
            " gave the next seat a Basra to make"
        )
    if (
        len(after) > 1
        and all(VALUE[c] for c in after)
        and sum(VALUE[c] for c in after) <= 10
        and KOMI not in seen
        and rules.komi_has_power
    ):
        return f"left numbers adding to {sum(VALUE[c] for c in after)}: a Basra for the 7♦"
    if not mine.captured and CLASSIC_POINTS[played] and rules.scores_point_cards:
        return f"trailed {display(played)}, a point card, onto the floor for the other side"
    if mine.sweep and not theirs.sweep and (played in JACKS or played == KOMI):
        return (
            f"spent {display(played)} on a small floor: a sweep is worth keeping for a loaded one"
        )
    gained = _points(theirs.captured, best) - _points(mine.captured, played)
    if rules.scores_point_cards and theirs.captured and gained > 0:
        return f"{display(best)} took {gained} more point(s) of the 2♣, 10♦, aces and Jacks"
    if len(theirs.captured) >= len(mine.captured) + 3:
        return (
            f"{display(best)} took {len(theirs.captured) - len(mine.captured)} more card(s):"
            f" the majority is worth {rules.majority_award + state.carry} this round"
        )
    return None


def _points(captured: Sequence[Card], card: Card) -> int:
    """The Classic points a capture brings in (R18a), with the card that made it."""
    if not captured:
        return 0
    return CLASSIC_POINTS[card] + sum(CLASSIC_POINTS[c] for c in captured)


def _with_consequences(plays: list[PlayAnalysis], basras: dict[int, int]) -> list[PlayAnalysis]:
    """A floor left for a Basra that the very next play did clear gave one: said so."""
    out = []
    for p in plays:
        if p.reason is not None and p.reason.startswith("left") and basras.get(p.play + 1):
            p = msgspec.structs.replace(p, reason=p.reason.split(":")[0] + ": gave a Basra")
        out.append(p)
    return out


def analysis_line(play: PlayAnalysis) -> str:
    """One line for people: the play, the strong bot's card, both expected points, the cost."""
    if play.best == play.played:
        return (
            f"play {play.play} (seat {play.seat}): {display(play.played)} is the strong bot's"
            f" card too ({play.played_points:+.1f} points expected)"
        )
    text = (
        f"play {play.play} (seat {play.seat}): {display(play.played)} {play.played_points:+.1f},"
        f" the strong bot plays {display(play.best)} {play.best_points:+.1f}:"
        f" cost {play.cost:.1f}"
    )
    if play.mistake:
        text += " (mistake" + (f": {play.reason})" if play.reason else ")")
    return text


def may_see(ended: bool, support: bool) -> bool:
    """An analysis shows every hand's options: to support at any time, to others after the end
    (before it, the strong bot's card and values would tell of cards a seat cannot see)."""
    return ended or support


def analyse_recorded(
    recorded: Sequence[RecordedEvent],
    *,
    support: bool,
    budget: int = DEFAULT_BUDGET,
    only: int | None = None,
) -> MatchAnalysis:
    """The analysis of a stored stream for a viewer; MatchNotEndedError for a viewer other than
    support before the match has ended."""
    ended = any(isinstance(r.event, MatchEnded) for r in recorded)
    if not may_see(ended, support):
        raise MatchNotEndedError(
            "the analysis is shown once the match has ended (support: any time)"
        )
    return analyse(
        [r.event for r in recorded], budget=budget, seqs=[r.seq for r in recorded], only=only
    )


def play_number_at(recorded: Sequence[RecordedEvent], seq: int) -> int | None:
    """The play number of the event at ``seq`` when it is a play (1 for the match's first)."""
    number = 0
    for r in recorded:
        if isinstance(r.event, CardPlayed):
            number += 1
            if r.seq == seq:
                return number
        if r.seq >= seq:
            return None
    return None


def analysis_at(
    recorded: Sequence[RecordedEvent], seq: int, *, support: bool, budget: int = DEFAULT_BUDGET
) -> PlayAnalysis | None:
    """The analysis of the play at ``seq`` when it is a person's and the viewer may see it."""
    ended = any(isinstance(r.event, MatchEnded) for r in recorded)
    number = play_number_at(recorded, seq)
    if number is None or not may_see(ended, support):
        return None
    found = analyse_recorded(recorded, support=support, budget=budget, only=number).plays
    return found[0] if found else None


def strong_picks_checked(recorded: Sequence[RecordedEvent], result: Verification) -> Verification:
    """``verify --bots``: a verification with every strong bot's pick re-run as well."""
    from replays.audit import audit  # the rules engine, loaded only when verifying

    report = audit(recorded, strong_bots=True)
    if report.divergence is None:
        return msgspec.structs.replace(result, bot_plays=report.bot_plays)
    return msgspec.structs.replace(
        result, ok=False, divergence=report.divergence, bot_plays=report.bot_plays
    )
