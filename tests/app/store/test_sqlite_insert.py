"""SQLite inserts of a grouped append: a few hundred rows a statement (app/store/sqlite.py), their
positions the rowids SQLite gave them, in order, and a stale row refusing the whole transaction."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store.match_store import MatchStore
from app.store.sqlite import ROWS_PER_INSERT, SQLiteBackend


def row(match_id: str, seq: int) -> StoredEvent:
    """A stored row of ``match_id`` at ``seq`` (its body is not read here)."""
    return StoredEvent(match_id, seq, "basra:test", f"{match_id}/{seq}".encode())


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[MatchStore]:
    store = MatchStore.sqlite(tmp_path / "basra.db")
    yield store
    store.close()


def stored(path: Path) -> list[tuple[int, str, int, bytes]]:
    """Every row of the file's log, read by a connection of its own: rowid, stream, seq, body."""
    with sqlite3.connect(path) as connection:
        return list(
            connection.execute(
                "SELECT rowid, originator_id, originator_version, state FROM stored_events"
                " ORDER BY rowid"
            )
        )


def test_a_large_group_is_stored_in_order_across_statements(
    sqlite_store: MatchStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a store holding a few rows already (not through the library's insert of one
    # statement a row)
    backend = sqlite_store.backend
    assert isinstance(backend, SQLiteBackend)

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("the library's insert of one statement a row ran")

    monkeypatch.setattr(SQLiteApplicationRecorder, "_insert_events", refused)
    first = backend.insert([row("m-a", 1), row("m-a", 2)])
    # when a group of more rows than one statement carries is inserted, streams interleaved
    rows = [row(f"m-{n % 7}", 10 + n // 7) for n in range(2 * ROWS_PER_INSERT + 13)]
    positions = backend.insert(rows)
    # then each row's position is the rowid it was stored at, one after another, in order
    assert list(first or ()) == [1, 2]
    assert list(positions or ()) == list(range(3, 3 + len(rows)))
    on_disk = stored(tmp_path / "basra.db")
    assert [(r[1], r[2], r[3]) for r in on_disk[2:]] == [
        (r.originator_id, r.originator_version, r.state) for r in rows
    ]
    assert [r[0] for r in on_disk] == list(range(1, 3 + len(rows)))


def test_a_stale_row_refuses_the_whole_group(sqlite_store: MatchStore, tmp_path: Path) -> None:
    # given a stream at seq 1
    backend = sqlite_store.backend
    backend.insert([row("m-b", 1)])
    # when a group whose last row repeats seq 1, past the first statement, is inserted
    rows = [row("m-c", n) for n in range(1, ROWS_PER_INSERT + 5)] + [row("m-b", 1)]
    # then it is refused as the library refuses a stale writer, and none of it is stored
    with pytest.raises(IntegrityError):
        backend.insert(rows)
    assert [(r[1], r[2]) for r in stored(tmp_path / "basra.db")] == [("m-b", 1)]
    # and the next group is numbered on from the stored rows
    assert list(backend.insert([row("m-b", 2)]) or ()) == [2]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    groups=st.lists(st.integers(min_value=1, max_value=3 * ROWS_PER_INSERT), min_size=1, max_size=6)
)
def test_positions_are_the_rowids_the_rows_are_read_back_at(groups: list[int]) -> None:
    # given a fresh store and groups of any sizes, each of streams of its own
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "basra.db"
        store = MatchStore.sqlite(path)
        try:
            returned: list[tuple[int, str, int]] = []
            # when each group is inserted
            for g, size in enumerate(groups):
                rows = [row(f"m-{g}-{n % 3}", 1 + n // 3) for n in range(size)]
                positions = list(store.backend.insert(rows) or ())
                returned += [
                    (p, str(r.originator_id), r.originator_version)
                    for p, r in zip(positions, rows, strict=True)
                ]
            # then every position names the row stored there, and the log reads in that order
            assert [(r[0], r[1], r[2]) for r in stored(path)] == returned
            assert [p for p, _, _ in returned] == list(range(1, sum(groups) + 1))
        finally:
            store.close()
