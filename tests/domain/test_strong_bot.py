"""The strong bot: it plays from its seat's knowledge only, repeats exactly, and plays well."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain.bot_kinds import DEFAULT_BUDGET, LOGIC_VERSION
from domain.bots import bot_at, bot_card
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.errors import InvalidBotBudgetError, InvalidSeatError, UnknownBotKindError
from domain.events import EVENT_ENCODER, MatchCreated
from domain.evolve import fold
from domain.fairness import Stream, secret_from_text_seed
from domain.selfplay import bots_for, play_match
from domain.state import INITIAL_STATE, MatchState
from domain.strong_bot import (
    DealSampler,
    StrongBot,
    evaluate,
    knowledge,
    unseen_cards,
)
from tests.domain.builders import created, easy_position, position

ROOT = Path(__file__).resolve().parents[2]


def _redealt(state: MatchState, seat: int, rng: random.Random) -> MatchState:
    """``state`` with every card ``seat`` cannot place dealt anew among the places it cannot
    see (the other hands and the stock, each keeping its size). The cards sent back to the
    stock's bottom (R4) stay where the seat knows them to be: at the bottom while the stock
    holds them, and in the hand the last deal gave them after."""
    seats = len(state.hands)
    others = [s for s in range(seats) if s != seat]
    places = [list(state.hands[s]) for s in others] + [list(state.stock)]
    pinned = set(state.reburied)
    loose = [c for place in places for c in place if c not in pinned]
    rng.shuffle(loose)
    refilled = [[c if c in pinned else loose.pop() for c in place] for place in places]
    hands = list(state.hands)
    for s, hand in zip(others, refilled, strict=False):
        hands[s] = tuple(hand)
    return replace(state, hands=tuple(hands), stock=tuple(refilled[-1]))


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["classic", "egyptian", "lebanese", "yemeni", "jordanian"]),
    st.sampled_from([2, 4]),
    st.text(max_size=6),
    st.integers(min_value=0, max_value=70),
    st.randoms(use_true_random=False),
)
def test_the_strong_bot_never_changes_its_choice_when_unseen_cards_change(
    ruleset: str, seats: int, seed: str, plays: int, rng: random.Random
) -> None:
    # Given a position some plays into an easy-bot match, and the strong bot's choices there
    # with three different keys (three draws of its deals)
    state = easy_position(ruleset, seats, seed, plays)
    if state.status != "playing":
        return
    seat = state.turn
    assert seat is not None
    keys = [bytes([k]) * 32 for k in range(3)]
    choices = [StrongBot(key, seat, budget=6).choose_at(state, seat) for key in keys]
    # When every card the seat cannot see is dealt anew consistently with what it saw
    changed = _redealt(state, seat, rng)
    # Then what the seat knows is the same, and so is every choice: the distribution of its
    # decision depends on its information set only
    assert knowledge(changed, seat) == knowledge(state, seat)
    assert [StrongBot(key, seat, budget=6).choose_at(changed, seat) for key in keys] == choices
    assert all(choice in state.hands[seat] for choice in choices)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["classic", "egyptian", "lebanese", "yemeni", "jordanian"]),
    st.sampled_from([2, 4]),
    st.text(max_size=6),
    st.integers(min_value=0, max_value=90),
    st.integers(min_value=1, max_value=6),
    st.binary(min_size=32, max_size=32),
)
def test_the_strong_bot_only_ever_plays_a_card_of_its_own_hand(
    ruleset: str, seats: int, seed: str, plays: int, budget: int, key: bytes
) -> None:
    # Given any position of an easy-bot match, any key and any budget
    state = easy_position(ruleset, seats, seed, plays)
    if state.status != "playing":
        return
    seat = state.turn
    assert seat is not None
    # When the strong bot decides and values its hand
    choice = StrongBot(key, seat, budget).choose_at(state, seat)
    known = knowledge(state, seat)
    # Then it picks a card of its own hand, and values exactly the cards of that hand, points
    # and match chances alike (the latter from -1 to 1)
    assert choice in state.hands[seat]
    assert set(evaluate(known, key, budget)) == set(state.hands[seat])
    chances = evaluate(known, key, budget, objective="match")
    assert set(chances) == set(state.hands[seat])
    assert all(-1.0 <= v <= 1.0 for v in chances.values())


def _with_cards_sent_back(seats: int) -> MatchState:
    """The first position of a seeded easy-bot Classic match whose first floor sent cards back
    to the stock (R4)."""
    for k in range(200):
        _, state = created("classic", seats, seed=f"sent-back/{k}", bot_kind="easy")
        if state.reburied:
            return state
    raise AssertionError("no seed of 200 sent a card back")


@pytest.mark.parametrize("seats", [2, 4])
def test_the_cards_sent_back_lie_at_the_stock_bottom_in_every_sampled_deal(seats: int) -> None:
    # Given a round whose first floor sent cards back to the stock's bottom (R4)
    state = _with_cards_sent_back(seats)
    sent_back = state.reburied
    assert state.stock[-len(sent_back) :] == sent_back
    seat = state.turn
    assert seat is not None
    known = knowledge(state, seat)
    assert known.reburied == sent_back
    sampler = DealSampler(known)
    stream = Stream(b"k" * 32, "test")
    for _ in range(20):
        # When deals of the unseen cards are drawn
        hands, stock = sampler.draw(stream)
        # Then each holds every unseen card once, the other hands keep their sizes, and the
        # stock ends with the cards sent back, in the order they were sent
        others = [c for s, h in enumerate(hands) if s != seat for c in h]
        assert sorted(others + stock) == sorted(unseen_cards(known))
        assert [len(h) for h in hands] == [len(h) for h in state.hands]
        assert tuple(stock[-len(sent_back) :]) == sent_back


@pytest.mark.parametrize("seats", [2, 4])
def test_after_the_last_deal_a_card_sent_back_is_in_the_hand_it_was_dealt_to(seats: int) -> None:
    # Given the same round played on until its last deal is out and a card sent back is still
    # in another seat's hand
    state = _with_cards_sent_back(seats)
    bots = bots_for(state)
    while True:
        seat = state.turn
        assert seat is not None and state.status == "playing" and state.round == 1
        holders = {
            card: s for s, hand in enumerate(state.hands) for card in hand if card in state.reburied
        }
        if not state.stock and any(s != seat for s in holders.values()):
            break
        state = fold(decide(state, PlayCard(seat, bot_card(bots[seat], state, seat))), state)
    sampler = DealSampler(knowledge(state, seat))
    stream = Stream(b"k" * 32, "test")
    for _ in range(20):
        # When deals of the unseen cards are drawn
        hands, stock = sampler.draw(stream)
        # Then each card sent back is in the hand that holds it, as the deal's order (one card
        # at a time from the seat after the dealer, R5) says, and the stock is empty
        assert stock == []
        for card, holder in holders.items():
            if holder != seat:
                assert card in hands[holder]


def test_a_basra_that_reaches_the_target_is_valued_as_the_match_won() -> None:
    # Given the seat's side 5 points short of the target, a 2 and a 3 on the floor and a 5 in
    # hand: the Basra (10, R13) reaches the target at the round's end
    _, fresh = created("classic", 2, seed="match-point")
    used = {"KH", "9D", "5H", "2S", "3D", "QC", "QD", "8C"}
    stock = [c for c in fresh.stock if c not in used]
    state = position(
        "classic",
        hands=[["KH", "9D", "5H"], ["QC", "QD", "8C"]],
        floor=["2S", "3D"],
        stock=stock[:10],
        totals=(96, 40),
        target=101,
    )
    assert state.setup is not None and state.setup.key is not None
    # When the strong bot weighs its cards by the match
    chances = evaluate(knowledge(state, 0), state.setup.key, objective="match")
    # Then the Basra is the best card and close to a sure win, and the bot plays it
    assert max(chances, key=chances.__getitem__) == "5H"
    assert chances["5H"] > 0.9
    assert StrongBot(state.setup.key, 0).choose_at(state, 0) == "5H"


def test_the_unseen_cards_are_the_other_hands_and_the_stock() -> None:
    _, state = created("classic", 2, seed="unseen", bot_kind="easy")
    bots = bots_for(state)
    for _ in range(5):
        seat = state.turn
        assert seat is not None
        state = fold(decide(state, PlayCard(seat, bot_card(bots[seat], state, seat))), state)
    seat = state.turn
    assert seat is not None
    hidden = sorted([c for s, h in enumerate(state.hands) if s != seat for c in h] + [*state.stock])
    assert sorted(unseen_cards(knowledge(state, seat))) == hidden


def test_the_strong_bot_takes_the_basra_on_the_floor() -> None:
    # Given a 2 and a 3 on the floor, a 5 in hand and cards left to deal
    _, fresh = created("classic", 2, seed="basra")
    stock = [c for c in fresh.stock if c not in {"KH", "9D", "5H", "2S", "3D", "QC", "QD", "8C"}]
    state = position(
        "classic",
        hands=[["KH", "9D", "5H"], ["QC", "QD", "8C"]],
        floor=["2S", "3D"],
        stock=stock[:10],
    )
    assert state.setup is not None and state.setup.key is not None
    # Then the strong bot takes the Basra, and values it above every other card
    values = evaluate(knowledge(state, 0), state.setup.key)
    assert StrongBot(state.setup.key, 0).choose_at(state, 0) == "5H"
    assert values["5H"] - max(values["KH"], values["9D"]) > 5


def _strong_match(seed: str, seats: int = 2, ruleset: str = "classic") -> list[bytes]:
    command = CreateMatch(
        match_id="m-strong",
        ruleset=ruleset,
        seats=seats,
        secret=secret_from_text_seed(seed),
        target=40,
        bots=tuple(range(seats)),
        bot_kind="easy",
        bot_kinds={0: "strong"},
        bot_budget=4,
    )
    events, _ = play_match(command)
    return [EVENT_ENCODER.encode(e) for e in events]


def test_a_strong_bot_match_records_its_kinds_and_budget_and_repeats() -> None:
    # Given a match with a strong bot at seat 0 and an easy bot at seat 1
    lines = _strong_match("repeat")
    first = json.loads(lines[0])
    # Then match_created records the seat's kind and the budget, and the match repeats
    assert first["bot_kinds"] == {"0": "strong"}
    assert first["bot_budget"] == 4
    assert lines == _strong_match("repeat")
    state = fold(msgspec.json.decode(line, type=MatchCreated) for line in lines[:1])
    assert state.names == ("strong bot", "easy bot")
    assert isinstance(bot_at(state, 0), StrongBot)


def test_a_match_without_strong_bots_writes_its_first_line_as_before() -> None:
    # Given an easy-bot match created as before the strong bot existed
    events, _ = created("classic", 2, seed="old", bot_kind="easy")
    line = json.loads(EVENT_ENCODER.encode(events[0]))
    # Then none of the strong bot's fields is on the line
    assert "bot_kinds" not in line and "bot_budget" not in line and "bot_logic" not in line


def test_the_default_budget_is_recorded_when_a_strong_bot_plays() -> None:
    events = decide(
        INITIAL_STATE,
        CreateMatch("m", "classic", 2, secret_from_text_seed("d"), bots=(1,), bot_kind="strong"),
    )
    created_event = events[0]
    assert isinstance(created_event, MatchCreated)
    assert created_event.bot_budget == DEFAULT_BUDGET
    assert created_event.bot_kinds is msgspec.UNSET
    # And how the strong bot decides today, so its picks repeat after that changes
    assert created_event.bot_logic == LOGIC_VERSION


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"bot_kind": "genius"}, UnknownBotKindError),
        ({"bot_kinds": {1: "genius"}}, UnknownBotKindError),
        ({"bot_kinds": {0: "strong"}}, InvalidSeatError),
        ({"bot_kind": "strong", "bot_budget": 0}, InvalidBotBudgetError),
        ({"bot_kind": "strong", "bot_budget": 5000}, InvalidBotBudgetError),
    ],
)
def test_bot_settings_are_refused_precisely(changes: dict[str, object], error: type) -> None:
    command = CreateMatch("m", "classic", 2, secret_from_text_seed("r"), bots=(1,))
    with pytest.raises(error):
        decide(INITIAL_STATE, msgspec.structs.replace(command, **changes))


REPEAT_SCRIPT = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from tests.domain.test_strong_bot import _strong_match
lines = _strong_match("across", seats=int(sys.argv[2]), ruleset=sys.argv[3])
print(hashlib.sha256(b"\\n".join(lines)).hexdigest(), len(lines))
"""


@pytest.mark.parametrize(("seats", "ruleset"), [(2, "classic"), (4, "lebanese")])
def test_strong_bot_matches_repeat_across_processes_with_other_hash_seeds(
    seats: int, ruleset: str
) -> None:
    # When the same strong-bot match is played in two fresh interpreters whose string hashes
    # (and so set orders) differ
    outputs = []
    for hash_seed in ("1", "2024"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run(
            [sys.executable, "-c", REPEAT_SCRIPT, str(ROOT), str(seats), ruleset],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=300,
            check=True,
        )
        outputs.append(run.stdout)
    # Then every event of the two matches is the same
    assert outputs[0] == outputs[1]
    assert int(outputs[0].split()[1]) > 20


THREAD_SCRIPT = """
import json, sys, threading
sys.path.insert(0, sys.argv[1])
sys.setswitchinterval(1e-6)
from domain.capture import clear_caches
from domain.strong_bot import StrongBot
from tests.domain.test_strong_bot import _positions
clear_caches()
positions = _positions()
answers = {}
barrier = threading.Barrier(4)
def run(i):
    barrier.wait()
    answers[i] = [StrongBot(s.setup.key, s.turn, 4).choose_at(s, s.turn) for s in positions]
threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps([answers[i] for i in range(4)]))
"""


def _positions() -> list:  # type: ignore[type-arg]
    """Positions of an easy-bot match at every turn of its first round."""
    _, state = created("classic", 2, seed="threads", bot_kind="easy")
    bots = bots_for(state)
    found = []
    while state.status == "playing" and state.round == 1:
        found.append(state)
        seat = state.turn
        assert seat is not None
        state = fold(decide(state, PlayCard(seat, bot_card(bots[seat], state, seat))), state)
    return found


def test_four_threads_in_a_fresh_process_get_the_strong_bot_s_single_threaded_picks() -> None:
    # Given the picks of one thread alone
    alone = [StrongBot(s.setup.key, s.turn, 4).choose_at(s, s.turn) for s in _positions()]
    # When four threads pick at the same positions at once in a fresh interpreter (the
    # capture solver's memos, which playouts share, empty at the start)
    run = subprocess.run(
        [sys.executable, "-c", THREAD_SCRIPT, str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    # Then every thread picks what the one thread did
    assert json.loads(run.stdout) == [alone] * 4
