"""The presence table (app.store.backend, "presence") on every store: one row per (match, seat,
process) held, its beat refreshed, old beats gone; made on open, also in a store written before
it (docs/api.md, "Connected now")."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from psycopg import sql

from app.config import PostgresSettings
from app.store.backend import PRESENCE_TABLE, STORED_FORM
from app.store.match_store import MatchStore
from app.store.postgres import connect
from tests.migrated import DATA, migrate_file

EXPIRY = 30.0


def live(store: MatchStore, match_ids: list[str], asking: str = "asker") -> dict[str, set[int]]:
    """The seats held by processes other than ``asking`` with a beat within EXPIRY."""
    found = store.backend.presence_seats(match_ids, asking, time.time() - EXPIRY)
    return {match_id: set(seats) for match_id, seats in found.items()}


def test_a_held_seat_is_seen_by_another_handle_until_released(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given process "a" holding seat 0 of m1 (twice: the second hold only refreshes) and seat 1
    # of m2, and process "b" holding seat 0 of m1 too
    now = time.time()
    store.backend.presence_write("a", [("m1", 0)], [], now)
    store.backend.presence_write("a", [("m1", 0)], [], now)
    store.backend.presence_write("a", [("m2", 1)], [], now)
    other_store.backend.presence_write("b", [("m1", 0)], [], now)
    # then another handle sees each match's seats, and a process does not count its own rows
    assert live(other_store, ["m1", "m2", "m3"]) == {"m1": {0}, "m2": {1}}
    assert live(other_store, ["m1", "m2"], asking="a") == {"m1": {0}}
    assert other_store.backend.presence_elsewhere("b", now - EXPIRY)
    # when "a" releases seat 0 of m1: "b" still holds it
    store.backend.presence_write("a", [], [("m1", 0)], 0.0)
    assert live(other_store, ["m1", "m2"]) == {"m1": {0}, "m2": {1}}
    # when "b" releases it too, and "a" stops (every row of it deleted)
    other_store.backend.presence_write("b", [], [("m1", 0)], 0.0)
    store.backend.presence_release_all("a")
    # then nobody holds anything
    assert live(other_store, ["m1", "m2"]) == {}
    assert not other_store.backend.presence_elsewhere("b", now - EXPIRY)


def test_one_write_holds_and_releases_many_seats_at_once(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given process "a" holding seat 0 of m1 and m2
    now = time.time()
    store.backend.presence_write("a", [("m1", 0), ("m2", 0)], [], now)
    assert live(other_store, ["m1", "m2", "m3"]) == {"m1": {0}, "m2": {0}}
    # when one write holds seat 1 of m1 and seat 0 of m3 and releases seat 0 of m2 (and a seat
    # it never held, which changes nothing)
    store.backend.presence_write("a", [("m1", 1), ("m3", 0)], [("m2", 0), ("m9", 1)], now)
    # then another handle sees exactly the seats now held
    assert live(other_store, ["m1", "m2", "m3", "m9"]) == {"m1": {0, 1}, "m3": {0}}
    # and a write of nothing changes nothing
    store.backend.presence_write("a", [], [], now)
    assert live(other_store, ["m1", "m2", "m3", "m9"]) == {"m1": {0, 1}, "m3": {0}}


def test_an_old_beat_counts_as_gone_and_a_heartbeat_keeps_rows_alive(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given a crashed process's row, its last beat older than the expiry, and a live one's
    now = time.time()
    store.backend.presence_write("crashed", [("m1", 1)], [], now - 2 * EXPIRY)
    store.backend.presence_write("alive", [("m1", 0)], [], now - EXPIRY / 2)
    # then only the live row counts
    assert live(other_store, ["m1"]) == {"m1": {0}}
    assert other_store.backend.presence_elsewhere("crashed", now - EXPIRY)
    assert not other_store.backend.presence_elsewhere("alive", now - EXPIRY)
    # when the live process beats (its rows refreshed, rows gone swept)
    held = store.backend.presence_beat("alive", now, now - EXPIRY)
    # then it is told which rows it has, and the crashed row is gone for good
    assert held == [("m1", 0)]
    assert other_store.backend.presence_beat("crashed", now, now - EXPIRY) == []
    assert live(other_store, ["m1"]) == {"m1": {0}}
    # and a beat moved the live row forward: still live a whole expiry after its old beat
    later = store.backend.presence_seats(["m1"], "asker", now - EXPIRY / 4)
    assert dict(later) == {"m1": frozenset({0})}


def test_many_matches_are_read_in_one_call(store: MatchStore) -> None:
    # given 1200 matches with seat 1 held (more than one statement's worth)
    now = time.time()
    ids = [f"m{n}" for n in range(1200)]
    for match_id in ids:
        store.backend.presence_write("a", [(match_id, 1)], [], now)
    # then every one is found
    found = live(store, [*ids, "unknown"])
    assert len(found) == 1200 and all(seats == {1} for seats in found.values())


def test_an_older_sqlite_store_gets_the_table_on_open_and_still_migrates(tmp_path: Path) -> None:
    # given a store an earlier build wrote (no presence table), migrated as before
    db = tmp_path / "old.db"
    shutil.copyfile(DATA / "store_fixture_v2.db", db)
    with sqlite3.connect(db) as raw:
        names = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert PRESENCE_TABLE not in names
    report = migrate_file(db)
    assert report.form_after == STORED_FORM and report.changed > 0
    # and a copy of the migrated store with the presence table dropped (a build before it)
    with sqlite3.connect(db) as raw:
        raw.execute(f"DROP TABLE IF EXISTS {PRESENCE_TABLE}")
    # when a server opens it
    store = MatchStore.sqlite(db)
    try:
        store.backend.presence_write("a", [("m1", 0)], [], time.time())
        # then the table is there and works
        assert live(store, ["m1"]) == {"m1": {0}}
        assert store.match_ids()  # its matches are read as before
    finally:
        store.close()
    # and migrating it again changes nothing
    assert migrate_file(db).changed == 0


@pytest.mark.postgres
def test_an_older_postgresql_store_gets_the_table_on_open(
    postgres_settings: PostgresSettings,
) -> None:
    # given a PostgreSQL store in today's form whose presence table is missing (a build before it)
    MatchStore.postgres(postgres_settings).close()
    with connect(postgres_settings) as raw:
        raw.execute(
            sql.SQL("DROP TABLE {}.{}").format(
                sql.Identifier(postgres_settings.schema), sql.Identifier(PRESENCE_TABLE)
            )
        )
    # when a server opens it
    store = MatchStore.postgres(postgres_settings)
    try:
        store.backend.presence_write("a", [("m1", 0)], [], time.time())
        # then the table is there and works
        assert live(store, ["m1"]) == {"m1": {0}}
    finally:
        store.close()
