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

from domain.bots import bot_at, bot_card
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.errors import InvalidBotBudgetError, InvalidSeatError, UnknownBotKindError
from domain.events import EVENT_ENCODER, MatchCreated
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.selfplay import bots_for, play_match
from domain.state import INITIAL_STATE
from domain.strong_bot import DEFAULT_BUDGET, StrongBot, evaluate, knowledge, unseen_cards
from tests.domain.builders import created, position

ROOT = Path(__file__).resolve().parents[2]


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
    # Given a position some plays into an easy-bot match, and the strong bot's choice there
    _, state = created(ruleset, seats, seed=seed, bot_kind="easy")
    bots = bots_for(state)
    for _ in range(plays):
        if state.status != "playing":
            break
        seat = state.turn
        assert seat is not None
        state = fold(decide(state, PlayCard(seat, bot_card(bots[seat], state, seat))), state)
    if state.status != "playing":
        return
    seat = state.turn
    assert seat is not None
    assert state.setup is not None and state.setup.key is not None
    bot = StrongBot(state.setup.key, seat, budget=6)
    choice = bot.choose_at(state, seat)
    # When every card the seat cannot see (the other hands and the stock) is dealt anew among
    # those places, each keeping its size
    others = [s for s in range(seats) if s != seat]
    unseen = [c for s in others for c in state.hands[s]] + list(state.stock)
    rng.shuffle(unseen)
    hands = list(state.hands)
    for s in others:
        hands[s], unseen = tuple(unseen[: len(hands[s])]), unseen[len(hands[s]) :]
    changed = replace(state, hands=tuple(hands), stock=tuple(unseen))
    # Then what the seat knows is the same, and so is the strong bot's choice
    assert knowledge(changed, seat) == knowledge(state, seat)
    assert bot.choose_at(changed, seat) == choice
    assert choice in state.hands[seat]


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
    # Then neither new field is on the line
    assert "bot_kinds" not in line and "bot_budget" not in line


def test_the_default_budget_is_recorded_when_a_strong_bot_plays() -> None:
    events = decide(
        INITIAL_STATE,
        CreateMatch("m", "classic", 2, secret_from_text_seed("d"), bots=(1,), bot_kind="strong"),
    )
    created_event = events[0]
    assert isinstance(created_event, MatchCreated)
    assert created_event.bot_budget == DEFAULT_BUDGET
    assert created_event.bot_kinds is msgspec.UNSET


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
