"""The light readers read exactly what the store and the read models wrote.

app.store.sqlite_reader reads eventsourcing's SQLite table with sqlite3 alone, and
app.readmodels.reader reads the ``matches`` read model without sqlite-utils: every test writes
with the real library and reads with both, so a change of the library's layout (or of the read
models' schema) fails here rather than in a command.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.errors import CorruptEventError, MatchNotFoundError, StoreUnavailableError
from app.readmodels.models import ReadModels
from app.readmodels.reader import fresh_matches
from app.service import MatchService
from app.store.match_store import MatchStore
from app.store.sqlite_reader import SQLiteStreams
from domain.fairness import secret_from_text_seed
from tests.app.test_readmodels import record_some_matches
from tests.stored_rows import stream_of, write_raw_row


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, list[str]]:
    """A SQLite store written through eventsourcing: ended, waiting, in play and left matches."""
    path = tmp_path / "basra.db"
    service = MatchService(MatchStore.sqlite(path))
    ids = record_some_matches(service)
    service.close()
    return path, ids


def test_streams_read_back_as_the_store_reads_them(written: tuple[Path, list[str]]) -> None:
    # given a store written by eventsourcing
    path, ids = written
    store = MatchStore.sqlite(path)
    reader = SQLiteStreams(path)
    try:
        # then every stream, the match ids and the log's last position read the same both ways
        for match_id in ids:
            assert reader.events(match_id) == store.read(match_id)
        assert reader.match_ids() == store.match_ids() == sorted(ids, key=ids.index)
        assert reader.max_position() == store.max_position() > 0
    finally:
        reader.close()
        store.close()


def test_an_unknown_match_and_a_damaged_row_are_the_stores_errors(
    written: tuple[Path, list[str]],
) -> None:
    # given a store with one row damaged and one topic no build knows
    path, ids = written
    with sqlite3.connect(path) as connection:
        write_raw_row(connection, ids[0], 3, b"{not json")
        connection.execute(
            "UPDATE stored_events SET topic = 'domain.events:CardPlayed'"
            " WHERE originator_id = ? AND originator_version = 4",
            (stream_of(connection, ids[1]),),
        )
    connection.close()
    store = MatchStore.sqlite(path)
    reader = SQLiteStreams(path)
    try:
        # then both readers refuse them with the same error, naming the match and seq
        for match_id in ids[:2]:
            with pytest.raises(CorruptEventError) as light:
                reader.events(match_id)
            with pytest.raises(CorruptEventError) as full:
                store.read(match_id)
            assert light.value.message == full.value.message
            assert light.value.seq == full.value.seq
        with pytest.raises(MatchNotFoundError):
            reader.events("no-such-match")
    finally:
        reader.close()
        store.close()


def test_a_file_without_the_table_holds_no_match_and_is_left_as_it_was(tmp_path: Path) -> None:
    # given an empty SQLite file
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    reader = SQLiteStreams(path)
    # then it has no match, no log, and the reader created nothing in it
    with pytest.raises(MatchNotFoundError):
        reader.events("m-1")
    assert reader.match_ids() == []
    assert reader.max_position() == 0
    reader.close()
    assert path.stat().st_size == 0


def test_a_file_that_is_not_a_database_is_a_store_fault(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are not the events you are looking for\n" * 100)
    reader = SQLiteStreams(path)
    with pytest.raises(StoreUnavailableError, match=f"cannot open {path}: file is not a database"):
        reader.events("m-1")
    reader.close()


def test_the_read_models_read_back_as_sqlite_utils_reads_them(
    written: tuple[Path, list[str]],
) -> None:
    # given read models brought up to date by app.readmodels.models
    path, _ = written
    store = MatchStore.sqlite(path)
    read = ReadModels.for_store(store)
    read.catch_up()
    try:
        # then every filter reads the same rows without sqlite-utils
        for status in (None, "waiting", "playing", "ended"):
            for limit in (None, 1, 3):
                light = fresh_matches(
                    read.path, store.identity, store.max_position(), status=status, limit=limit
                )
                assert light == read.matches(status=status, limit=limit)
        assert len(read.matches()) == 7
    finally:
        read.close()
        store.close()


def test_read_models_with_entries_left_to_fold_are_not_read(
    written: tuple[Path, list[str]],
) -> None:
    # given read models that followed the log, and then one more match recorded
    path, _ = written
    store = MatchStore.sqlite(path)
    read = ReadModels.for_store(store)
    read.catch_up()
    service = MatchService(store)
    service.create_match(
        ruleset="yemeni", seats=2, bots=(0, 1), secret=secret_from_text_seed("later")
    )
    try:
        # then the light reader declines (the caller folds them first), as it does for another
        # store or a file that does not exist
        position = store.max_position()
        assert fresh_matches(read.path, store.identity, position) is None
        assert fresh_matches(read.path, "sqlite:/elsewhere.db", read.position()) is None
        assert fresh_matches(path.with_name("none.sqlite3"), store.identity, position) is None
        read.catch_up()
        assert fresh_matches(read.path, store.identity, position) == read.matches()
    finally:
        read.close()
        store.close()


def test_the_reader_knows_the_stores_form_and_shares_its_lock(
    written: tuple[Path, list[str]],
) -> None:
    # the light reader (no eventsourcing) names the same stored form as the store
    from app.config import StoreConfig
    from app.errors import StoreNotMigratedError
    from app.store import sqlite_reader
    from app.store.backend import STORED_FORM

    assert sqlite_reader.STORED_FORM == STORED_FORM
    # and while a migration holds the store's lock, it refuses to read
    path, ids = written
    migrating = MatchStore.open(StoreConfig(kind="sqlite", sqlite_path=path), migrating=True)
    try:
        with pytest.raises(StoreNotMigratedError, match="being migrated"):
            SQLiteStreams(path)
    finally:
        migrating.close()
    reader = SQLiteStreams(path)
    assert reader.match_ids() == ids
    reader.close()


def test_the_light_reader_knows_the_read_models_schema_of_now() -> None:
    # given the read models' schema and the one the sqlite3-only reader accepts, then they agree
    # (a bump of one without the other sends every `basra matches` down the full path)
    from app.readmodels import models, reader

    assert reader.SCHEMA_VERSION == models.SCHEMA_VERSION
