"""End to end: the turn clock (R25) of real ``basra serve`` processes with 1-second turns.

The servers run on the wall clock with the server's turn time at 1 second
(``--turn-seconds 1``; a table's own turn time is 5-600, the server's 1-600). Nothing is
asserted on a sleep: each test waits for a condition with a generous timeout, then counts what
the store holds; what a test cannot control on a loaded machine (how soon a client answers
within its one second) it reads from the store instead of assuming.
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
from domain.evolve import fold
from domain.recorded import RecordedEvent
from domain.times import utc_micros
from tests.app.api.helpers import HttpSteps, bearer, wait_until
from tests.e2e.test_serve import serve_process

pytestmark = pytest.mark.e2e

TURN = ("--turn-seconds", "1")
"""The server's turn time of these tests: one real second."""


@contextmanager
def clock_server(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``basra serve`` on the wall clock, no rate limits; (URL, process) once it answers."""
    limits = {"BASRA_RATE_LIMITS": "players=off matches=off"}
    with serve_process(tmp_path, *args, env=limits | (env or {})) as served:
        yield served


def now_ms() -> int:
    """The wall clock, in Unix epoch ms."""
    return time.time_ns() // 1_000_000


def on_turn_before_end(stream: list[RecordedEvent]) -> int | None:
    """The seat on turn right before the stream's last event."""
    return fold(r.event for r in stream[:-1]).turn


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
        clock_server(tmp_path, "--db", str(db), *TURN) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        # given two people seated at a 2-seat table with 1-second turns, nobody playing
        steps = HttpSteps(http, url)
        match_id, _tokens = table_of_people(steps, 2)

        # when the seat on turn lets its turn run out
        wait_until(lambda: status(http, url, match_id) == "ended", "the timeout")

    # then the match ended by timeout: that seat lost, the other side won, caused by the clock
    service = MatchService.open(db)
    stream = service.events(match_id)
    service.close()
    on_turn = on_turn_before_end(stream)
    assert on_turn is not None
    deadline = passed_deadline(stream, len(stream) - 1)
    assert deadline is not None
    turn_micros = utc_micros(deadline) - utc_micros(stream[-2].at)
    assert abs(turn_micros - 1_000_000) < 1000  # a 1-second turn (deadlines are whole ms)
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
        clock_server(tmp_path, "--db", str(db), *TURN) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        # given a 4-seat table with 1-second turns: seat 0 idles, seat 1 plays each of its turns
        # (as fast as it can see them), seats 2 and 3 bots
        steps = HttpSteps(http, url)
        match_id, tokens = table_of_people(steps, 4, bots=[2, 3])
        service = MatchService.open(db)

        def autoplays() -> int:
            return sum(
                1
                for r in service.events(match_id)
                if isinstance(r.event, CardPlayed) and r.event.auto and r.event.seat == 0
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
    # (seat 1 answers within its second on a quiet machine; on a loaded one the clock may play
    # for it too, which is the rule, so only seat 0's auto plays are counted on)
    auto = plays_in(stream, auto=True)
    assert len([r for r in auto if seat_of(r) == 0]) >= 2
    assert all(seat_of(r) in (0, 1) and r.caused_by == "clock" for r in auto)
    assert check_clock_events(stream) == auto
    assert any(seat_of(r) == 1 for r in plays_in(stream, auto=False))


def test_a_deadline_survives_sigkill_and_fires_once_after_the_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    args = ("--db", str(db), *TURN)
    # given a 2-seat table of people with a 1-second turn running, and its server killed with
    # SIGKILL right after the second seat was taken (the turn started)
    with (
        clock_server(tmp_path, *args) as (url, process),
        httpx.Client(timeout=10) as http,
    ):
        steps = HttpSteps(http, url)
        match_id = str(steps.create(seats=2)["match_id"])
        steps.sit(match_id, 0, "P0")
        steps.sit(match_id, 1, "P1")
        process.send_signal(signal.SIGKILL)
        process.wait(15)
    service = MatchService.open(db)
    killed = service.load(match_id)
    service.close()
    assert killed.status == "playing", "the server fired before it was killed: too slow"
    deadline = killed.deadline
    assert deadline is not None

    # when a new server starts on the same store (after the deadline has passed while down)
    with (
        clock_server(tmp_path, *args) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        wait_until(lambda: status(http, url, match_id) == "ended", "the deadline after a restart")

    # then the deadline recorded before the kill fired, once, after it
    service = MatchService.open(db)
    stream = service.events(match_id)
    service.close()
    assert [end.reason for end in ends_in(stream)] == ["timeout"]
    assert stream[-1].event == ends_in(stream)[0]
    assert passed_deadline(stream, len(stream) - 1) == deadline
    assert check_clock_events(stream) == [stream[-1]]


def test_a_table_still_waiting_is_closed_after_its_waiting_time(tmp_path: Path) -> None:
    db = tmp_path / "waiting.db"
    args = ("--db", str(db), "--waiting-minutes", "0.05")  # 3 s
    with (
        clock_server(tmp_path, *args) as (url, _),
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
    args = ("--workers", "2", "--database-url", pg_url, *TURN)
    with (
        clock_server(tmp_path, *args) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        # and six 2-seat tables of idle people, and one 4-seat table of idle people, 1-second
        # turns (the 4-seat table's turns become 5 seconds once all four ran out: R25a)
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
    with (
        clock_server(tmp_path, "--db", str(db), *TURN) as (url, _),
        httpx.Client(timeout=10) as http,
    ):
        # given a 2-seat table of people, the seat on turn waiting until its deadline is near
        steps = HttpSteps(http, url)
        match_id, tokens = table_of_people(steps, 2)
        view = steps.view(match_id, tokens[0])
        answers: list[int] = []
        if view["status"] == "playing":  # else the turn ran out before the client could look
            token = tokens[view["turn"]]
            hand = steps.view(match_id, token)["hand"]
            deadline_ms = utc_micros(view["deadline"]) // 1000
            time.sleep(max(0.0, (deadline_ms - now_ms()) / 1000 - 0.05))

        # when it plays at about its deadline, again and again until the clock has fired
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
    first = next(i for i, r in enumerate(stream) if isinstance(r.event, FloorDealt))
    on_turn = fold(r.event for r in stream[: first + 1]).turn
    played = plays_in(stream, auto=False)
    timeouts = ends_in(stream)
    assert set(answers) <= {200, 409}
    if 200 in answers:
        assert [seat_of(r) for r in played] == [on_turn]
        assert all(end.seat != on_turn for end in timeouts)
    else:
        assert played == [] and [end.seat for end in timeouts] == [on_turn]
