"""The log pushed by the database (PostgreSQL LISTEN/NOTIFY): every entry, once, in log order."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest
from eventsourcing.persistence import StoredEvent
from hypothesis import given
from hypothesis import strategies as st

from app.config import PostgresSettings, StoreConfig
from app.store.live import (
    PAYLOAD_LIMIT,
    POSITION_BYTES,
    LogListener,
    notify_payload,
    rows_of_payload,
)
from app.store.match_store import MatchStore
from app.store.postgres import drop_schema
from domain.events import MatchEnded
from domain.recorded import RecordedEvent


def event_at(seq: int) -> RecordedEvent:
    """A recorded event at ``seq`` (its kind does not matter to the store)."""
    return RecordedEvent(
        seq=seq,
        at="2026-12-01T08:00:00.000000Z",
        event=MatchEnded(reason="abandoned", winner=None, totals=(0, 0)),
    )


def wait_until(condition: object, seconds: float = 30.0) -> None:
    """Wait for ``condition()`` to hold (a condition, not a timed assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


@contextmanager
def listening(store: MatchStore, on_entry: Any) -> Iterator[LogListener]:
    """A started listener on ``store`` after its last position, once it has read the log (as
    it does on connecting); stopped afterwards."""
    listener = store.listen(store.max_position(), on_entry)
    assert isinstance(listener, LogListener)
    listener.start()
    try:
        wait_until(lambda: listener.reads == 1)
        yield listener
    finally:
        listener.stop()


def test_a_listener_is_pushed_every_entry_appended_by_another_handle_once_and_in_order(
    store: MatchStore, other_store: MatchStore
) -> None:
    if store.kind != "postgres":
        # then stores that cannot push say so: the broker polls them instead
        assert store.listen(0, lambda *_: None) is None
        return
    # given one entry already in the log, and a listener started after it
    store.append("before", [event_at(1)])
    seen: list[tuple[int, str, int]] = []
    events: list[RecordedEvent] = []

    def on_entry(position: int, match_id: str, seq: int, load: Any) -> None:
        seen.append((position, match_id, seq))
        events.append(load())

    listener = store.listen(store.max_position(), on_entry)
    assert listener is not None
    listener.start()
    try:
        # when eight threads of another handle append to their own matches at once
        def append(k: int) -> None:
            for seq in range(1, 6):
                other_store.append(f"m-{k}", [event_at(seq)])

        threads = [threading.Thread(target=append, args=(k,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        # then the listener is handed exactly the log after where it started, in its order
        wait_until(lambda: len(seen) >= 40)
        log = store.log_after(1, 1000)
        assert seen == [(e.position, e.match_id, e.seq) for e in log]
        assert [p for p, _, _ in seen] == sorted({p for p, _, _ in seen})
        # and each entry's event is the one appended, as the database pushed it
        assert events == [store.to_recorded(e) for e in log]
        assert all(event == event_at(event.seq) for event in events)
    finally:
        listener.stop()


def test_the_database_pushes_the_rows_so_the_listener_never_reads_the_log_for_them(
    store: MatchStore, other_store: MatchStore
) -> None:
    if store.kind != "postgres":
        pytest.skip("only PostgreSQL pushes")
    # given a listener that has read the log once, as it does when it connects
    seen: list[RecordedEvent] = []
    with listening(store, lambda *entry: seen.append(entry[3]())) as listener:
        # when another handle appends twenty events, one or three at a time
        for seq in range(1, 11):
            other_store.append("one-by-one", [event_at(seq)])
        other_store.append("three", [event_at(1), event_at(2), event_at(3)])
        # then every event came with its notification: the log was not read again
        wait_until(lambda: len(seen) == 13)
        assert [e.seq for e in seen] == [*range(1, 11), 1, 2, 3]
        assert listener.reads == 1


def test_an_append_too_big_for_a_notification_is_read_from_the_log_in_its_place(
    store: MatchStore, other_store: MatchStore
) -> None:
    if store.kind != "postgres":
        pytest.skip("only PostgreSQL pushes")
    # given a listener, and an append of 300 events (far past a notification's 8,000 bytes)
    big = [event_at(seq) for seq in range(1, 301)]
    assert notify_payload([StoredEvent("x", e.seq, "E", b"x" * 30) for e in big]) == "", (
        "the test's append must be too big for a payload"
    )
    seen: list[tuple[int, str, int]] = []
    with listening(store, lambda *entry: seen.append(entry[:3])) as listener:
        # when another handle appends them, then one small event after
        other_store.append("big", big)
        other_store.append("small", [event_at(1)])
        # then the listener read the log for the big one, and was handed each row once, in order
        wait_until(lambda: len(seen) == 301)
        log = store.log_after(0, 1000)
        assert seen == [(e.position, e.match_id, e.seq) for e in log]
        assert listener.reads == 2


def test_rows_of_another_schema_on_the_same_channel_are_passed_over(
    store: MatchStore, postgres_settings: PostgresSettings
) -> None:
    if store.kind != "postgres":
        pytest.skip("only PostgreSQL pushes")
    # given a listener on this schema, and a store of another schema in the same database
    settings = msgspec.structs.replace(postgres_settings, schema=postgres_settings.schema + "_b")
    elsewhere = MatchStore.open(StoreConfig(kind="postgres", postgres=settings))
    seen: list[tuple[int, str, int]] = []
    try:
        with listening(store, lambda *entry: seen.append(entry[:3])) as listener:
            # when the other schema's store appends, then this one does
            elsewhere.append("theirs", [event_at(1), event_at(2)])
            store.append("ours", [event_at(1)])
            # then only this schema's row is handed on, without reading the log for theirs
            wait_until(lambda: len(seen) == 1)
            time.sleep(0.3)  # (theirs came first: anything of theirs would be here by now)
            assert [(match_id, seq) for _, match_id, seq in seen] == [("ours", 1)]
            assert listener.reads == 1
    finally:
        elsewhere.close()
        drop_schema(settings)


@given(
    rows=st.lists(
        st.tuples(
            st.text(st.characters(codec="utf-8", exclude_characters="\t\n"), max_size=40),
            st.integers(1, 10**6),
            st.sampled_from(["P", "E", "C", "basra:card_played"]),
            st.binary(max_size=300),
        ),
        max_size=60,
    ),
    first=st.integers(1, 10**15),
)
def test_a_payload_gives_back_the_rows_it_was_written_from_or_nothing(
    rows: list[tuple[str, int, str, bytes]], first: int
) -> None:
    # given the rows of an append, written as a payload
    stored = [StoredEvent(stream, seq, topic, state) for stream, seq, topic, state in rows]
    payload = notify_payload(stored)
    if not payload:
        # then an empty one says "read the log": there were no rows, or too many bytes
        lines = [
            f"{stream}\t{seq}\t{topic}\t".encode() + base64.b64encode(state)
            for stream, seq, topic, state in rows
        ]
        assert not rows or sum(len(line) + 1 + POSITION_BYTES for line in lines) > PAYLOAD_LIMIT
        return
    # when the database puts the schema and the positions in front
    positions = list(range(first, first + len(rows)))
    sent = "basra_x\t" + ",".join(map(str, positions)) + "\n" + payload
    # then the notification fits, and gives back every row at its position, for this schema alone
    assert len(sent.encode()) < 8000
    assert rows_of_payload(sent, "basra_x") == [
        (p, stream, seq, topic, state)
        for p, (stream, seq, topic, state) in zip(positions, rows, strict=True)
    ]
    assert rows_of_payload(sent, "basra_y") == []
    assert rows_of_payload("", "basra_x") is None
