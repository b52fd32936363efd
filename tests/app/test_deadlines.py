"""The turn clock's service side: what is due, read from the store, and firing it once (R25)."""

from __future__ import annotations

from pathlib import Path

from app.service import MatchService
from app.service.deadlines import Due, due_of, fire, open_matches
from app.store.match_store import MatchStore
from domain.events import MatchEnded
from domain.times import utc_text

START_MS = 1_800_000_000_000
"""A fixed instant the tests' clock starts at."""


class DrivenClock:
    """The service's clock, moved by hand."""

    def __init__(self) -> None:
        self.ms = START_MS

    def __call__(self) -> str:
        return utc_text(self.ms)


def seated(service: MatchService, match_id: str = "m-clock") -> str:
    """A 2-seat table of two people with 5-second turns, both seats taken."""
    service.create_match(ruleset="classic", seats=2, match_id=match_id, turn_seconds=5)
    service.take_seat(match_id, 0, "Amal")
    service.take_seat(match_id, 1, "Badr")
    return match_id


def due_now(service: MatchService, match_id: str) -> Due:
    """The match's due entry, which must exist."""
    due = due_of(match_id, service.load(match_id), None, None)
    assert due is not None
    return due


def test_a_deadline_fires_once_only_when_reached() -> None:
    # given a table of two people whose turn runs 5 s from the deal
    clock = DrivenClock()
    service = MatchService(MatchStore.memory(), clock=clock)
    match_id = seated(service)
    due = due_now(service, match_id)
    assert due.kind == "turn" and due.due_ms == START_MS + 5_000

    # when the clock fires a millisecond early, then at the deadline, then again
    clock.ms = due.due_ms - 1
    early = fire(service, due)
    clock.ms = due.due_ms
    fired = fire(service, due)
    again = fire(service, due)

    # then only the fire at the deadline appended: a timeout by the clock, once
    assert (early, fired, again) == ("early", "fired", "stale")
    stream = service.events(match_id)
    ends = [(r.event.reason, r.caused_by) for r in stream if isinstance(r.event, MatchEnded)]
    assert ends == [("timeout", "clock")]
    assert due_of(match_id, service.load(match_id), None, None) is None


def test_a_second_process_that_fires_the_same_deadline_changes_nothing(tmp_path: Path) -> None:
    # given two services (two processes) on one SQLite file, both knowing a deadline
    clock = DrivenClock()
    db = tmp_path / "two.db"
    first = MatchService(MatchStore.sqlite(db), clock=clock)
    second = MatchService(MatchStore.sqlite(db), clock=clock)
    match_id = seated(first)
    due = due_now(first, match_id)
    assert due_now(second, match_id) == due

    # when both fire it after the deadline
    clock.ms = due.due_ms + 10
    outcomes = [fire(first, due), fire(second, due)]

    # then one appended and the other was stale: one match_ended
    assert outcomes == ["fired", "stale"]
    ends = [r for r in second.events(match_id) if isinstance(r.event, MatchEnded)]
    assert len(ends) == 1
    first.close()
    second.close()


def test_a_restarted_process_finds_what_is_pending_in_the_store(tmp_path: Path) -> None:
    # given a store with a playing table, a waiting table and an ended one
    clock = DrivenClock()
    db = tmp_path / "restart.db"
    before = MatchService(MatchStore.sqlite(db), clock=clock)
    playing = seated(before, "m-playing")
    before.create_match(ruleset="classic", seats=2, match_id="m-waiting", turn_seconds=5)
    ended = seated(before, "m-ended")
    before.leave(ended, 0)
    before.close()

    # when a new process opens the store
    after = MatchService(MatchStore.sqlite(db), clock=clock)
    pending = open_matches(after)

    # then it finds the two not ended, with their creation times, and what each has due
    assert sorted(pending) == ["m-playing", "m-waiting"]
    assert pending["m-waiting"] == utc_text(START_MS)
    waiting = due_of("m-waiting", after.load("m-waiting"), pending["m-waiting"], 60_000)
    assert waiting == Due(START_MS + 60_000, "m-waiting", "waiting")
    assert due_now(after, playing).kind == "turn"

    # and the waiting table closes as abandoned when its time is up, once
    clock.ms = START_MS + 60_000
    assert [fire(after, waiting), fire(after, waiting)] == ["fired", "stale"]
    last = after.events("m-waiting")[-1]
    assert isinstance(last.event, MatchEnded) and last.event.reason == "abandoned"
    after.close()
