"""A frame fitted to a terminal: at 80 columns by 24 rows, with help on, every position of a
match keeps its seq line and its event on screen; the table part gives way first."""

from __future__ import annotations

import textwrap

import pytest

from domain.events import CardPlayed
from domain.redaction import SUPPORT
from replays.cursor import MatchCursor, Step, Viewer
from replays.session import Session
from replays.words import describe
from tests.replays.streams import first_seq, golden_events, tampered

COLUMNS = 80
ROWS = 24


def event_block(session: Session, columns: int = COLUMNS) -> list[str]:
    """The lines of the current event in words, wrapped as a frame wraps them."""
    position = session.cursor.position(session.seq, session.viewer)
    return textwrap.wrap(
        describe(position.event, position.viewer),
        width=columns,
        initial_indent="  ",
        subsequent_indent="    ",
    )


def assert_fits(session: Session, columns: int = COLUMNS, rows: int = ROWS) -> list[str]:
    """The screen at ``columns`` × ``rows``: within it, with the seq line and the event whole."""
    lines = session.screen(columns, rows).split("\n")
    where = f"seq {session.seq} as {session.viewer}"
    assert len(lines) <= rows, (where, len(lines), lines)
    wide = [line for line in lines if len(line) > columns]
    assert not wide, (where, wide)
    last = session.cursor.last_seq
    assert any(line.startswith(f"seq {session.seq} of {last} ") for line in lines), (where, lines)
    block = event_block(session, columns)
    starts = [i for i, line in enumerate(lines) if line == block[0]]
    assert any(lines[i : i + len(block)] == block for i in starts), (where, block, lines)
    return lines


@pytest.mark.parametrize("viewer", [SUPPORT, 1])
def test_every_position_of_a_four_seat_match_fits_80_by_24_with_help_on(viewer: Viewer) -> None:
    # given a 4-seat match (the tallest table) stepped through with the help shown
    session = Session(MatchCursor(golden_events("golden-egyptian-4")), viewer)
    session.feed("?")
    assert session.show_help
    for seq in range(1, session.cursor.last_seq + 1):
        # when the screen of each position is drawn for an 80 × 24 terminal
        session.seq = seq
        lines = assert_fits(session)
        # then the help is on screen too
        assert any("next round" in line for line in lines), (seq, lines)


def test_long_steps_a_banner_and_the_jump_prompt_still_fit() -> None:
    # given a 4-seat match whose Basra at one play was raised in the store (a banner from there)
    recorded = golden_events("golden-egyptian-4")
    play = next(
        item.seq
        for item in recorded
        if isinstance(item.event, CardPlayed) and item.event.basra and item.seq > 60
    )
    session = Session(MatchCursor(tampered(recorded, play, basra=30)))
    assert session.divergence is not None and session.divergence.seq == play
    session.feed("?")
    cursor = session.cursor
    # when it is stepped through by round and by deal (each step says what it passed over)
    for key, step in (("]", Step.ROUND), ("}", Step.DEAL), (">", Step.PLAY)):
        session.feed("^")
        while session.seq < cursor.last_seq:
            session.feed(key)
            lines = assert_fits(session)
            # then the banner's first line is on screen from the seq that fails on
            if session.seq >= play:
                assert any(line.startswith("!! this match does not verify") for line in lines)
        assert len(cursor.landmarks(step)) > 1
    # and a jump being typed shows its prompt on the screen
    session.feed("g12")
    lines = assert_fits(session)
    assert any(line.startswith("jump to seq (1-") and line.endswith(": 12") for line in lines)


def test_a_first_frame_with_room_to_spare_is_the_whole_frame() -> None:
    # given a 2-seat match at its first play, help off, on a tall terminal
    recorded = golden_events("golden-classic-2")
    session = Session(MatchCursor(recorded))
    session.seq = first_seq(recorded, CardPlayed)
    # when the screen is drawn on 100 × 60, then it is the full frame, nothing folded
    assert session.screen(100, 60) == session.frame().rstrip("\n")


def test_the_seq_and_event_lines_are_folded_never_cut_on_a_narrow_terminal() -> None:
    # given a position whose event in words is long (the floor turned, cards sent back)
    session = Session(MatchCursor(golden_events("golden-egyptian-4")))
    session.feed("]]?")
    # when the screen is only 40 columns wide, then the event is wrapped to 40, whole
    assert_fits(session, columns=40, rows=24)


def test_a_part_cut_short_ends_with_an_ellipsis() -> None:
    # given a long step (its message is two lines) with the help shown, on a 12-row terminal
    session = Session(MatchCursor(golden_events("golden-egyptian-4")))
    session.feed("?]]")
    assert len(session.frame().splitlines()) > 12
    # when the screen is drawn, then the seq and the event are whole and the message is cut
    lines = assert_fits(session, rows=12)
    assert lines[-1].startswith("since seq 6: ") and lines[-1].endswith(" …"), lines
