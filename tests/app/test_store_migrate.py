"""``basra store migrate``: stores of earlier builds rewritten once, in place, into one form.

The fixture stores (tests/data) answer ``export`` and ``verify`` byte for byte as the build that
read them in place did (tests/data/fixture_answers.json); every row keeps its log position; a
migration interrupted anywhere (a raised error at any row, or kill -9) and run again ends as an
uninterrupted one; run twice, the second changes nothing; nothing is served meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from app.config import PostgresSettings, StoreConfig
from app.errors import StoreNotMigratedError, StoreUnavailableError
from app.service import MatchService
from app.store.backend import STORED_FORM
from app.store.compact import is_compact_topic
from app.store.match_store import MatchStore
from app.store.migration import migrate
from app.store.sqlite_reader import SQLiteStreams
from app.store.streams import stream_key
from cli.main import app
from domain.recorded import RecordedEvent
from tests.app.conftest import postgres_url
from tests.app.test_store_contract import bot_match, recorded
from tests.migrated import DATA, migrate_file, migrated_copy

STORES = ("store_fixture_v1.db", "store_fixture_v2.db", "old_names.db")
ANSWERS: dict[str, dict[str, dict[str, list[Any]]]] = json.loads(
    (DATA / "fixture_answers.json").read_text(encoding="utf-8")
)
ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    """``basra ARGS`` through typer's CliRunner, with stdout and stderr apart."""
    return CliRunner().invoke(app, list(args), env={**ISOLATED, **(env or {})})


def answers(match_id: str, where: tuple[str, ...], env: dict[str, str | None] | None = None) -> Any:
    """What export and verify answer for the match, as the fixture answers file holds them."""
    asked = {
        "export": ("export", match_id),
        "export_seat0": ("export", match_id, "--as", "0"),
        "verify": ("verify", match_id),
        "verify_json": ("verify", match_id, "--json"),
    }
    found = {}
    for name, args in asked.items():
        result = run(*args, *where, env=env)
        found[name] = [result.exit_code, result.stdout]
    return found


def rows_of(path: Path) -> list[tuple[Any, ...]]:
    """Every event row of a SQLite store with its position, and the stream numbers' table."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        events = raw.execute(
            "SELECT rowid, originator_id, originator_version, topic, state FROM stored_events"
            " ORDER BY rowid"
        ).fetchall()
        numbers = raw.execute("SELECT n, match_id FROM stored_streams ORDER BY n").fetchall()
    return [*events, *numbers]


def positions_by_match(store: MatchStore) -> list[tuple[int, str, int]]:
    """The log as (position, match id, seq)."""
    return [(e.position, e.match_id, e.seq) for e in store.log_after(0, 100_000)]


# -- the fixture stores ----------------------------------------------------------------------


@pytest.mark.parametrize("name", STORES)
def test_a_fixture_store_is_refused_until_migrated(name: str, tmp_path: Path) -> None:
    # given a copy of a store an earlier build wrote
    db = tmp_path / name
    shutil.copyfile(DATA / name, db)
    # when this build opens it to serve or read, then it says in one line to migrate it
    with pytest.raises(StoreNotMigratedError, match="run `basra store migrate`"):
        MatchService.open(db)
    with pytest.raises(StoreNotMigratedError, match="run `basra store migrate`"):
        SQLiteStreams(db).match_ids()
    for args in (("verify", "--all"), ("matches",), ("export", "fixture-bots")):
        result = run(*args, "--db", str(db))
        assert result.exit_code == 69, args
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, args
        assert "basra store migrate" in result.stderr, args


@pytest.mark.parametrize("name", STORES)
def test_a_migrated_fixture_store_answers_byte_for_byte_as_before(
    name: str, tmp_path: Path
) -> None:
    # given a copy of a store an earlier build wrote, migrated
    db = migrated_copy(name, tmp_path / name)
    # when every match is exported and verified, then the answers are those read in place
    for match_id, before in ANSWERS[name].items():
        assert answers(match_id, ("--db", str(db))) == before, match_id


@pytest.mark.parametrize("name", STORES)
def test_migrating_keeps_every_position_and_twice_changes_nothing(
    name: str, tmp_path: Path
) -> None:
    # given a copy of a fixture store, its log as the earlier build numbered it
    db = tmp_path / name
    shutil.copyfile(DATA / name, db)
    with sqlite3.connect(db) as raw:
        before = raw.execute(
            "SELECT rowid, originator_id, originator_version FROM stored_events ORDER BY rowid"
        ).fetchall()
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
        keyed = (
            {stream_key(n): m for n, m in raw.execute("SELECT n, match_id FROM stored_streams")}
            if "stored_streams" in tables
            else {}
        )
    # when it is migrated
    report = migrate_file(db)
    # then every row is where it was: same position, same seq, same match
    store = MatchStore.sqlite(db)
    try:
        after = positions_by_match(store)
    finally:
        store.close()
    assert [(p, keyed.get(o, o), v) for p, o, v in before] == after
    assert report.form_after == STORED_FORM
    rows = rows_of(db)
    assert all(is_compact_topic(str(row[3])) for row in rows if len(row) == 5)
    # and migrating again changes nothing at all
    again = migrate_file(db)
    assert again.changed == 0 and again.form_before == STORED_FORM
    assert rows_of(db) == rows


# -- interruptions ---------------------------------------------------------------------------


def earlier_store(path: Path, matches: int, *, json_only: bool = False) -> Path:
    """A SQLite store as the build before stream keys left it: ``matches`` streams under their
    match ids, JSON rows (the second half of every other stream compact, as that build appended
    them), one of them named like the first key."""
    store = MatchStore.sqlite(path)
    try:
        rows = []
        for n in range(matches):
            match_id = "11" if n == 1 else f"m-early-{n}"
            events = recorded(bot_match(match_id, f"early/{n}"))[: 20 + n]
            half = len(events) // 2
            for i, one in enumerate(events):
                if json_only or n % 2 == 0 or i < half:
                    rows.append(store.mapper.to_json_stored_event(match_id, one))
                else:
                    rows.append(store.mapper.to_stored_event(match_id, one))
        # the streams interleaved in the log, as matches played at once are
        rows.sort(key=lambda r: (r.originator_version, str(r.originator_id)))
        store.recorder.insert_events(rows)
    finally:
        store.close()
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute("DROP TABLE stored_streams")
        raw.execute("PRAGMA user_version = 0")
        raw.commit()
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


class Interrupted(Exception):
    """Raised by the test's checkpoint: the migration stops there."""


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(min_value=1, max_value=160))
def test_a_migration_interrupted_anywhere_ends_as_an_uninterrupted_one(
    tmp_path_factory: pytest.TempPathFactory, stop_at: int
) -> None:
    # given two copies of one earlier store: one migrated at once
    folder = tmp_path_factory.mktemp("interrupted")
    first = earlier_store(folder / "first.db", 8)
    second = folder / "second.db"
    shutil.copyfile(first, second)
    clean = migrate_file(first)
    # when the other's migration is stopped after ``stop_at`` steps, then run again
    calls = [0]

    def checkpoint() -> None:
        calls[0] += 1
        if calls[0] == stop_at:
            raise Interrupted

    config = StoreConfig(kind="sqlite", sqlite_path=second)
    try:
        migrate(config, checkpoint=checkpoint)
    except Interrupted:
        # then, stopped, the store is still refused to everyone but the migration
        with pytest.raises(StoreNotMigratedError):
            MatchStore.sqlite(second)
    finished = migrate(config)
    # then it ends exactly as the uninterrupted one: every row, key and position
    assert rows_of(second) == rows_of(first)
    assert finished.form_after == clean.form_after == STORED_FORM


def test_a_migration_killed_by_sigkill_finishes_when_run_again(tmp_path: Path) -> None:
    # given a larger earlier store, and a copy of it migrated without interruption
    db = earlier_store(tmp_path / "killed.db", 60, json_only=True)
    clean = tmp_path / "clean.db"
    shutil.copyfile(db, clean)
    migrate_file(clean)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent.parent)}
    for key in ISOLATED:
        env.pop(key, None)
    # when `basra store migrate` is killed with SIGKILL once some streams are rewritten
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "store", "migrate", "--db", str(db)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        with sqlite3.connect(db, timeout=30) as raw:
            keyed = (
                raw.execute(
                    "SELECT COUNT(*) FROM sqlite_master WHERE name = 'stored_streams'"
                ).fetchone()[0]
                and raw.execute("SELECT COUNT(*) FROM stored_streams").fetchone()[0]
            )
        if keyed and keyed >= 5:
            break
        time.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait()
    # then the store is still refused, and the migration run again finishes it
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] != STORED_FORM
    done = run("store", "migrate", "--db", str(db), "--json")
    assert done.exit_code == 0, done.output
    assert rows_of(db) == rows_of(clean)


# -- streams named like keys, continued streams ------------------------------------------------


def test_a_stream_named_like_a_key_and_a_continued_stream_read_whole_after(tmp_path: Path) -> None:
    # given an earlier store whose second stream is named "11" (the first key's text) and whose
    # odd streams were continued in the compact form under their match ids
    db = earlier_store(tmp_path / "named.db", 4)
    with sqlite3.connect(db) as raw:
        before = {
            str(o): n
            for o, n in raw.execute(
                "SELECT originator_id, COUNT(*) FROM stored_events GROUP BY originator_id"
            )
        }
    # when it is migrated and a new match created
    report = migrate_file(db)
    store = MatchStore.sqlite(db)
    try:
        new = recorded(bot_match("m-new", "new"))
        store.append("m-new", new)
        # then every stream reads whole under its id, and no key names two streams
        assert store.match_ids() == ["11", "m-early-0", "m-early-2", "m-early-3", "m-new"]
        assert {m: len(store.read(m)) for m in before} == before
        keys = [store.streams.originator(m) for m in store.match_ids()]
        assert len(set(keys)) == len(keys) and store.streams.originator("11") != "11"
        assert store.read("m-new") == new
        assert report.streams_renamed == 4 and report.rows_unreadable == 0
    finally:
        store.close()


def test_an_unreadable_earlier_row_is_left_and_stays_a_corrupt_event_of_its_match(
    tmp_path: Path,
) -> None:
    # given an earlier store with one damaged JSON row
    db = earlier_store(tmp_path / "damaged.db", 3, json_only=True)
    with sqlite3.connect(db) as raw:
        raw.execute(
            "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 5",
            (b"{not json", "m-early-0"),
        )
    # when it is migrated, then that row is counted and the rest rewritten
    report = migrate_file(db)
    assert report.rows_unreadable == 1 and report.streams_renamed == 3
    service = MatchService.open(db)
    try:
        from app.errors import CorruptEventError

        with pytest.raises(CorruptEventError, match="seq 5"):
            service.events("m-early-0")
        assert len(service.events("11")) == 21
    finally:
        service.close()


# -- the lock: nothing serves a store being migrated --------------------------------------------


def test_a_store_being_migrated_is_refused_and_a_store_in_use_is_not_migrated(
    tmp_path: Path,
) -> None:
    db = earlier_store(tmp_path / "locked.db", 2)
    config = StoreConfig(kind="sqlite", sqlite_path=db)
    # given the migration holding the store's lock
    migrating = MatchStore.open(config, migrating=True)
    try:
        # then a server (or any command) refuses to start on it, in one line
        with pytest.raises(StoreNotMigratedError, match="being migrated"):
            MatchStore.open(config)
        served = run("serve", "--db", str(db), "--port", "0")
        assert served.exit_code == 69 and "being migrated" in served.stderr
        assert len(served.stderr.strip().splitlines()) == 1
    finally:
        migrating.close()
    migrate(config)
    # and given a process serving the migrated store, a migration refuses to run
    serving = MatchStore.open(config)
    try:
        with pytest.raises(StoreUnavailableError, match="in use"):
            migrate(config)
        refused = run("store", "migrate", "--db", str(db))
        assert refused.exit_code == 69 and "in use" in refused.stderr
    finally:
        serving.close()


def test_a_server_refuses_an_unmigrated_store_in_one_line(tmp_path: Path) -> None:
    # given a store an earlier build wrote
    db = tmp_path / "old.db"
    shutil.copyfile(DATA / "store_fixture_v2.db", db)
    # when a server is started on it, then it refuses in one line, naming the command
    served = run("serve", "--db", str(db), "--port", "0")
    assert served.exit_code == 69
    assert served.stderr.strip().splitlines() == [
        f"error: the store {db} was written by an earlier build: run `basra store migrate` "
        "(with no server running) to rewrite it once"
    ]


def test_restoring_an_older_backup_says_to_migrate(tmp_path: Path) -> None:
    # given a backup an earlier build took
    backup = tmp_path / "backup.db"
    shutil.copyfile(DATA / "store_fixture_v1.db", backup)
    target = tmp_path / "live" / "basra.db"
    # when it is restored, then the restore is followed by the same one line
    restored = run("restore", str(backup), "--db", str(target))
    assert restored.exit_code == 69
    assert (
        restored.stderr.strip()
        .splitlines()[-1]
        .endswith("run `basra store migrate` (with no server running) to rewrite it once")
    )
    # and once migrated, the restored store serves
    assert run("store", "migrate", "--db", str(target)).exit_code == 0
    assert run("verify", "--all", "--db", str(target)).exit_code == 0


def test_migrate_reports_what_it_changed_and_then_nothing(tmp_path: Path) -> None:
    db = tmp_path / "v2.db"
    shutil.copyfile(DATA / "store_fixture_v2.db", db)
    first = run("store", "migrate", "--db", str(db), "--json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["streams_renamed"] == 3 and report["rows_rewritten"] == 190
    assert report["form_before"] == 0 and report["form_after"] == STORED_FORM
    assert "migrating the store" in first.stderr  # the progress bar
    second = run("store", "migrate", "--db", str(db))
    assert second.exit_code == 0 and "nothing changed" in second.stderr


# -- PostgreSQL -------------------------------------------------------------------------------


def copy_into_postgres(name: str, settings: PostgresSettings) -> None:
    """The fixture store's event rows (and stream numbers, if any) in a fresh schema, in log
    order, as the earlier build left them there (no form recorded)."""
    store = MatchStore.postgres(settings)
    store.close()
    with sqlite3.connect(DATA / name) as raw:
        rows = raw.execute(
            "SELECT originator_id, originator_version, topic, state FROM stored_events"
            " ORDER BY rowid"
        ).fetchall()
        try:
            numbers = raw.execute("SELECT n, match_id FROM stored_streams").fetchall()
        except sqlite3.OperationalError:
            numbers = []
        players = (
            raw.execute(
                "SELECT originator_id, originator_version, topic, state FROM stored_players"
            ).fetchall()
            if name == "old_names.db"
            else []
        )
    from app.store.postgres import connect

    schema = settings.schema
    with connect(settings) as pg:
        for n, match_id in numbers:
            pg.execute(
                f'INSERT INTO "{schema}".stored_streams (n, match_id) VALUES (%s, %s)',
                (n, match_id),
            )
        for row in rows:
            pg.execute(
                f'INSERT INTO "{schema}".stored_events'
                " (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
                row,
            )
        for row in players:
            pg.execute(
                f'INSERT INTO "{schema}".stored_players'
                " (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
                row,
            )
        pg.execute(f'DROP TABLE "{schema}".stored_form')


@pytest.fixture
def pg_env(postgres_settings: PostgresSettings) -> Iterator[dict[str, str | None]]:
    """The command line's environment naming the test schema."""
    yield {"BASRA_DATABASE_URL": postgres_url(postgres_settings)}


@pytest.mark.postgres
@pytest.mark.parametrize("name", STORES)
def test_a_fixture_store_copied_into_postgres_migrates_and_answers_as_before(
    name: str, postgres_settings: PostgresSettings, pg_env: dict[str, str | None]
) -> None:
    # given the fixture's rows in a fresh PostgreSQL schema, as the earlier build left them
    if name == "old_names.db":
        from app.service.players import PlayerService

        service = MatchService(MatchStore.postgres(postgres_settings))
        PlayerService(service.store)  # the players' table
        service.close()
    copy_into_postgres(name, postgres_settings)
    config = StoreConfig(kind="postgres", postgres=postgres_settings)
    # then it is refused until migrated
    with pytest.raises(StoreNotMigratedError):
        MatchStore.open(config)
    refused = run("verify", "--all", env=pg_env)
    assert refused.exit_code == 69 and "basra store migrate" in refused.stderr
    # when it is migrated (twice)
    before = migrate(config)
    again = migrate(config)
    # then every match answers export and verify as the SQLite store did before
    for match_id, expected in ANSWERS[name].items():
        assert answers(match_id, (), env=pg_env) == expected, match_id
    assert again.changed == 0 and before.form_after == STORED_FORM
    store = MatchStore.open(config)
    try:
        entries = positions_by_match(store)
        assert [p for p, _, _ in entries] == sorted(p for p, _, _ in entries)
        assert len(entries) == sum(1 for _ in entries)
    finally:
        store.close()


@pytest.mark.postgres
def test_an_interrupted_postgres_migration_finishes_when_run_again(
    postgres_settings: PostgresSettings,
) -> None:
    # given the v2 fixture's rows in PostgreSQL
    copy_into_postgres("store_fixture_v2.db", postgres_settings)
    config = StoreConfig(kind="postgres", postgres=postgres_settings)
    # when the migration is stopped in the middle of its first stream, then run again
    calls = [0]

    def checkpoint() -> None:
        calls[0] += 1
        if calls[0] == 150:
            raise Interrupted

    with pytest.raises(Interrupted):
        migrate(config, checkpoint=checkpoint)
    migrate(config)
    # then every stream reads whole, by id, at its positions
    store = MatchStore.open(config)
    try:
        stream: list[RecordedEvent] = store.read("fixture-bots")
        assert len(stream) == 173 and [r.seq for r in stream] == list(range(1, 174))
        assert [m for _, m, s in positions_by_match(store) if s == 1] == [
            "fixture-bots",
            "fixture-people",
            "fixture-waiting",
        ]
    finally:
        store.close()


@pytest.mark.postgres
def test_a_closed_postgres_store_lets_the_next_migration_in_at_once(
    postgres_settings: PostgresSettings,
) -> None:
    # given a PostgreSQL store opened alone (as a migration does) and closed, again and again
    config = StoreConfig(kind="postgres", postgres=postgres_settings)
    refused = 0
    for _ in range(100):
        # when the next one opens it right after the last one closed
        try:
            MatchStore.open(config, migrating=True).close()
        except StoreUnavailableError:
            refused += 1
    # then none finds the store still in use: closing releases the lock before it returns
    assert refused == 0
