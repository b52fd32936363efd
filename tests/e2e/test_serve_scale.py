"""Several ``basra serve`` processes on one PostgreSQL: races, the read models each keeps equal to
a rebuild after a mixed load, live feeds pushed by the database, and feeds that stay complete
and in order across a process restart and a PostgreSQL restart.

Each test that restarts PostgreSQL starts a private server of its own (``initdb`` and
``pg_ctl`` from the installed PostgreSQL, on a free port, as the ``postgres`` user), so the
shared test server is never touched.
"""

from __future__ import annotations

import concurrent.futures
import glob
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.app.api.helpers import HttpSteps, SseReader, bearer
from tests.e2e.test_serve import SUPPORT, basra_serve, free_port

pytestmark = pytest.mark.e2e


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def _as_postgres(*command: str) -> list[str]:
    """Run as the ``postgres`` user when this is root (initdb refuses root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return list(command)


class PrivatePostgres:
    """A PostgreSQL server of this test's own: started, restarted and removed by it."""

    def __init__(self, bin_dir: Path, folder: Path) -> None:
        self.bin = bin_dir
        self.data = folder / "data"
        self.log = folder / "server.log"
        self.port = free_port()
        self.folder = folder

    @property
    def url(self) -> str:
        """A database URL with a schema of its own."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres?schema=scale"

    def _ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        command = [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log)]
        subprocess.run(
            _as_postgres(*command, "-o", options, "-w", "-t", "60", *args),
            check=True,
            capture_output=True,
            timeout=90,
        )

    def init(self) -> None:
        """initdb and start."""
        subprocess.run(
            _as_postgres(
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ),
            check=True,
            capture_output=True,
            timeout=90,
        )
        self._ctl("start")

    def restart(self) -> None:
        """Stop (fast: every connection is cut) and start again on the same port."""
        self._ctl("-m", "fast", "restart")

    def stop(self) -> None:
        """Stop the server."""
        self._ctl("-m", "immediate", "stop")


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A private PostgreSQL server, removed after the test."""
    bin_dir = _pg_bin()
    if bin_dir is None or (os.geteuid() == 0 and shutil.which("runuser") is None):
        pytest.skip("no PostgreSQL server binaries to start a private server with")
    folder = Path(tempfile.mkdtemp(prefix="basra-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    server = PrivatePostgres(bin_dir, folder)
    server.init()
    try:
        yield server
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _play_one(steps: HttpSteps, match_id: str, token: str, within: float = 60) -> dict[str, Any]:
    """Play the last card of the hand; retried with the same key while the store is away."""
    deadline = time.monotonic() + within
    while True:
        try:
            view = steps.view(match_id, token)
            key = {"Idempotency-Key": f"play-{view['seq']}"}
            response = steps.play(match_id, token, view["hand"][-1], seq=view["seq"], headers=key)
            if response.status_code == 200:
                return dict(response.json()["view"])
            assert response.status_code == 503, response.text
        except (AssertionError, httpx.TransportError):
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def _feed_to_the_end(url: str, match_id: str, token: str) -> list[int]:
    """Every event id of the match's feed up to ``match_ended``, reconnecting with
    Last-Event-ID whenever it is cut."""
    ids: list[int] = []
    ended = False
    deadline = time.monotonic() + 90
    while not ended:
        assert time.monotonic() < deadline, f"the feed stopped after {ids[-1:]}"
        headers = bearer(token) | ({"Last-Event-ID": str(ids[-1])} if ids else {})
        try:
            reader = SseReader(f"{url}/matches/{match_id}/events", headers).start()
            messages = reader.join(timeout=60, allow_cut=True)
        except (RuntimeError, httpx.TransportError):
            time.sleep(0.2)
            continue
        ids.extend(m.id for m in messages if m.id is not None)
        ended = any(m.data.get("type") == "match_ended" for m in messages if m.data)
    return ids


@pytest.mark.postgres
def test_a_play_on_one_process_reaches_a_feed_on_another_and_it_survives_a_restart(
    tmp_path: Path, pg_url: str
) -> None:
    # given two separate server processes on one database, and a feed opened on the second
    with (
        basra_serve(tmp_path, "--database-url", pg_url) as one,
        httpx.Client() as http,
    ):
        steps = HttpSteps(http, one)
        match_id, token = steps.practice(seed="e2e-scale-feed")
        with basra_serve(tmp_path, "--database-url", pg_url) as two:
            feed = HttpSteps(http, two).feed(match_id, token)
            # when three plays are made through the first process
            for _ in range(3):
                view = _play_one(steps, match_id, token)
            # then the second process's feed shows them (pushed: it does not poll the log)
            feed.wait_for(int(view["seq"]))
        first = [m.id for m in feed.join(allow_cut=True) if m.id is not None]
        assert first == list(range(1, len(first) + 1))
        # when the second process is gone and the match is played to its end meanwhile
        while view["status"] == "playing":
            view = _play_one(steps, match_id, token)
        last = int(view["seq"])
        # then a new second process resumes the feed after what was seen, to the end, in order
        with basra_serve(tmp_path, "--database-url", pg_url) as again:
            reader = HttpSteps(http, again).feed(match_id, token, Last_Event_ID=str(first[-1]))
            rest = [m.id for m in reader.join(timeout=60)]
        assert first + rest == list(range(1, last + 1))


@pytest.mark.postgres
def test_racing_plays_through_two_processes_apply_exactly_once(tmp_path: Path, pg_url: str) -> None:
    # given two server processes on one database and a practice match
    with (
        basra_serve(tmp_path, "--database-url", pg_url) as one,
        basra_serve(tmp_path, "--database-url", pg_url) as two,
        httpx.Client() as http,
    ):
        steps = [HttpSteps(http, one), HttpSteps(http, two)]
        match_id, token = steps[0].practice(seed="e2e-scale-race")
        view = steps[0].view(match_id, token)
        rounds = 0
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            while view["status"] == "playing" and rounds < 12:
                # when the same turn is played through both at once (other keys, same seq)
                card, seq = view["hand"][0], view["seq"]
                futures = [
                    pool.submit(
                        s.play,
                        match_id,
                        token,
                        card,
                        seq=seq,
                        headers={"Idempotency-Key": f"race-{rounds}-{k}"},
                    )
                    for k, s in enumerate(steps)
                ]
                statuses = sorted(f.result().status_code for f in futures)
                # then exactly one is applied and the other is refused as stale
                assert statuses == [200, 409], statuses
                view = steps[1].view(match_id, token)
                assert view["seq"] > seq
                rounds += 1
        # and the stream verifies: one card_played by seat 0 per round
        support = {"Authorization": f"Bearer {SUPPORT}"}
        replay = http.get(f"{one}/matches/{match_id}/replay", headers=support)
        assert replay.status_code == 200, replay.text
        lines = [line for line in replay.text.splitlines() if '"card_played"' in line]
        assert sum('"seat":0' in line for line in lines) == rounds


@pytest.mark.postgres
def test_live_feeds_stay_complete_and_in_order_across_a_postgresql_restart(
    tmp_path: Path, private_postgres: PrivatePostgres
) -> None:
    # given two server processes on a private PostgreSQL and a feed on the second
    url = private_postgres.url
    with (
        basra_serve(tmp_path, "--database-url", url) as one,
        basra_serve(tmp_path, "--database-url", url) as two,
        httpx.Client() as http,
    ):
        steps = HttpSteps(http, one)
        match_id, token = steps.practice(seed="e2e-scale-pg-restart")
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            view = _play_one(steps, match_id, token)
            future = pool.submit(_feed_to_the_end, two, match_id, token)
            # when PostgreSQL restarts in the middle of the match, and play goes on after it
            private_postgres.restart()
            while view["status"] == "playing":
                view = _play_one(steps, match_id, token)
            last = int(view["seq"])
            # then the second process's feed (resumed by Last-Event-ID if it was cut) holds
            # every event once, in order, up to the last
            ids = future.result(timeout=120)
        assert ids == list(range(1, last + 1))


def test_a_write_waiting_on_a_locked_sqlite_file_does_not_stall_the_server(
    tmp_path: Path,
) -> None:
    # given a server on a SQLite file, two practice matches and a feed on the second
    db = tmp_path / "locked.db"
    with basra_serve(tmp_path, "--db", str(db)) as url, httpx.Client(timeout=30) as http:
        steps = HttpSteps(http, url)
        held, held_token = steps.practice(seed="e2e-locked-held")
        other, other_token = steps.practice(seed="e2e-locked-other")
        feed = steps.feed(other, other_token)
        card = steps.view(held, held_token)["hand"][0]
        # when another process holds the file's write lock and a play must wait for it
        blocker = sqlite3.connect(db, isolation_level=None, timeout=30)
        blocker.execute("BEGIN IMMEDIATE")
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            try:
                waiting = pool.submit(steps.play, held, held_token, card)
                # (no sign of a request waiting on SQLite's busy handler can be read from
                # outside: give the play a moment to reach the server and wait on the lock)
                time.sleep(1.0)
                # then the server goes on meanwhile: /health, a view and a feed's keep-up
                answered = http.get(f"{url}/health")
                assert answered.status_code == 200
                assert steps.view(other, other_token)["status"] == "playing"
                assert not waiting.done()
                assert feed.messages and not feed.error
            finally:
                blocker.execute("COMMIT")
                blocker.close()
            # and once the lock is free, the waiting play is applied
            assert waiting.result(timeout=30).status_code == 200
        steps.leave(other, other_token)
        feed.join(timeout=30)


def _mixed_load(steps: list[HttpSteps], k: int) -> None:
    """One client's part of a mixed load: practice matches created on one process and played
    through the other, one left (a forfeit), one played to its end, one left unfinished."""
    mine, other = steps[k % 2], steps[(k + 1) % 2]
    for n in range(3):
        match_id, token = mine.practice(seed=f"e2e-mix-{k}-{n}")
        if n == 1:
            view = mine.view(match_id, token)
            while view["status"] == "playing":
                view = _play_one(other, match_id, token)
            continue
        for _ in range(3 + k):
            _play_one(other, match_id, token)
        if n == 0:
            other.leave(match_id, token)


@pytest.mark.postgres
def test_the_read_models_two_processes_keep_equal_a_rebuild_after_a_mixed_load(
    tmp_path: Path, pg_url: str, postgres_settings: Any
) -> None:
    from app.readmodels.models import ReadModels
    from app.store.match_store import MatchStore

    # given two server processes on one database, each with its read models in its own file
    # (brought up to the log whenever the lobby is asked for)
    files = [tmp_path / "one.readmodels.sqlite3", tmp_path / "two.readmodels.sqlite3"]
    with (
        basra_serve(
            tmp_path, "--database-url", pg_url, env={"BASRA_READMODELS": str(files[0])}
        ) as one,
        basra_serve(
            tmp_path, "--database-url", pg_url, env={"BASRA_READMODELS": str(files[1])}
        ) as two,
        httpx.Client(timeout=30) as http,
    ):
        steps = [HttpSteps(http, one), HttpSteps(http, two)]
        loading = True
        lobby_reads = 0

        def read_lobbies() -> None:
            nonlocal lobby_reads
            while loading:
                for url in (one, two):
                    assert http.get(f"{url}/matches").status_code == 200
                    lobby_reads += 1

        # when four clients at once create matches on one process and play, leave and finish
        # them through the other, while the lobby of both is read again and again
        with concurrent.futures.ThreadPoolExecutor(5) as pool:
            reader = pool.submit(read_lobbies)
            for done in [pool.submit(_mixed_load, steps, k) for k in range(4)]:
                done.result(timeout=240)
            loading = False
            reader.result(timeout=60)
        for url in (one, two):  # and once more after the load
            assert http.get(f"{url}/matches").status_code == 200
    assert lobby_reads > 10
    # then what each process kept, batch by batch during the load, equals a rebuild of the log
    store = MatchStore.postgres(postgres_settings)
    try:
        end = store.max_position()
        followers = [ReadModels(path, store) for path in files]
        kept = [(f.position(), f.table_rows(), f.player_rows()) for f in followers]
        rebuilt = ReadModels(tmp_path / "rebuilt.sqlite3", store)
        rebuilt.rebuild()
        expected = (end, rebuilt.table_rows(), rebuilt.player_rows())
        assert kept[0] == expected and kept[1] == expected
        statuses = sorted(row["status"] for row in expected[1])
        assert len(statuses) == 12 and "playing" in statuses and "ended" in statuses
        for models in (*followers, rebuilt):
            models.close()
    finally:
        store.close()


@pytest.mark.postgres
def test_feeds_on_two_processes_get_every_event_in_order_while_plays_alternate_between_them(
    tmp_path: Path, pg_url: str
) -> None:
    # given two server processes on one database, and six practice matches, each watched by its
    # seat's feed on the second process and a spectator's feed on the first
    with (
        basra_serve(tmp_path, "--database-url", pg_url) as one,
        basra_serve(tmp_path, "--database-url", pg_url) as two,
        httpx.Client() as http,
    ):
        tables = [HttpSteps(http, one).practice(seed=f"e2e-scale-burst-{k}") for k in range(6)]
        feeds = {
            match_id: [
                HttpSteps(http, two).feed(match_id, token),
                SseReader(f"{one}/matches/{match_id}/events", {}).start(),
            ]
            for match_id, token in tables
        }

        def play_to_the_end(match_id: str, token: str) -> int:
            # when every match is played to its end at once, each play through the other
            # process than the one before (each reply of the bot is made where the play was)
            with httpx.Client(timeout=30) as own:
                sides = [HttpSteps(own, one), HttpSteps(own, two)]
                view = sides[0].view(match_id, token)
                turn = 0
                while view["status"] == "playing":
                    steps = sides[turn % 2]
                    answer = steps.play(match_id, token, view["hand"][-1], seq=view["seq"])
                    assert answer.status_code == 200, answer.text
                    view = answer.json()["view"]
                    turn += 1
                return int(view["seq"])

        with concurrent.futures.ThreadPoolExecutor(len(tables)) as pool:
            lasts = dict(
                zip(
                    [m for m, _ in tables],
                    pool.map(lambda table: play_to_the_end(*table), tables),
                    strict=True,
                )
            )
        # then every feed, on either process, holds every event of its match once, in order
        for match_id, readers in feeds.items():
            for reader in readers:
                ids = [m.id for m in reader.join(timeout=60) if m.id is not None]
                assert ids == list(range(1, lasts[match_id] + 1)), match_id
