"""The interactive session: every key moves or switches as its help line says."""

from __future__ import annotations

import pytest

from domain.events import CardPlayed, FloorDealt
from domain.redaction import SUPPORT
from replays.cursor import MatchCursor, Step
from replays.session import HELP, KEY_HELP, Session
from tests.replays import replay_keys
from tests.replays.replay_keys import terminal_key
from tests.replays.streams import golden_events


@pytest.fixture
def session() -> Session:
    """A session at the start of a 4-seat golden match, as support."""
    return Session(MatchCursor(golden_events("golden-egyptian-4")))


def _press(session: Session, keys: str) -> None:
    for key in keys:
        assert session.press(key)


def test_event_keys_move_one_event(session: Session) -> None:
    _press(session, "nn ")
    assert session.seq == 4
    _press(session, "p")
    assert session.seq == 3
    session.press("\x1b[C")  # the right arrow, as a terminal sends it in one read
    assert session.seq == 4
    _press(session, "\x1b[D")  # the left arrow, byte by byte as a pipe delivers it
    assert session.seq == 3


def test_play_deal_and_round_keys_land_on_their_landmarks(session: Session) -> None:
    cursor = session.cursor
    _press(session, ">")
    assert isinstance(cursor.recorded(session.seq).event, CardPlayed)
    first_play = session.seq
    _press(session, ">")
    assert session.seq == cursor.landmarks(Step.PLAY)[1]
    _press(session, "<")
    assert session.seq == first_play
    _press(session, "]")
    assert session.seq == cursor.landmarks(Step.ROUND)[1]
    assert isinstance(cursor.recorded(session.seq).event, FloorDealt)
    # a step over many events says what it passed over
    assert "round 1 scored; scores 0–0 → " in " ".join(session.frame().split())
    _press(session, "[")
    assert session.seq == cursor.landmarks(Step.ROUND)[0]
    _press(session, "}}")
    assert session.seq == cursor.landmarks(Step.DEAL)[2]
    _press(session, "{")
    assert session.seq == cursor.landmarks(Step.DEAL)[1]


def test_first_last_and_jump(session: Session) -> None:
    _press(session, "$")
    assert session.seq == session.cursor.last_seq
    _press(session, "^")
    assert session.seq == 1
    _press(session, "g42")
    assert "jump to seq" in session.frame() and session.seq == 1
    _press(session, "\r")
    assert session.seq == 42
    _press(session, "g99999\n")
    assert session.seq == 42 and "outside this match" in session.frame()
    _press(session, "g4x")
    assert session.seq == 42 and "jump cancelled" in session.frame()


def test_viewer_keys_switch_between_support_and_seats(session: Session) -> None:
    _press(session, "]")
    assert session.viewer == SUPPORT and "viewer: support" in session.frame()
    _press(session, "v")
    assert session.viewer == 0 and "viewer: seat 0" in session.frame()
    _press(session, "vvv")
    assert session.viewer == 3
    _press(session, "v")
    assert session.viewer == SUPPORT
    _press(session, "2")
    assert session.viewer == 2 and "hidden" in session.frame()
    _press(session, "s")
    assert session.viewer == SUPPORT and "hidden" not in session.frame()
    _press(session, "7")
    assert session.viewer == SUPPORT and "no seat 7" in session.frame()


def test_help_unknown_keys_and_quitting(session: Session) -> None:
    assert KEY_HELP in session.frame()
    _press(session, "?")
    assert "previous round" in session.frame()
    _press(session, "z")
    assert "unknown key 'z'" in session.frame()
    _press(session, "$n")
    assert "at the last event" in session.frame()
    assert not session.press("q")
    assert not Session(session.cursor).press("")  # the end of piped input


def test_every_key_of_the_documented_table_does_what_the_table_says(session: Session) -> None:
    # given the key table of docs/replay-format.md and positions at the start, within, the end
    cursor = session.cursor
    starts = (1, cursor.landmarks(Step.PLAY)[3], cursor.landmarks(Step.ROUND)[1], cursor.last_seq)
    for kind, row in replay_keys.moving_rows():
        step = Step(kind)
        for start in starts:
            for key in row.forward:
                # when a forward key of the row is pressed, then the session steps by that kind
                session.seq = start
                session.feed(terminal_key(key))
                assert session.seq == cursor.next(start, step), (key, start)
            for key in row.backward:
                session.seq = start
                session.feed(terminal_key(key))
                assert session.seq == cursor.previous(start, step), (key, start)
    ends = replay_keys.ends_row()
    for key in ends.forward:
        session.seq = 40
        session.feed(terminal_key(key))
        assert session.seq == 1, key
    for key in ends.backward:
        session.seq = 40
        session.feed(terminal_key(key))
        assert session.seq == cursor.last_seq, key
    # and g NUMBER Enter jumps, and every help key shows and hides the help
    session.feed("g42" + terminal_key("Enter"))
    assert session.seq == 42
    help_row = next(row for row in replay_keys.key_table() if row.meaning.startswith("help"))
    for key in help_row.forward:
        session.feed(key)
        assert session.show_help, key
        session.feed(key)
        assert not session.show_help, key


def test_the_help_screen_names_every_documented_key() -> None:
    # given the key table of docs/replay-format.md, then the help lists each of its keys
    named = {"space": "space", "Enter": "⏎"}
    for row in replay_keys.key_table():
        for key in row.forward + row.backward:
            assert named.get(key, key) in HELP, key
