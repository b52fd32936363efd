"""``verify --bots`` re-runs a strong bot's picks the way the match recorded it decides
(``bot_logic`` of ``match_created``; absent: logic 1, every match recorded before the field)."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from domain.autoplay import play_bot_turns
from domain.bot_kinds import LOGIC_VERSION
from domain.bots import bot_at
from domain.commands import CreateMatch
from domain.decide import decide
from domain.events import CardPlayed, Event, MatchCreated
from domain.evolve import evolve, fold
from domain.fairness import secret_from_text_seed
from domain.selfplay import bots_for
from domain.state import INITIAL_STATE
from domain.strong_bot import StrongBot
from replays.audit_bots import BotReferee
from replays.audit_text import Diverged


def _recorded_before_the_logic_field(seed: str) -> list[Event]:
    """A strong-bot match as recorded before ``bot_logic`` existed: no such field on
    ``match_created``, every pick made the first way (logic 1)."""
    command = CreateMatch(
        match_id="m-old-strong",
        ruleset="classic",
        seats=2,
        secret=secret_from_text_seed(seed),
        target=30,
        bots=(0, 1),
        bot_kind="easy",
        bot_kinds={0: "strong"},
        bot_budget=4,
    )
    first, *rest = decide(INITIAL_STATE, command)
    assert isinstance(first, MatchCreated)
    events: list[Event] = [replace(first, bot_logic=msgspec.UNSET), *rest]
    state = fold(events)
    play_bot_turns(state, bots_for(state), on_event=lambda event, _seat: events.append(event))
    return events


def _referee_all(events: list[Event]) -> None:
    """Re-run every bot pick of ``events`` as ``verify --bots`` does."""
    referee = BotReferee(enabled=True, strong=True)
    state = INITIAL_STATE
    for event in events:
        if isinstance(event, CardPlayed):
            referee.check(event, state)
        state = evolve(state, event)


def test_a_strong_bot_match_recorded_before_the_logic_field_verifies_with_its_first_logic() -> None:
    # Given a strong-bot match recorded before match_created said how the bot decides
    events = _recorded_before_the_logic_field("old-logic")
    state = fold(events[:1])
    # Then it is read as logic 1, its bot is that bot, and verify --bots finds every pick
    assert state.setup is not None and state.setup.bot_logic == 1
    bot = bot_at(state, 0)
    assert isinstance(bot, StrongBot) and bot.version == 1
    _referee_all(events)
    # And the same plays claimed for today's logic are caught: the picks differ somewhere
    first = events[0]
    assert isinstance(first, MatchCreated)
    claimed = [replace(first, bot_logic=LOGIC_VERSION), *events[1:]]
    with pytest.raises(Diverged):
        _referee_all(claimed)


def test_a_logic_this_version_does_not_know_is_refused_by_the_bot_check() -> None:
    # Given a strong-bot match whose match_created names a logic from a later version
    events = _recorded_before_the_logic_field("new-logic")
    first = events[0]
    assert isinstance(first, MatchCreated)
    claimed = [replace(first, bot_logic=LOGIC_VERSION + 1), *events[1:]]
    # Then verify --bots says it cannot re-run that bot, instead of passing its picks
    with pytest.raises(Diverged, match="cannot re-run"):
        _referee_all(claimed)
