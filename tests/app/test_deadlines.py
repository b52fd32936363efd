"""The turn clock's service side: what is due, read from the store, and firing it once (R25)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from app.service import MatchService
from app.service.deadlines import Due, due_of, fire, open_matches
from app.store.match_store import MatchStore
from domain.events import MatchEnded
from domain.times import utc_text
from tests.stored_rows import write_raw_row

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


def test_deadlines_due_together_share_transactions_and_each_is_judged_alone(
    tmp_path: Path,
) -> None:
    # given 30 tables whose turns all run out at one moment, one of them already ended by
    # another process, one more whose deadline is not reached, and a waiting table whose time
    # is up
    from app.service.deadlines import fire_many

    clock = DrivenClock()
    db = tmp_path / "many.db"
    service = MatchService(MatchStore.sqlite(db), clock=clock)
    other = MatchService(MatchStore.sqlite(db), clock=clock)
    ids = [seated(service, f"m-{n}") for n in range(30)]
    dues = [due_now(service, m) for m in ids]
    clock.ms = dues[0].due_ms + 10
    assert fire(other, dues[0]) == "fired"  # the first table: the other process came first
    clock.ms = START_MS + 2000
    late = seated(service, "m-late")  # its turn runs from here
    service.create_match(ruleset="classic", seats=2, match_id="m-waiting", turn_seconds=5)
    waiting = Due(START_MS + 4000, "m-waiting", "waiting")
    clock.ms = dues[0].due_ms + 10
    before = service.store.grouped.transactions

    # when this process fires them all in one call
    outcomes = fire_many(service, [*dues, due_now(service, late), waiting])

    # then the 29 others ended by timeout in one shared transaction, the first was stale
    # (nothing appended twice), the late one is early, the waiting table closed on its own
    assert outcomes == ["stale", *["fired"] * 29, "early", "fired"]
    assert service.store.grouped.transactions - before == 2
    for match_id in ids:
        ends = [r for r in service.events(match_id) if isinstance(r.event, MatchEnded)]
        assert [(e.event.reason, e.caused_by) for e in ends] == [("timeout", "clock")]
    assert not isinstance(service.events("m-late")[-1].event, MatchEnded)
    service.close()
    other.close()


def test_appends_queued_together_are_refused_alone(tmp_path: Path) -> None:
    # given three seated tables, and a copy of the second's next event stored by another
    # writer first
    from app.errors import ConflictError

    clock = DrivenClock()
    service = MatchService(MatchStore.sqlite(tmp_path / "race.db"), clock=clock)
    ids = [seated(service, f"m-{n}") for n in range(3)]
    last = {m: service.events(m)[-1] for m in ids}
    nxt = {m: msgspec.structs.replace(last[m], seq=last[m].seq + 1) for m in ids}
    service.store.append(ids[1], [nxt[ids[1]]])
    before = service.store.grouped.transactions

    # when the three appends are queued together
    outcomes = service.store.append_many([(m, [nxt[m]]) for m in ids])

    # then the second is refused with a conflict and the other two are stored
    assert isinstance(outcomes[1], ConflictError)
    assert all(isinstance(o, list) and len(o) == 1 for o in (outcomes[0], outcomes[2]))
    assert [service.store.last_seq(m) for m in ids] == [last[m].seq + 1 for m in ids]
    # one refused shared transaction, then one for each append alone
    assert service.store.grouped.transactions - before == 1 + 3
    service.close()


def test_a_stream_that_fails_in_a_batch_fails_alone_and_the_others_fire(tmp_path: Path) -> None:
    # given five tables whose turns ran out together, one of them with its last event damaged
    # on disk (a process that opens the file now cannot read that stream)
    import sqlite3

    from app.service.deadlines import fire_many

    clock = DrivenClock()
    db = tmp_path / "damaged.db"
    writer = MatchService(MatchStore.sqlite(db), clock=clock)
    ids = [seated(writer, f"m-{n}") for n in range(5)]
    dues = [due_now(writer, m) for m in ids]
    last_seq = writer.store.last_seq(ids[2])
    writer.close()
    with sqlite3.connect(db) as raw:
        write_raw_row(raw, ids[2], last_seq, b"{not an event")
    service = MatchService(MatchStore.sqlite(db), clock=clock)
    clock.ms = dues[0].due_ms + 10

    # when the clock fires them in one call
    outcomes = fire_many(service, dues)

    # then the damaged one failed alone (nothing appended to it) and the four others fired
    assert outcomes == ["fired", "fired", "failed", "fired", "fired"]
    assert service.store.last_seq(ids[2]) == last_seq
    for match_id in ids[:2] + ids[3:]:
        last = service.events(match_id)[-1]
        assert isinstance(last.event, MatchEnded) and last.event.reason == "timeout"
    service.close()
