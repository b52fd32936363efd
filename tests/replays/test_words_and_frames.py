"""Actions in words and terminal frames: what a viewer may see, in floor order."""

from __future__ import annotations

import pytest

from domain.cards import display
from domain.events import (
    CardPlayed,
    FloorDealt,
    LastPickup,
    MatchEnded,
    RoundScored,
    SideScore,
)
from domain.redaction import SUPPORT
from replays.cursor import MatchCursor
from replays.render import render_frame, report
from replays.words import describe, describe_cause, describe_play
from tests.replays.streams import bot_match, golden_events


def test_a_komi_sweep_reads_as_in_the_issue() -> None:
    # given the 7♦ sweeping 3♠ 4♥ 2♣ (R11, a Classic Basra: numbers adding up to 9, R14)
    play = CardPlayed(1, "7D", ("3S", "4H", "2C"), 10, (("3S", "4H", "2C"),), True)
    # then it reads as the issue shows it
    assert describe_play(play) == "seat 1 plays 7♦: sweeps 3♠ 4♥ 2♣, Basra +10"


@pytest.mark.parametrize(
    ("play", "words"),
    [
        (CardPlayed(0, "9C", (), 0), "seat 0 plays 9♣: trails"),
        (
            CardPlayed(0, "7C", ("3S", "7H", "4H"), 0, (("3S", "4H"), ("7H",))),
            "seat 0 plays 7♣: takes 3♠+4♥ and 7♥",
        ),
        (
            CardPlayed(2, "KD", ("KS",), 10, (("KS",),)),
            "seat 2 plays K♦: takes K♠, Basra +10",
        ),
        (
            CardPlayed(3, "JH", ("5C", "QD"), 0, (("5C", "QD"),), True, True),
            "seat 3 plays J♥ (played for it: its clock ran out, R25): sweeps 5♣ Q♦",
        ),
    ],
)
def test_plays_in_words(play: CardPlayed, words: str) -> None:
    assert describe_play(play) == words


def test_a_round_score_and_an_end_in_words() -> None:
    scored = RoundScored(
        round=2,
        last_pickup=LastPickup(1, ("5H",)),
        sides=(SideScore(26, 0, 6, 10, 16), SideScore(26, 0, 7, 0, 7)),
        carry=30,
        totals=(50, 41),
    )
    text = describe(scored)
    assert "round 2 scored" in text and "totals 50–41" in text
    assert "side 1 picks up the last floor, 5♥" in text
    assert "30 carried to the next round (R20)" in text
    assert describe(MatchEnded(0, "target", (105, 80))) == (
        "side 0 wins by reaching the target, 105–80"
    )
    assert describe(MatchEnded(1, "forfeit", (10, 20), seat=2)) == (
        "seat 2 leaves: side 1 wins by forfeit, 10–20"
    )


@pytest.mark.parametrize(
    ("cause", "words"),
    [
        ("seat:1/token:t-9", "seat 1 through token t-9"),
        ("bot:3", "the bot at seat 3"),
        ("server", "the server"),
        ("clock", "the turn clock (R25)"),
        ("import", "an import"),
        (None, "not recorded"),
    ],
)
def test_causes_in_words(cause: str | None, words: str) -> None:
    assert describe_cause(cause) == words


def test_a_frame_shows_the_floor_in_floor_order_counts_scores_and_turn() -> None:
    # given a position in play with several cards on the floor
    cursor = MatchCursor(bot_match("classic", 2, seed="frame"))
    seq = next(
        s
        for s in range(1, cursor.last_seq + 1)
        if len(cursor.state(s).floor) >= 3 and cursor.state(s).turn is not None
    )
    state = cursor.state(seq)
    # when support's frame is rendered
    frame = render_frame(cursor.position(seq, SUPPORT))
    # then the floor line lists the floor in its order (R12), and the table's numbers are there
    floor_line = next(line for line in frame.splitlines() if line.startswith("floor"))
    assert floor_line.split()[2:] == [display(c) for c in state.floor]
    assert f"seq {seq} of {cursor.last_seq}" in frame
    assert f"turn: seat {state.turn}" in frame
    assert f"stock      {len(state.stock)} cards" in frame
    assert f"carry {state.carry}" in frame
    for seat, hand in enumerate(state.hands):
        row = next(line for line in frame.splitlines() if line[3:].startswith(f"{seat}     "))
        assert f" {len(hand)}  " in row
        assert " ".join(display(c) for c in hand) in row
    assert "by the bot at seat" in frame or "by the server" in frame


def test_a_seats_frame_hides_other_hands_and_who_caused_what() -> None:
    # given a golden match (people with tokens) at a position where both hands hold cards
    recorded = golden_events("golden-classic-2")
    cursor = MatchCursor(recorded)
    seq = next(
        s for s in range(1, cursor.last_seq + 1) if all(len(h) >= 2 for h in cursor.state(s).hands)
    )
    state = cursor.state(seq)
    # when seat 1 sees it
    frame = render_frame(cursor.position(seq, 1))
    # then its own cards show, seat 0's are "hidden", and no token or request shows
    assert " ".join(display(c) for c in state.hands[1]) in frame
    for card in state.hands[0]:
        assert display(card) not in frame
    assert "hidden" in frame and "token" not in frame and "request" not in frame


def test_a_report_is_the_frame_as_data() -> None:
    cursor = MatchCursor(bot_match("egyptian", 4, seed="report"))
    data = report(cursor.position(20, 3))
    assert data.seq == 20 and data.viewer == 3
    assert data.action == describe(cursor.position(20, 3).event, 3)
    assert data.caused_by is None


def test_the_clock_in_words_deadlines_timeouts_auto_plays_and_abandoned_tables() -> None:
    # given a play and a floor that pass the turn with a deadline, and the clock's acts (R25)
    deadline = "2027-01-15T08:00:20.000000Z"
    played = CardPlayed(1, "KH", (), 0, auto=True, deadline=deadline)
    floor = FloorDealt(round=2, cards=("2C", "3D", "4H", "5S"), reburied=(), deadline=deadline)
    # then each says it in words
    assert describe_play(played) == (
        "seat 1 plays K♥ (played for it: its clock ran out, R25): trails;"
        f" the next seat has until {deadline} to play (R25)"
    )
    assert describe(floor).endswith(f"; the next seat has until {deadline} to play (R25)")
    assert describe(MatchEnded(1, "timeout", (10, 20), seat=0)) == (
        "seat 0 runs out of time: side 1 wins by timeout (R25), 10–20"
    )
    assert describe(MatchEnded(None, "abandoned", (0, 0))) == (
        "the clock closes the table: nobody came in time, no winner, 0–0"
    )
