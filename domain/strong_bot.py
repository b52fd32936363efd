"""The strong bot: determinized Monte Carlo from what one seat may know, never hidden cards.

For each decision it draws ``budget`` deals of the unseen cards consistent with what its seat
has seen (its hand, the floor, every card taken this round, the other seats' hand counts and
the stock's size), plays each candidate card on every deal and the rest of the play out with a
fast greedy policy for every seat, and keeps the card with the best mean outcome for its side.
The deals come from the stream ``bot/SEAT/N`` of the match key (docs/fairness.md), N being how
many cards the seat has played before, so its picks repeat exactly and need no time budget.
"""

from __future__ import annotations

import hashlib
import math
from typing import Final

import msgspec

from domain.bot_kinds import DEFAULT_BUDGET, LOGIC_VERSION
from domain.cards import CLASSIC_POINTS, DECK, JACKS, KOMI, RANK, VALUE, Card
from domain.fairness import Stream
from domain.play import PlayOutcome, remaining_floor, resolve_play
from domain.rulesets import FIRST_FLOOR_CARDS, MAJORITY_CARDS, Classic, ruleset
from domain.state import MatchState, side_of
from domain.views import SeatView, seat_view

HORIZON_PLAYS: Final = 16
"""A playout stops after this many plays (two deals of Classic at two seats) or at the round's
end; what it has not played is then valued by the majority it makes likely."""


class SeatKnowledge(msgspec.Struct, frozen=True, gc=False):
    """Everything one seat may know at its turn: its view, and the public record of the round.

    ``taken`` is every card taken into a pile this round (face up when taken, R19), ``last_side``
    the side that took last (R19), ``decision`` how many cards the seat has played in the match.
    """

    view: SeatView
    taken: tuple[Card, ...]
    last_side: int | None
    decision: int
    reburied: tuple[Card, ...] = ()
    """The cards sent back to the stock's bottom when the round's first floor was turned (R4):
    face up then, so the seat knows where they are until they are dealt, and whose hand they
    went to after."""
    taken_points: tuple[int, int] = (0, 0)
    """The Classic point cards (R18a) in each side's pile this round."""


def decision_of(view: SeatView) -> int:
    """How many cards the seat has played in the match before this turn: every deal of every
    round gave it a full hand (R4, R5), and the cards it still holds are not played yet."""
    if view.round == 0:
        return 0
    hand_size = ruleset(view.ruleset).hand_size
    deals_per_round = (len(DECK) - FIRST_FLOOR_CARDS) // (view.seats * hand_size)
    return ((view.round - 1) * deals_per_round + view.deal) * hand_size - len(view.hand)


def knowledge(state: MatchState, seat: int) -> SeatKnowledge:
    """What ``seat`` may know at ``state``: nothing of another hand or of the stock's order."""
    view = seat_view(state, seat)
    taken = tuple(c for pile in state.piles for c in pile)
    points = state.pile_points
    return SeatKnowledge(
        view,
        taken,
        state.last_capturer,
        decision_of(view),
        state.reburied,
        (points[0], points[1]),
    )


def view_knowledge(view: SeatView) -> SeatKnowledge:
    """What a view alone tells: the round's taken cards are then counted among the unseen."""
    return SeatKnowledge(view, (), None, decision_of(view))


def unseen_cards(known: SeatKnowledge) -> tuple[Card, ...]:
    """The cards the seat has not seen this round, in deck order: other hands and the stock."""
    view = known.view
    seen = set(view.hand) | set(view.floor) | set(known.taken)
    return tuple(c for c in DECK if c not in seen)


_Memo = dict[tuple[tuple[Card, ...], Card, tuple[Card, Card] | None], PlayOutcome]
"""What a card takes from a floor, remembered for one decision only (never shared)."""


def _resolve(
    memo: _Memo,
    rules: Classic,
    floor: tuple[Card, ...],
    card: Card,
    trail: tuple[Card, Card] | None,
) -> PlayOutcome:
    """``resolve_play``, remembered within one decision: its deals meet the same floors often."""
    key = (floor, card, trail)
    outcome = memo.get(key)
    if outcome is None:
        outcome = memo[key] = resolve_play(rules, floor, card, trail)
    return outcome


class _Game:
    """One determinized position, played forward in place by the fast policy."""

    __slots__ = (
        "basra",
        "cards",
        "first",
        "floor",
        "hands",
        "last",
        "memo",
        "plays",
        "points",
        "rules",
        "seats",
        "stock",
        "trail",
        "turn",
    )

    def __init__(
        self,
        rules: Classic,
        hands: list[list[Card]],
        stock: list[Card],
        floor: tuple[Card, ...],
        trail: tuple[Card, Card] | None,
        turn: int,
        cards: list[int],
        last: int | None,
        memo: _Memo,
        first: int | None,
    ) -> None:
        self.rules = rules
        self.first = first
        self.memo = memo
        self.hands = hands
        self.stock = stock
        self.floor = floor
        self.trail = trail
        self.turn = turn
        self.seats = len(hands)
        self.cards = cards
        self.points = [0, 0]
        self.basra = [0, 0]
        self.last = last
        self.plays = 0

    def play(self, card: Card, outcome: PlayOutcome | None = None) -> None:
        """The seat on turn plays ``card`` (R8-R12, R19), then the next seat; deals when due.
        ``outcome`` is what the card takes when the caller knows it already."""
        seat = self.turn
        hand = self.hands[seat]
        hand.remove(card)
        floor = self.floor
        if outcome is None:
            outcome = _resolve(self.memo, self.rules, floor, card, self.trail)
        if outcome.captured:
            side = side_of(seat)
            self.cards[side] += len(outcome.captured) + 1
            self.points[side] += CLASSIC_POINTS[card] + sum(
                [CLASSIC_POINTS[c] for c in outcome.captured]
            )
            self.basra[side] += outcome.basra
            self.floor = remaining_floor(floor, outcome.captured)
            self.last = side
            self.trail = None
        else:
            self.trail = (floor[0], card) if len(floor) == 1 else None
            self.floor = (*floor, card)
        self.plays += 1
        self.turn = (seat + 1) % self.seats
        if not self.hands[self.turn] and self.stock:
            seats = self.seats
            first = self.first
            if first is None:
                # Version 1: a block of the hand size to each seat from the one on turn.
                size = self.rules.hand_size
                for s in range(seats):
                    self.hands[(self.turn + s) % seats] = self.stock[:size]
                    del self.stock[:size]
                return
            # R5: one card at a time from the top, from the seat after the dealer.
            count = seats * self.rules.hand_size
            top = self.stock[:count]
            del self.stock[:count]
            for s in range(seats):
                self.hands[s] = top[(s - first) % seats :: seats]

    def over(self) -> bool:
        """Every hand and the stock are empty: the round is to be counted."""
        return not self.hands[self.turn]


def _policy(
    memo: _Memo,
    rules: Classic,
    hand: list[Card],
    floor: tuple[Card, ...],
    trail: tuple[Card, Card] | None,
) -> tuple[Card, PlayOutcome | None]:
    """The fast greedy card of a playout and what it takes: Basras first, then points and
    cards, a sweep kept for a loaded floor, no point card trailed, no lone card or small
    all-number floor left for the next seat to clear (the seeds' strategy points)."""
    if len(hand) == 1:
        return hand[0], None
    best = -1e9
    best_card = hand[0]
    best_outcome: PlayOutcome | None = None
    size = len(floor)
    floor_sum = 0
    floor_faces = 0
    for c in floor:
        v = VALUE[c]
        floor_sum += v
        floor_faces += v == 0
    for card in hand:
        outcome = _resolve(memo, rules, floor, card, trail)
        captured = outcome.captured
        if captured:
            score = 4.0 * outcome.basra + 1.0 + len(captured)
            points = CLASSIC_POINTS[card]
            left_sum = floor_sum
            left_faces = floor_faces
            for c in captured:
                points += CLASSIC_POINTS[c]
                v = VALUE[c]
                left_sum -= v
                left_faces -= v == 0
            score += 3.0 * points
            if outcome.sweep:
                score -= 5.0
            left = size - len(captured)
        else:
            score = -2.5 * CLASSIC_POINTS[card]
            v = VALUE[card]
            if card in JACKS:
                score -= 4.0
            elif v == 0:
                score += 0.5
            left = size + 1
            left_sum = floor_sum + v
            left_faces = floor_faces + (v == 0)
        if left == 1:
            score -= 6.0
        elif left and not left_faces and left_sum <= 10:
            score -= 3.0
        if score > best:
            best = score
            best_card = card
            best_outcome = outcome
    return best_card, best_outcome


def _majority_shares(cards: list[int], left: int) -> tuple[float, float]:
    """How likely each side is to end the round with the majority (R20), with ``left`` cards
    still to take: the share of what is left is taken as even, with the spread of a fair coin
    per card."""
    if left == 0:
        return (float(cards[0] >= MAJORITY_CARDS), float(cards[1] >= MAJORITY_CARDS))
    spread = math.sqrt(left) * 0.5 * math.sqrt(2.0)
    return (
        0.5 * (1.0 + math.erf((cards[0] + left / 2 - (MAJORITY_CARDS - 0.5)) / spread)),
        0.5 * (1.0 + math.erf((cards[1] + left / 2 - (MAJORITY_CARDS - 0.5)) / spread)),
    )


def _majority_edge(rules: Classic, carry: int, cards: list[int], left: int, side: int) -> float:
    """The majority award (R20) expected for ``side`` less the other's, with ``left`` cards to
    take (``_majority_shares``)."""
    award = rules.majority_award + (carry if rules.carries_ties else 0)
    shares = _majority_shares(cards, left)
    return award * (shares[side] - shares[1 - side])


def _value(game: _Game, carry: int, side: int) -> float:
    """The round's points for ``side`` less the other side's, from the playout's start on."""
    rules = game.rules
    cards = list(game.cards)
    points = list(game.points)
    left = 52 - cards[0] - cards[1]
    if game.over():
        if game.floor and game.last is not None:
            # R19: the last cards go to the side that took last.
            cards[game.last] += len(game.floor)
            points[game.last] += sum([CLASSIC_POINTS[c] for c in game.floor])
        left = 0
    value = float(game.basra[side] - game.basra[1 - side])
    if rules.scores_point_cards:
        value += points[side] - points[1 - side]
    return value + _majority_edge(rules, carry, cards, left, side)


ROUND_SPREAD: Final[dict[tuple[str, int], tuple[float, float]]] = {
    ("classic", 2): (29.0, 39.2),
    ("classic", 4): (30.3, 40.8),
    ("egyptian", 2): (22.6, 38.1),
    ("egyptian", 4): (23.7, 38.5),
    ("lebanese", 2): (15.1, 16.9),
    ("lebanese", 4): (16.1, 18.5),
    ("yemeni", 2): (29.7, 39.4),
    ("yemeni", 4): (31.2, 42.2),
    ("jordanian", 2): (32.0, 42.6),
    ("jordanian", 4): (34.1, 45.7),
}
"""By rule set and seats: the points a side scores in a round on average, and the standard
deviation of a round's difference between the sides, over the rounds of 100 easy-bot matches
each (``bench/bench_strong.py --rounds 100``, docs/performance.md). Only the ``match``
objective uses them, which the benchmark can try (``strong:B:v2:match``); the bots that play
matches value points."""


def _match_value(game: _Game, known: SeatKnowledge, side: int) -> float:
    """How likely ``side`` is to win the match less how likely the other side is (from -1 to 1),
    were the round to end as the playout left it (R20-R22).

    The round's points so far, the playout's and, where it stopped early, the majority's
    expected share make both sides' totals; a side at the target with more points than the
    other has won when the round is over (R22). Otherwise the lead is weighed against what the
    rest of the round and the rounds still needed to reach the target may swing: a normal
    spread of ``ROUND_SPREAD`` per round.
    """
    view = known.view
    rules = game.rules
    cards = list(game.cards)
    points = list(game.points)
    left = len(DECK) - cards[0] - cards[1]
    if game.over():
        if game.floor and game.last is not None:
            # R19: the last cards go to the side that took last.
            cards[game.last] += len(game.floor)
            points[game.last] += sum([CLASSIC_POINTS[c] for c in game.floor])
        left = 0
    award = rules.majority_award + (view.carry if rules.carries_ties else 0)
    shares = _majority_shares(cards, left)
    gains = [0.0, 0.0]
    for s in (0, 1):
        gains[s] = game.basra[s] + view.round_basra[s] + award * shares[s]
        if rules.scores_point_cards:
            gains[s] += points[s] + known.taken_points[s]
    mine = view.scores[side] + gains[side]
    theirs = view.scores[1 - side] + gains[1 - side]
    lead = mine - theirs
    top = max(mine, theirs)
    mean, spread = ROUND_SPREAD.get((view.ruleset, view.seats), ROUND_SPREAD[("classic", 2)])
    rounds = left / len(DECK)
    if top < view.target:
        rounds += max(1.0, (view.target - top) / mean)
    if rounds <= 0.0 or lead == 0.0:
        return 0.0 if lead == 0.0 else math.copysign(1.0, lead)
    return math.erf(lead / (spread * math.sqrt(2.0 * rounds)))


def _candidates(hand: tuple[Card, ...]) -> list[Card]:
    """One card of each kind in the hand: cards of one rank and the same points play alike."""
    kinds: set[tuple[str, int, bool]] = set()
    chosen: list[Card] = []
    for card in hand:
        kind = (RANK[card], CLASSIC_POINTS[card], card == KOMI)
        if kind not in kinds:
            kinds.add(kind)
            chosen.append(card)
    return chosen


def _kind_of(card: Card) -> tuple[str, int, bool]:
    return (RANK[card], CLASSIC_POINTS[card], card == KOMI)


def decision_stream(key: bytes, seat: int, decision: int) -> Stream:
    """The stream of the seat's ``decision``-th choice: ``bot/SEAT/N`` (docs/fairness.md)."""
    return Stream(key, f"bot/{seat}/{decision}")


class DealSampler:
    """Deals of the unseen cards consistent with everything the seat has seen, the cards sent
    back to the stock (R4) included: while the stock holds them they lie at its bottom, in the
    order they were sent back; once it is dealt out, each is in the hand the last deal gave it
    (one card at a time from the seat after the dealer, R5), until it is played."""

    def __init__(self, known: SeatKnowledge, *, pin_sent_back: bool = True) -> None:
        view = known.view
        seats = view.seats
        unseen = unseen_cards(known)
        hidden = set(unseen)
        bottom: list[Card] = []
        pinned: dict[int, list[Card]] = {}
        sent_back = known.reburied if pin_sent_back else ()
        if sent_back and view.stock:
            bottom = [c for c in sent_back if c in hidden]
            if len(bottom) > view.stock:
                bottom = []  # not a dealt position: nothing to pin
        elif sent_back and view.dealer is not None:
            first = (view.dealer + 1) % seats
            for j, card in enumerate(sent_back):
                holder = (first - len(sent_back) + j) % seats
                if card in hidden and holder != view.seat:
                    pinned.setdefault(holder, []).append(card)
            if any(len(cs) > view.hand_counts[s] for s, cs in pinned.items()):
                pinned = {}
        fixed = set(bottom).union(*pinned.values())
        self.free = [c for c in unseen if c not in fixed]
        self.bottom = bottom
        self.pinned = pinned
        self.view = view

    def draw(self, stream: Stream) -> tuple[list[list[Card]], list[Card]]:
        """One deal: every other seat's hand, then the stock top first."""
        view = self.view
        deal = self.free[:]
        for i in range(len(deal) - 1, 0, -1):
            j = stream.uniform(i + 1)
            deal[i], deal[j] = deal[j], deal[i]
        hands: list[list[Card]] = []
        at = 0
        for s in range(view.seats):
            if s == view.seat:
                hands.append(list(view.hand))
                continue
            known = self.pinned.get(s, [])
            wanted = view.hand_counts[s] - len(known)
            hands.append(known + deal[at : at + wanted])
            at += wanted
        return hands, deal[at:] + self.bottom


def evaluate(
    known: SeatKnowledge,
    key: bytes,
    budget: int = DEFAULT_BUDGET,
    label: str = "bot",
    *,
    horizon: int | None = HORIZON_PLAYS,
    objective: str = "points",
    version: int = LOGIC_VERSION,
) -> dict[Card, float]:
    """The mean outcome for the seat's side (its round points less the other side's) of every
    card of its hand, over ``budget`` deals of the unseen cards drawn from the stream
    ``LABEL/SEAT/N`` of ``key``; each playout stops after ``horizon`` plays (None: the round's
    end)."""
    view = known.view
    hand = view.hand
    if len(hand) == 1:
        return {hand[0]: 0.0}
    rules = ruleset(view.ruleset)
    seat = view.seat
    side = side_of(seat)
    seats = view.seats
    candidates = _candidates(hand)
    if len(candidates) == 1:
        return dict.fromkeys(hand, 0.0)  # every card plays alike: nothing to sample
    deals = DealSampler(known, pin_sent_back=version >= 2)
    first: int | None = None
    if version >= 2:
        first = ((view.dealer if view.dealer is not None else seats - 1) + 1) % seats
    stream = Stream(key, f"{label}/{seat}/{known.decision}")
    totals = dict.fromkeys(candidates, 0.0)
    limit = horizon if horizon is not None else len(DECK)
    start_cards = list(view.piles)
    memo: _Memo = {}
    for _ in range(max(1, budget)):
        hands, stock = deals.draw(stream)
        for card in candidates:
            game = _Game(
                rules,
                [list(h) for h in hands],
                list(stock),
                view.floor,
                view.trail_pair,
                seat,
                list(start_cards),
                known.last_side,
                memo,
                first,
            )
            game.play(card)
            while game.plays < limit and not game.over():
                card_then, outcome = _policy(
                    memo, rules, game.hands[game.turn], game.floor, game.trail
                )
                game.play(card_then, outcome)
            if objective == "match":
                totals[card] += _match_value(game, known, side)
            else:
                totals[card] += _value(game, view.carry, side)
    rounds = max(1, budget)
    means = {card: total / rounds for card, total in totals.items()}
    by_kind = {_kind_of(card): mean for card, mean in means.items()}
    return {card: by_kind[_kind_of(card)] for card in hand}


def best_card(hand: tuple[Card, ...], values: dict[Card, float]) -> Card:
    """The card with the best mean; a tie goes to the earliest card in the hand."""
    best = hand[0]
    for card in hand[1:]:
        if values[card] > values[best] + 1e-9:
            best = card
    return best


class StrongBot:
    """Determinized Monte Carlo over the unseen cards, ``budget`` deals per decision."""

    def __init__(
        self,
        key: bytes,
        seat: int,
        budget: int = DEFAULT_BUDGET,
        version: int = LOGIC_VERSION,
        objective: str = "points",
    ) -> None:
        self.key = key
        self.seat = seat
        self.budget = budget
        self.version = version
        self.objective = objective

    def decide(self, known: SeatKnowledge) -> Card:
        """The card with the best mean outcome for the seat's side over the sampled deals."""
        hand = known.view.hand
        values = evaluate(
            known, self.key, self.budget, objective=self.objective, version=self.version
        )
        return best_card(hand, values)

    def choose_at(self, state: MatchState, seat: int) -> Card:
        """The card for ``seat`` at ``state``, from what that seat may know only (R23)."""
        return self.decide(knowledge(state, seat))

    def choose(self, view: SeatView) -> Card:
        """The card from the view alone, without the round's taken cards (see ``choose_at``,
        which the server, self-play and ``verify --bots`` use)."""
        return self.decide(view_knowledge(view))


def analysis_key(match_id: str, key: bytes | None) -> bytes:
    """The key an analysis draws its deals from: the match key, or one from the id alone for a
    match imported without its secret."""
    if key is not None:
        return key
    return hashlib.sha256(b"basra-analysis/" + match_id.encode("utf-8")).digest()
