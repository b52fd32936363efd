"""What the SQLite store's topic index and its own read of the log rely on in eventsourcing
(docs/architecture.md L20): these fail when the library changes under the store.

- The events table is the recorder's ``events_table_name``, an ordinary rowid table whose
  columns are the originator id, its version, the topic and the state, and whose rowid is the
  position in the global log (the library's ``select_notifications`` numbers by it).
- The store's query over several topics (``MatchStore.log_after`` on SQLite) returns exactly
  what the library's ``select_notifications`` returns for the same arguments.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.store.decoding import CANONICAL_TOPIC, TOPICS, stored_topics
from app.store.match_store import TOPIC_INDEX, LogEntry, MatchStore
from domain.events import Event, MatchEnded, RoundStarted, SeatTaken
from domain.recorded import RecordedEvent

KINDS: tuple[type[Event], ...] = (SeatTaken, RoundStarted, MatchEnded)
"""Three kinds of event, so three topics, mixed in the log."""


def _event(kind: type[Event], seq: int) -> Event:
    if kind is SeatTaken:
        return SeatTaken(seat=seq % 2, name=f"S{seq}")
    if kind is RoundStarted:
        return RoundStarted(round=seq, dealer=0)
    return MatchEnded(reason="abandoned", winner=None, totals=(0, 0))


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MatchStore]:
    """A SQLite store whose log mixes the three kinds over 12 streams, in 80 appends."""
    rng = random.Random(20)
    store = MatchStore.sqlite(tmp_path_factory.mktemp("topics") / "basra.db")
    seqs = dict.fromkeys((f"m-{n}" for n in range(12)), 0)
    for _ in range(80):
        match_id = rng.choice(sorted(seqs))
        batch = []
        for _ in range(rng.randint(1, 5)):
            seqs[match_id] += 1
            batch.append(
                RecordedEvent(
                    seq=seqs[match_id],
                    at="2026-12-01T08:00:00.000000Z",
                    event=_event(rng.choice(KINDS), seqs[match_id]),
                )
            )
        store.append(match_id, batch)
    yield store
    store.close()


def _library(store: MatchStore, position: int, limit: int, topics: list[str]) -> list[LogEntry]:
    recorder: Any = store.recorder
    rows = recorder.select_notifications(
        start=position, limit=limit, topics=stored_topics(topics), inclusive_of_start=False
    )
    return [
        LogEntry(
            n.id,
            store.streams.match_of(str(n.originator_id)),
            n.originator_version,
            CANONICAL_TOPIC[n.topic],
            n.state,
            n.topic,
        )
        for n in rows
    ]


def test_the_events_table_is_a_rowid_table_numbered_as_the_log(mixed_store: MatchStore) -> None:
    # given the library's recorder of a SQLite store
    recorder: Any = mixed_store.recorder
    name = recorder.events_table_name
    # when its table is read directly
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(f"PRAGMA table_info({name})")
        columns = [row[1] for row in cursor.fetchall()]
        cursor.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,))
        table_sql = cursor.fetchone()[0]
        cursor.execute(
            f"SELECT rowid, originator_id, originator_version FROM {name} ORDER BY rowid"
        )
        rows = [tuple(row) for row in cursor.fetchall()]
        cursor.execute("SELECT tbl_name FROM sqlite_master WHERE name = ?", (TOPIC_INDEX,))
        indexed = cursor.fetchone()[0]
    # then it has the columns the store's query names, a rowid, and the index on it; the
    # library's notification ids are those rowids
    assert columns == ["originator_id", "originator_version", "topic", "state"]
    assert "WITHOUT ROWID" not in table_sql.upper() and indexed == name
    log = recorder.select_notifications(start=0, limit=10_000)
    assert [(n.id, n.originator_id, n.originator_version) for n in log] == rows
    assert [row[0] for row in rows] == list(range(1, len(rows) + 1)) and len(rows) > 100


@settings(max_examples=200, deadline=None)
@given(
    position=st.integers(0, 250),
    limit=st.integers(1, 60),
    topics=st.lists(
        st.sampled_from([TOPICS[k] for k in KINDS]), min_size=2, max_size=3, unique=True
    ),
)
def test_the_stores_read_of_several_topics_is_the_librarys(
    mixed_store: MatchStore, position: int, limit: int, topics: list[str]
) -> None:
    # given any position, page size and two or three of the log's topics
    # when the store reads that page through its own query on the topic index
    mine = mixed_store.log_after(position, limit, topics)
    # then it is exactly the library's page for the same arguments
    assert mine == _library(mixed_store, position, limit, topics)


def test_the_library_does_not_drop_the_index_when_it_opens_the_file_again(tmp_path: Path) -> None:
    # given a store file with the topic index, closed
    db = tmp_path / "basra.db"
    MatchStore.sqlite(db).close()
    # when the library opens it again (it creates its tables if missing)
    store = MatchStore.sqlite(db)
    store.close()
    # then the index is still there, on the topic column
    with sqlite3.connect(db) as raw:
        columns = [row[2] for row in raw.execute(f"PRAGMA index_info({TOPIC_INDEX})")]
    assert columns == ["topic"]
