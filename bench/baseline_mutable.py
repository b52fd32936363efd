"""A plain mutable Basra self-play loop with no events: the calibration baseline.

It plays the same game as the engine (Classic rules: the same deals from the same secret, the
same capture solver, Basras, last pickup, most cards, point cards, target 101) with lists
changed in place and nothing recorded, so the engine's cost of events and immutable state can
be read as a ratio measured side by side in one run.
"""

from __future__ import annotations

from domain.cards import CLASSIC_POINTS, JACKS, KOMI, RANK, VALUE
from domain.fairness import Stream, deal_key, first_dealer, secret_from_text_seed, shuffled_deck
from domain.play import takes


def play_mutable(seed: str, seats: int = 2) -> int:
    """Play one Classic match with random bots, mutating lists; return the number of plays."""
    key = deal_key(secret_from_text_seed(seed), [""] * seats)
    bots = [Stream(key, f"bot/{s}") for s in range(seats)]
    dealer = first_dealer(key, seats)
    totals = [0, 0]
    carry = 0
    plays = 0
    for round_number in range(1, 31):
        deck = list(shuffled_deck(key, round_number))
        hands: list[list[str]] = [[] for _ in range(seats)]
        first = (dealer + 1) % seats
        for i in range(seats * 4):
            hands[(first + i) % seats].append(deck[i])
        stock = deck[seats * 4 :]
        floor: list[str] = []
        while len(floor) < 4:
            card = stock.pop(0)
            if card in JACKS or card == KOMI:
                stock.append(card)
            else:
                floor.append(card)
        piles: list[list[str]] = [[], []]
        basras = [0, 0]
        last = None
        turn = first
        while True:
            hand = hands[turn]
            card = hand.pop(bots[turn].uniform(len(hand)))
            side = turn % 2
            if not floor:
                floor.append(card)
            elif card in JACKS or card == KOMI:
                values = [VALUE[c] for c in floor]
                if card == KOMI and all(values) and sum(values) <= 10:
                    basras[side] += 10
                piles[side] += floor
                piles[side].append(card)
                floor.clear()
                last = side
            else:
                captured, _ = takes(VALUE[card], RANK[card], tuple(floor))
                if captured:
                    if len(captured) == len(floor):
                        basras[side] += 10
                        floor.clear()
                    else:
                        for c in captured:
                            floor.remove(c)
                    piles[side] += captured
                    piles[side].append(card)
                    last = side
                else:
                    floor.append(card)
            plays += 1
            turn = (turn + 1) % seats
            if not any(hands):
                if not stock:
                    break
                for i in range(seats * 4):
                    hands[(first + i) % seats].append(stock[i])
                del stock[: seats * 4]
        if floor and last is not None:
            piles[last] += floor
        for side in (0, 1):
            total = sum(CLASSIC_POINTS[c] for c in piles[side]) + basras[side]
            if len(piles[side]) >= 27:
                total += 30 + carry
            totals[side] += total
        if len(piles[0]) == len(piles[1]):
            carry += 30
        elif max(len(p) for p in piles) >= 27:
            carry = 0
        a, b = totals
        if (a >= 101 or b >= 101) and a != b:
            break
        dealer = (dealer + 1) % seats
    return plays
