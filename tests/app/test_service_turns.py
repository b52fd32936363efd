"""What a command decides before anything is stored: the caller's events, then the bots'."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.service.turns import Steps, apply, bot_turns, recorded
from domain.commands import CreateMatch, TakeSeat
from domain.events import CardPlayed
from domain.fairness import secret_from_text_seed
from domain.selfplay import play_match
from domain.state import INITIAL_STATE

SECRET = secret_from_text_seed("turns")


def test_bots_reply_until_the_person_is_on_turn_each_play_caused_by_its_bot() -> None:
    # given a two-seat table with a bot on seat 1
    steps: Steps = []
    created = CreateMatch(match_id="m-t", ruleset="classic", seats=2, secret=SECRET, bots=(1,))
    state = apply(INITIAL_STATE, created, "server", steps)

    # when the person sits and the bots take their turns
    state = bot_turns(apply(state, TakeSeat(seat=0, name="rita"), "seat:0", steps), steps)

    # then the person is on turn (or the match is over), and every card the bot played is its
    assert state.status != "playing" or not state.is_bot(state.turn or 0)
    plays = [(e, cause) for e, cause in steps if isinstance(e, CardPlayed)]
    assert all(cause == f"bot:{e.seat}" and e.seat == 1 for e, cause in plays)
    assert [cause for _, cause in steps[:2]] == ["server", "seat:0"]


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["classic", "egyptian", "lebanese"]), st.sampled_from(["easy", "random"]))
def test_a_bots_only_table_plays_the_same_events_as_self_play(ruleset: str, kind: str) -> None:
    # given a table of bots only, decided once by the service's turns and once by self-play
    command = CreateMatch(
        match_id="m-b", ruleset=ruleset, seats=2, secret=SECRET, bots=(0, 1), bot_kind=kind
    )
    expected, _ = play_match(command)
    steps: Steps = []
    bot_turns(apply(INITIAL_STATE, command, "server", steps), steps)

    # then the events agree one for one
    assert [e for e, _ in steps] == expected


def test_recorded_numbers_the_steps_after_the_last_seq_with_one_record_time() -> None:
    steps: Steps = []
    command = CreateMatch(match_id="m-r", ruleset="classic", seats=2, secret=SECRET, bots=(1,))
    apply(INITIAL_STATE, command, "server", steps)
    entries = recorded(steps * 3, 7, "2020-01-02T03:04:05.000006Z", "r-9")
    assert [r.seq for r in entries] == list(range(8, 8 + len(steps) * 3))
    assert {(r.at, r.request_id, r.caused_by) for r in entries} == {
        ("2020-01-02T03:04:05.000006Z", "r-9", "server")
    }
