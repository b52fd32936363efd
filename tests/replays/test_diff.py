"""Diffs between positions: plays with their groups, Basras, what each side took, scores, carry."""

from __future__ import annotations

from domain.events import CardPlayed, RoundScored
from domain.redaction import SUPPORT
from domain.state import side_of
from replays.cursor import MatchCursor
from replays.diff import describe_diff, diff
from tests.replays.streams import bot_match, first_seq, golden_events


def test_a_diff_over_a_basra_names_the_play_its_groups_and_its_points() -> None:
    # given a match with a Basra in it
    recorded = bot_match("classic", 2, seed="diff-basra")
    cursor = MatchCursor(recorded)
    seq = next(r.seq for r in recorded if isinstance(r.event, CardPlayed) and r.event.basra)
    play = recorded[seq - 1].event
    assert isinstance(play, CardPlayed)
    # when diffing the positions just before and after it
    change = diff(cursor, seq - 1, seq)
    # then the diff holds that one play, as a Basra, with the groups it took
    assert [p.seq for p in change.plays] == [seq]
    assert change.basras == change.plays
    assert change.plays[0].groups == play.groups and change.plays[0].basra == play.basra
    side = side_of(play.seat)
    assert change.taken[side] == play.captured and change.taken[1 - side] == ()
    assert change.floor[1] == ()
    before, after = change.piles
    assert after[side] - before[side] == len(play.captured) + 1  # R19: card and haul


def test_a_diff_over_a_round_carries_its_score_and_carry() -> None:
    # given the positions at the start of a match and after round 1 is scored
    recorded = bot_match("classic", 4, seed="diff-round")
    cursor = MatchCursor(recorded)
    scored_seq = first_seq(recorded, RoundScored)
    scored = recorded[scored_seq - 1].event
    assert isinstance(scored, RoundScored)
    # when diffing them
    change = diff(cursor, 1, scored_seq)
    # then the scores go from 0-0 to the round's totals, with its carry, and every play is listed
    assert change.scores == ((0, 0), scored.totals)
    assert change.carry == (0, scored.carry)
    assert change.rounds_scored == (scored,)
    assert change.rounds_started == (1,)
    assert len(change.plays) == 48  # R5: 52 cards less the 4 of the first floor
    # and what both sides took, last pickup included, is every card but the played ones' own
    taken = change.taken[0] + change.taken[1]
    assert len(taken) + sum(1 for p in change.plays if p.captured) == sum(change.piles[1])


def test_a_diff_shows_only_the_dealt_cards_the_viewer_may_see() -> None:
    # given the whole of round 1
    cursor = MatchCursor(bot_match("classic", 2, seed="diff-dealt"))
    end = first_seq(list(cursor.events()), RoundScored)
    # when seat 1 and support diff it
    as_seat = diff(cursor, 1, end, viewer=1)
    as_support = diff(cursor, 1, end, viewer=SUPPORT)
    # then seat 1 sees only its own 24 dealt cards; support sees both seats'
    assert as_seat.dealt[0] is None
    assert as_seat.dealt[1] is not None and len(as_seat.dealt[1]) == 24
    assert [len(d or ()) for d in as_support.dealt] == [24, 24]


def test_a_backward_diff_lists_the_same_plays() -> None:
    cursor = MatchCursor(bot_match("yemeni", 2, seed="diff-back"))
    forward = diff(cursor, 10, 30)
    backward = diff(cursor, 30, 10)
    assert backward.backward and not forward.backward
    assert backward.plays == forward.plays
    assert backward.scores == (forward.scores[1], forward.scores[0])


def test_a_diff_in_words_names_the_hauls_basras_and_scores() -> None:
    # given the whole of round 1 of a golden match (two Basras by seat 1, R14)
    cursor = MatchCursor(golden_events("golden-classic-2"))
    scored = first_seq(list(cursor.events()), RoundScored)
    # when it is put in words
    text = describe_diff(diff(cursor, 5, scored))
    # then it counts the plays and names the Basras, the score and the hauls
    assert text.startswith("since seq 5: 48 plays; side 0 took ")
    assert "Basra seat 1 +10 (2♦), seat 1 +10 (6♠)" in text
    assert "round 1 scored; scores 0–0 → 38–25" in text
    assert describe_diff(diff(cursor, scored, 5)).startswith("back from seq 59: 48 plays")
    assert describe_diff(diff(cursor, 1, 3)) == "since seq 1: no play"
