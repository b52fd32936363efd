"""The dispute log: for support, who caused each event and when; for a seat, neither."""

from __future__ import annotations

from domain.events import CardPlayed
from domain.redaction import SUPPORT
from replays.cursor import MatchCursor
from replays.dispute import dispute_log, render_log
from tests.replays.streams import golden_events


def test_support_sees_who_played_what_and_when() -> None:
    # given a golden match between people (through tokens) and bots
    recorded = golden_events("golden-jordanian-4")
    entries = dispute_log(MatchCursor(recorded), SUPPORT)
    # then every event has its time and cause, and plays name the seat and the token or bot
    assert [e.seq for e in entries] == [r.seq for r in recorded]
    assert [e.at for e in entries] == [r.at for r in recorded]
    for entry, item in zip(entries, recorded, strict=True):
        assert entry.caused_by == item.caused_by and entry.request_id == item.request_id
        if isinstance(item.event, CardPlayed) and item.event.seat == 0:
            assert entry.cause == "seat 0 through token tok-amira"
            assert entry.action.startswith("seat 0 plays ")
        if isinstance(item.event, CardPlayed) and item.event.seat == 1:
            assert entry.cause == "the bot at seat 1"
    auto = next(
        e
        for e, r in zip(entries, recorded, strict=True)
        if isinstance(r.event, CardPlayed) and r.event.auto
    )
    assert auto.cause == "the server" and "clock ran out" in auto.action
    text = render_log(entries)
    assert text.count("\n") == len(recorded)
    assert "seat 0 through token tok-amira" in text


def test_a_seat_sees_times_but_no_causes_and_no_other_hand() -> None:
    recorded = golden_events("golden-jordanian-4")
    entries = dispute_log(MatchCursor(recorded), 2)
    assert all(e.caused_by is None and e.cause is None and e.request_id is None for e in entries)
    text = render_log(entries)
    assert "token" not in text and "request" not in text
    deal = next(e for e in entries if e.type == "cards_dealt")
    assert "seat 2 " in deal.action and "seat 0 " not in deal.action
