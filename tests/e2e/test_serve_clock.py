"""End to end: the turn clock (R25) of real ``basra serve`` processes.

The servers run with ``BASRA_TEST_CLOCK`` at five times the wall clock, so the shortest turn the
rules allow (5 s) passes in about one real second; every process of a test shares the anchor,
so they read the same time across a restart. Nothing is asserted on a sleep: each test waits
for a condition with a generous timeout, then counts what the store holds.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.service import MatchService
from domain.events import CardPlayed, FloorDealt, MatchCreated, MatchEnded, optional
from domain.recorded import RecordedEvent
from domain.times import utc_micros
from tests.app.api.helpers import HttpSteps, bearer, wait_until
from tests.e2e.test_serve import serve_process

pytestmark = pytest.mark.e2e

SPEED = 5
"""How much faster than the wall clock the served clock runs."""


@contextmanager
def clock_server(
    tmp_path: Path, *args: str, anchor_ms: int, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``basra serve`` with the fast test clock; (URL, process) once it answers."""
    clock = {
        "BASRA_TEST_CLOCK": f"{anchor_ms}*{SPEED}",
        "BASRA_RATE_LIMITS": "players=off matches=off",
    }
    with serve_process(tmp_path, *args, env=clock | (env or {})) as served:
        yield served


def now_ms() -> int:
    """The wall clock, as the anchor of a test's servers."""
    return time.time_ns() // 1_000_000


def ended(http: httpx.Client, url: str, match_id: str) -> bool:
    """Whether the public table shows the match ended."""
    return status(http, url, match_id) == "ended"


def status(http: httpx.Client, url: str, match_id: str) -> str:
    """The public table's status."""
    response = http.get(f"{url}/matches/{match_id}")
    assert response.status_code == 200, response.text
    return str(response.json()["status"])


def table_of_people(
    steps: HttpSteps, seats: int, bots: list[int] | None = None
) -> tuple[str, list[str]]:
    """A table whose person seats are all taken: (match id, tokens by seat, '' for bots)."""
    bots = bots or []
    match_id = str(steps.create(seats=seats, bots=bots)["match_id"])
    tokens = [
        "" if seat in bots else steps.sit(match_id, seat, f"P{seat}") for seat in range(seats)
    ]
    return match_id, tokens


def ends_in(stream: list[RecordedEvent]) -> list[MatchEnded]:
    """The stream's ``match_ended`` events."""
    return [r.event for r in stream if isinstance(r.event, MatchEnded)]


def plays_in(stream: list[RecordedEvent], *, auto: bool) -> list[RecordedEvent]:
    """The stream's ``card_played`` entries made by the clock (auto) or not."""
    return [r for r in stream if isinstance(r.event, CardPlayed) and r.event.auto == auto]


def seat_of(r: RecordedEvent) -> int | None:
    """The seat a play or an end names."""
    assert isinstance(r.event, (CardPlayed, MatchEnded))
    return r.event.seat


def passed_deadline(stream: list[RecordedEvent], index: int) -> str | None:
    """The deadline in force before the event at ``index``: the last one a turn passed with."""
    for r in reversed(stream[:index]):
        if isinstance(r.event, (CardPlayed, FloorDealt)):
            return optional(r.event.deadline)
    return None


def check_clock_events(stream: list[RecordedEvent]) -> list[RecordedEvent]:
    """Every event the clock caused acted at or after the deadline it fired; they are returned."""
    fired = []
    for index, r in enumerate(stream):
        if r.caused_by != "clock":
            continue
        deadline = passed_deadline(stream, index)
        if isinstance(r.event, MatchEnded) and r.event.reason == "abandoned":
            created = stream[0]
            assert isinstance(created.event, MatchCreated)
        else:
            assert deadline is not None, r
            assert utc_micros(r.at) >= utc_micros(deadline), (r.at, deadline)
        fired.append(r)
    return fired


def test_a_two_seat_table_whose_seat_on_turn_idles_ends_by_timeout(tmp_path: Path) -> None:
    db = tmp_path / "clock.db"
    with (
        clock_server(tmp_path, "--db", str(db), "--turn-seconds", "5", anchor_ms=now_ms()) as (
            url,
            _,
        ),
        httpx.Client(timeout=10) as http,
    ):
        # given two people seated at a 2-seat table, nobody playing
        steps = HttpSteps(http, url)
        match_id, tokens = table_of_people(steps, 2)
        on_turn = steps.view(match_id, tokens[0])["turn"]

        # when the seat on turn lets its turn run out
        wait_until(lambda: status(http, url, match_id) == "ended", "the timeout")

    # then the match ended by timeout: that seat lost, the other side won, caused by the clock
    service = MatchService.open(db)
    stream = service.events(match_id)
    service.close()
    ended = stream[-1]
    assert isinstance(ended.event, MatchEnded)
    assert ended.event.reason == "timeout"
    assert ended.event.seat == on_turn
    assert ended.event.winner == 1 - on_turn
    assert ended.caused_by == "clock"
    assert check_clock_events(stream) == [ended]


def test_a_four_seat_table_plays_the_idle_seat_and_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "clock4.db"
    with (
        clock_server(tmp_path, "--db", str(db), "--turn-seconds", "5", anchor_ms=now_ms()) as (
            url,
            _,
        ),
        httpx.Client(timeout=10) as http,
    ):
        # given a 4-seat table: seat 0 idles, seat 1 plays each of its turns, seats 2 and 3 bots
        steps = HttpSteps(http, url)
        match_id, tokens = table_of_people(steps, 4, bots=[2, 3])
        service = MatchService.open(db)

        def autoplays() -> int:
            return sum(
                1
                for r in service.events(match_id)
                if isinstance(r.event, CardPlayed) and r.event.auto
            )

        # when seat 0 lets two of its turns run out while seat 1 plays
        limit = time.monotonic() + 60
        while autoplays() < 2:
            assert time.monotonic() < limit, "seat 0 was not played for twice"
            view = steps.view(match_id, tokens[1])
            if view["status"] == "playing" and view["turn"] == 1:
                response = steps.play(match_id, tokens[1], view["hand"][0], seq=view["seq"])
                assert response.status_code in (200, 409), response.text
            time.sleep(0.02)

        # then the match goes on, seat 0's cards played for it by the clock, marked auto
        assert status(http, url, match_id) == "playing"
        stream = service.events(match_id)
        service.close()
    auto = plays_in(stream, auto=True)
    assert all(seat_of(r) == 0 and r.caused_by == "clock" for r in auto)
    assert check_clock_events(stream) == auto
    assert any(seat_of(r) == 1 for r in plays_in(stream, auto=False))


def test_a_deadline_survives_sigkill_and_fires_once_after_the_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    anchor = now_ms()
    args = ("--db", str(db), "--turn-seconds", "30")  # 6 real seconds at 5x
    # given a 2-seat table of people with a turn running, and its server killed with SIGKILL
    with (
        clock_server(tmp_path, *args, anchor_ms=anchor) as (url, process),
        httpx.Client(timeout=10) as http,
    ):
        match_id, tokens = table_of_people(HttpSteps(http, url), 2)
        deadline = HttpSteps(http, url).view(match_id, tokens[0])["deadline"]
        process.send_signal(signal.SIGKILL)
        process.wait(15)
    service = MatchService.open(db)
    assert service.load(match_id).status == "playing"  # killed before the deadline
    service.close()

    # when a new server starts on the same store
    with (
        clock_server(tmp_path, *args, anchor_ms=anchor) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        wait_until(lambda: status(http, url, match_id) == "ended", "the deadline after a restart")

    # then the deadline recorded before the kill fired, once, after it
    service = MatchService.open(db)
    stream = service.events(match_id)
    service.close()
    assert [end.reason for end in ends_in(stream)] == ["timeout"]
    assert passed_deadline(stream, len(stream) - 1) == deadline
    assert check_clock_events(stream) == [stream[-1]]


def test_a_table_still_waiting_is_closed_after_its_waiting_time(tmp_path: Path) -> None:
    db = tmp_path / "waiting.db"
    args = ("--db", str(db), "--waiting-minutes", "0.05")  # 3 s of the served clock
    with (
        clock_server(tmp_path, *args, anchor_ms=now_ms()) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        # given a 2-seat table with one seat taken
        steps = HttpSteps(http, url)
        match_id = str(steps.create(seats=2)["match_id"])
        steps.sit(match_id, 0)

        # when nobody takes the other seat in time
        wait_until(lambda: status(http, url, match_id) == "ended", "the waiting table's close")

    # then the clock closed it as abandoned, nobody winning, after its waiting time
    service = MatchService.open(db)
    stream = service.events(match_id)
    service.close()
    ended = stream[-1]
    assert isinstance(ended.event, MatchEnded)
    assert (ended.event.reason, ended.event.winner, ended.caused_by) == ("abandoned", None, "clock")
    assert utc_micros(ended.at) - utc_micros(stream[0].at) >= 3_000_000
    assert len([r for r in stream if isinstance(r.event, MatchEnded)]) == 1


@pytest.mark.postgres
def test_two_server_processes_on_postgresql_fire_each_deadline_once(
    tmp_path: Path, pg_url: str
) -> None:
    # given two worker processes on one PostgreSQL database, each running its clock
    args = ("--workers", "2", "--database-url", pg_url, "--turn-seconds", "5")
    with (
        clock_server(tmp_path, *args, anchor_ms=now_ms()) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        # and six 2-seat tables of idle people, and one 4-seat table of idle people
        steps = HttpSteps(http, url)
        twos = [table_of_people(steps, 2)[0] for _ in range(6)]
        four, _tokens = table_of_people(steps, 4)

        # when their deadlines pass
        for match_id in twos:
            wait_until(functools.partial(ended, http, url, match_id), f"{match_id} ends")
        service = MatchService.open(database_url=pg_url)

        def four_autoplays() -> int:
            stream = service.events(four)
            return sum(1 for r in stream if isinstance(r.event, CardPlayed) and r.event.auto)

        wait_until(lambda: four_autoplays() >= 6, "six auto plays at the 4-seat table")

        # then each 2-seat table ended once, by timeout, and every clock event fired one deadline
        for match_id in twos:
            stream = service.events(match_id)
            assert [end.reason for end in ends_in(stream)] == ["timeout"], stream[-1]
            assert check_clock_events(stream) == [stream[-1]]
        stream = service.events(four)
        fired = check_clock_events(stream)
        deadlines = [passed_deadline(stream, stream.index(r)) for r in fired]
        assert len(deadlines) == len(set(deadlines)) >= 6
        service.close()

    # and every stream verifies (the clock acted only after each recorded deadline)
    verified = subprocess.run(
        [sys.executable, "-m", "cli.main", "verify", "--all"],
        env=os.environ | {"BASRA_DATABASE_URL": pg_url},
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_play_racing_its_deadline_lands_or_is_refused_never_both(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    anchor = now_ms()
    with (
        clock_server(tmp_path, "--db", str(db), "--turn-seconds", "5", anchor_ms=anchor) as (
            url,
            _,
        ),
        httpx.Client(timeout=10) as http,
    ):
        # given a 2-seat table of people, the seat on turn waiting until its deadline is near
        steps = HttpSteps(http, url)
        match_id, tokens = table_of_people(steps, 2)
        view = steps.view(match_id, tokens[0])
        token = tokens[view["turn"]]
        hand = steps.view(match_id, token)["hand"]
        deadline_real_ms = anchor + (utc_micros(view["deadline"]) // 1000 - anchor) / SPEED
        time.sleep(max(0.0, (deadline_real_ms - now_ms()) / 1000 - 0.05))

        # when it plays at about its deadline, again and again until the clock has fired
        answers: list[int] = []
        while status(http, url, match_id) == "playing" and len(answers) < 200:
            response = http.post(
                f"{url}/matches/{match_id}/plays",
                json={"card": hand[0], "seq": view["seq"]},
                headers=bearer(token),
            )
            answers.append(response.status_code)
            if response.status_code == 200:
                break
        wait_until(lambda: status(http, url, match_id) != "playing" or 200 in answers, "an end")

    # then either the play landed before the deadline, or the clock ended the match: not both
    service = MatchService.open(db)
    stream = service.events(match_id)
    service.close()
    played = plays_in(stream, auto=False)
    timeouts = ends_in(stream)
    assert set(answers) <= {200, 409}
    if 200 in answers:
        assert [seat_of(r) for r in played] == [view["turn"]]
        assert all(end.seat != view["turn"] for end in timeouts)
    else:
        assert played == [] and [end.seat for end in timeouts] == [view["turn"]]
