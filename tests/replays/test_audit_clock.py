"""verify and import accept the clock's acts (R25) only from the clock, after the deadline."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.autoplay import judge
from domain.commands import (
    Command,
    CreateMatch,
    ExpireTurn,
    LeaveMatch,
    PlayCard,
    RecordRematch,
    TakeSeat,
)
from domain.decide import decide
from domain.events import CardPlayed, Event, FloorDealt, MatchEnded, optional
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.state import INITIAL_STATE, MatchState
from domain.times import utc_micros, utc_text
from replays.audit import audit
from replays.cursor import MatchCursor
from replays.render import render_frame

T0 = 1_800_000_000_000


class _Recorder:
    """Records a clocked match as the server would: each append at the time it was decided."""

    def __init__(self) -> None:
        self.state: MatchState = INITIAL_STATE
        self.recorded: list[RecordedEvent] = []

    def run(self, command: Command, cause: str, now_ms: int) -> None:
        for event in judge(self.state, command):  # the clock's card chosen as the server does
            self._append(event, cause, now_ms)

    def _append(self, event: Event, cause: str, now_ms: int) -> None:
        self.state = evolve(self.state, event)
        seq = len(self.recorded) + 1
        self.recorded.append(
            RecordedEvent(seq=seq, at=utc_text(now_ms), event=event, caused_by=cause)
        )

    def deadline_ms(self) -> int:
        assert self.state.deadline is not None
        return utc_micros(self.state.deadline) // 1000


def _clocked(seats: int, ruleset: str = "classic") -> _Recorder:
    """A clocked match of people only, its first turn begun at T0."""
    rec = _Recorder()
    secret = secret_from_text_seed(f"audit-clock/{seats}")
    rec.run(CreateMatch("m-c", ruleset, seats, secret, turn_seconds=20), "server", T0 - 5000)
    for seat in range(seats):
        rec.run(
            TakeSeat(seat, f"p{seat}", token_id=f"t{seat}", now_us=T0 * 1000),
            f"seat:{seat}/token:t{seat}",
            T0,
        )
    return rec


def _fire(rec: _Recorder, late_ms: int = 40) -> int:
    """The clock fires ``late_ms`` after the deadline of the seat on turn; the seq it appended."""
    seat = rec.state.turn
    assert seat is not None and rec.state.deadline is not None
    seq = len(rec.recorded) + 1
    rec.run(
        ExpireTurn(seat, rec.state.deadline, (rec.deadline_ms() + late_ms) * 1000),
        "clock",
        rec.deadline_ms() + late_ms,
    )
    return seq


def _play(rec: _Recorder, after_ms: int = 3000) -> None:
    seat = rec.state.turn
    assert seat is not None
    now = rec.deadline_ms() - 20_000 + after_ms
    rec.run(
        PlayCard(seat, rec.state.hands[seat][0], now_us=now * 1000),
        f"seat:{seat}/token:t{seat}",
        now,
    )


def _at(recorded: list[RecordedEvent], seq: int, **fields: object) -> list[RecordedEvent]:
    out = list(recorded)
    out[seq - 1] = replace(out[seq - 1], **fields)
    return out


@pytest.mark.parametrize("ruleset", ["classic", "egyptian", "lebanese", "yemeni", "jordanian"])
def test_a_four_seat_match_the_clock_finishes_verifies_clean(ruleset: str) -> None:
    # given a 4-seat match where people play a while, then everyone idles to the end
    rec = _clocked(4, ruleset)
    for _ in range(6):
        _play(rec)
    while rec.state.status == "playing":
        _fire(rec)
    # when it is verified, then every deadline, auto play and its cause follow from the rules
    report = audit(rec.recorded)
    assert report.ok, report.divergence
    assert any(isinstance(r.event, CardPlayed) and r.event.auto for r in rec.recorded)


def test_a_two_seat_timeout_verifies_and_is_the_clocks_alone() -> None:
    # given a 2-seat match whose seat on turn ran out
    rec = _clocked(2)
    seq = _fire(rec)
    ended = rec.recorded[seq - 1].event
    assert isinstance(ended, MatchEnded) and ended.reason == "timeout"
    assert audit(rec.recorded).ok
    # when the timeout is recorded as caused by a seat or by the server, then it is refused there
    for cause in ("seat:1/token:t1", "server", "bot:0"):
        report = audit(_at(rec.recorded, seq, caused_by=cause))
        assert report.divergence is not None
        assert (report.divergence.seq, report.divergence.kind) == (seq, "trail"), cause


def test_an_auto_play_caused_by_anyone_but_the_clock_is_refused() -> None:
    rec = _clocked(4)
    seq = _fire(rec)
    report = audit(_at(rec.recorded, seq, caused_by="seat:0/token:t0"))
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "trail")
    assert "only the clock" in report.divergence.explanation


@pytest.mark.parametrize("seats", [2, 4])
def test_the_clock_acting_before_the_deadline_is_refused(seats: int) -> None:
    # given the clock's act recorded one millisecond before the deadline in force
    rec = _clocked(seats)
    deadline = rec.deadline_ms()
    seq = _fire(rec)
    early = _at(rec.recorded, seq, at=utc_text(deadline - 1))
    # then verify refuses it at its seq, naming the deadline
    report = audit(early)
    assert report.divergence is not None
    assert report.divergence.seq == seq
    assert utc_text(deadline) in report.divergence.explanation


def test_a_persons_play_recorded_after_its_deadline_is_refused() -> None:
    rec = _clocked(2)
    _play(rec)
    seq = len(rec.recorded) + 1
    _play(rec)
    before = rec.recorded[seq - 2].event
    assert isinstance(before, CardPlayed) and isinstance(before.deadline, str)
    # when the play is recorded at the deadline the play before set
    late = _at(rec.recorded, seq, at=utc_text(utc_micros(before.deadline) // 1000))
    report = audit(late)
    assert report.divergence is not None and report.divergence.seq == seq
    assert "ran out" in report.divergence.explanation


def test_a_recorded_deadline_must_be_the_rules_one() -> None:
    # given a clean clocked match with a play that passes the turn
    rec = _clocked(4)
    _play(rec)
    seq = len(rec.recorded)
    played = rec.recorded[seq - 1].event
    assert isinstance(played, CardPlayed)
    given_deadline = optional(played.deadline)
    assert given_deadline is not None
    # when the deadline is moved 5 s later, or left out
    later = utc_text(utc_micros(given_deadline) // 1000 + 5000)
    moved = _at(rec.recorded, seq, event=replace(played, deadline=later))
    bare = _at(rec.recorded, seq, event=replace(played, deadline=None))
    # then each is refused at that seq as a clock fault
    for stream in (moved, bare):
        report = audit(stream)
        assert report.divergence is not None
        assert (report.divergence.seq, report.divergence.kind) == (seq, "clock")


def test_the_first_floor_of_a_clocked_match_records_the_first_deadline() -> None:
    rec = _clocked(2)
    floor = next(r for r in rec.recorded if isinstance(r.event, FloorDealt))
    assert optional(floor.event.deadline) == utc_text(T0 + 20_000)  # type: ignore[attr-defined]


def test_rematch_created_is_the_one_event_after_the_end() -> None:
    # given a match that ended, then linked to its rematch
    rec = _clocked(2)
    rec.run(LeaveMatch(0), "seat:0/token:t0", T0 + 1000)
    rec.run(RecordRematch("m-next"), "server", T0 + 2000)
    # then it verifies; a second link, or a play after the end, does not
    assert audit(rec.recorded).ok
    twice = [*rec.recorded, replace(rec.recorded[-1], seq=len(rec.recorded) + 1)]
    report = audit(twice)
    assert report.divergence is not None and report.divergence.seq == len(twice)


def test_a_frame_shows_the_deadline_and_the_seats_run_out() -> None:
    # given a 4-seat clocked match where the clock played for one seat
    rec = _clocked(4)
    _fire(rec)
    deadline = rec.state.deadline
    assert deadline is not None
    # when its last position is rendered
    cursor = MatchCursor(rec.recorded)
    frame = render_frame(cursor.position(cursor.last_seq))
    # then the turn line shows until when, and which seat ran out (R25, R25a)
    assert f"until {deadline} (R25)" in frame
    assert f"run out: seat {rec.state.timed_out[0]} (R25a)" in frame


def test_a_forfeit_rewritten_as_a_timeout_is_refused() -> None:
    # given a clocked 2-seat match that a seat left before its deadline
    rec = _clocked(2)
    rec.run(LeaveMatch(0), "seat:0/token:t0", T0 + 1000)
    ended = rec.recorded[-1].event
    assert isinstance(ended, MatchEnded)
    assert audit(rec.recorded).ok
    # when the forfeit is rewritten as the clock's timeout, then verify refuses it there
    forged = _at(rec.recorded, len(rec.recorded), event=replace(ended, reason="timeout"))
    report = audit(_at(forged, len(forged), caused_by="clock"))
    assert report.divergence is not None
    assert report.divergence.seq == len(forged)


def test_a_timeout_while_a_bot_is_on_turn_is_refused() -> None:
    # given a clocked table of a person and a bot, the bot on turn (no deadline in force)
    rec = _Recorder()
    secret = secret_from_text_seed("audit-clock/bot")
    rec.run(CreateMatch("m-b", "classic", 2, secret, bots=(1,), turn_seconds=20), "server", T0)
    rec.run(TakeSeat(0, "p0", token_id="t0", now_us=T0 * 1000), "seat:0/token:t0", T0)
    if rec.state.turn == 0:
        _play(rec)
    assert rec.state.turn == 1 and rec.state.deadline is None
    # when the stream says the bot's seat ran out of time
    (timeout,) = decide(rec.state, LeaveMatch(1, "timeout"))
    seq = len(rec.recorded) + 1
    forged = [
        *rec.recorded,
        RecordedEvent(seq=seq, at=utc_text(T0 + 60_000), event=timeout, caused_by="clock"),
    ]
    # then verify refuses it: no clock runs on a bot's turn (R25)
    report = audit(forged)
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "clock")
