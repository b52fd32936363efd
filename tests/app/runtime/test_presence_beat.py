"""The presence rows (app/runtime/presence.py): one writer per process puts every row that
changed while it wrote in its next transaction, and the heartbeat writes again only the rows that
differ from the feeds open here, never every row because some write is under way. Each presence
transaction is a flush on SQLite, queued with the plays."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.runtime.presence import Presence
from app.store.match_store import MatchStore

EXPIRY = 30.0
SEATS = 200


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    opened = MatchStore.sqlite(tmp_path / "presence.db")
    yield opened
    opened.close()


class Calls:
    """Runs store calls on a thread, counts the rows upserted and the presence transactions,
    and can hold back the transaction that writes one seat's row."""

    def __init__(self) -> None:
        self.holds = 0
        self.transactions = 0
        self.held_back: tuple[str, int] | None = None
        self.let_go = asyncio.Event()

    async def __call__(self, func: Callable[..., Any], *args: Any) -> Any:
        name = getattr(func, "__name__", "")
        if name == "presence_write":
            _process, holds, releases, _beat = args
            self.holds += len(holds)
            self.transactions += 1
            if self.held_back in holds or self.held_back in releases:
                await self.let_go.wait()  # this write is under way when the heartbeat comes
        return await asyncio.to_thread(func, *args)


def rows_of(store: MatchStore, presence: Presence) -> set[tuple[str, int]]:
    """The rows the store holds for ``presence``'s process (a heartbeat's own read)."""
    now = time.time()
    return set(store.backend.presence_beat(presence.process, now, now - EXPIRY))


async def settled(presence: Presence) -> None:
    """Wait until no row write of ``presence`` is under way (a condition, not a timed wait)."""
    deadline = time.monotonic() + 30
    while presence._writing or presence._pending:
        assert time.monotonic() < deadline, "the row writes never ended"
        await asyncio.sleep(0.01)


def opened_seats(presence: Presence, count: int) -> list[tuple[str, int]]:
    """Open one seat feed on each of ``count`` matches."""
    keys = [(f"m{n}", n % 2) for n in range(count)]
    for match_id, seat in keys:
        presence.feed_opened(match_id, seat)
    return keys


def test_a_heartbeat_during_a_write_rewrites_no_row(store: MatchStore) -> None:
    async def run() -> None:
        # Given 200 seat feeds open here, their rows written
        calls = Calls()
        presence = Presence(store.backend, calls, lambda _m: None, expiry=EXPIRY)
        keys = opened_seats(presence, SEATS)
        await settled(presence)
        assert calls.holds == SEATS and rows_of(store, presence) == set(keys)
        # and one more feed whose row is being written when the heartbeat comes
        calls.held_back = ("late", 1)
        presence.feed_opened("late", 1)
        await asyncio.sleep(0.05)
        assert presence._writing

        # When the heartbeat runs
        before = calls.holds
        await presence._beat()
        # (a write the heartbeat starts is under way as soon as it returns)
        assert set(presence._writing) == {("late", 1)}
        await asyncio.sleep(0.05)

        # Then it wrote no row again: every settled row matched, the late one is its writer's
        # (until 2026-12-06 the heartbeat wrote the other 200 rows again, one transaction each)
        assert calls.holds == before
        # And once that write ends, the store holds every row
        calls.let_go.set()
        await settled(presence)
        assert rows_of(store, presence) == {*keys, ("late", 1)}

    asyncio.run(run())


def test_a_heartbeat_writes_again_the_rows_the_store_lost_and_only_those(
    store: MatchStore,
) -> None:
    async def run() -> None:
        # Given 200 seat feeds open here, their rows written
        calls = Calls()
        presence = Presence(store.backend, calls, lambda _m: None, expiry=EXPIRY)
        keys = opened_seats(presence, SEATS)
        await settled(presence)
        # and 3 of the rows gone from the store behind this process's back (swept)
        lost = keys[:3]
        for match_id, seat in lost:
            store.backend.presence_write(presence.process, [], [(match_id, seat)], 0.0)
        before = calls.holds

        # When the heartbeat runs
        await presence._beat()
        await settled(presence)

        # Then it wrote those 3 rows again, and no other
        assert calls.holds - before == 3
        assert rows_of(store, presence) == set(keys)

    asyncio.run(run())


def test_a_heartbeat_deletes_a_row_whose_delete_failed(store: MatchStore) -> None:
    async def run() -> None:
        # Given 10 seat feeds open here, their rows written
        calls = Calls()
        presence = Presence(store.backend, calls, lambda _m: None, expiry=EXPIRY)
        keys = opened_seats(presence, 10)
        await settled(presence)
        # and one of them closed while the store refused the delete (the row is left over)
        real_write = store.backend.presence_write

        def refuse(*_args: Any) -> None:
            raise OSError("disk full")

        store.backend.presence_write = refuse  # type: ignore[method-assign]
        presence.feed_closed(*keys[0])
        await settled(presence)
        store.backend.presence_write = real_write  # type: ignore[method-assign]
        assert keys[0] in rows_of(store, presence)

        # When the heartbeat runs
        await presence._beat()
        await settled(presence)

        # Then the left-over row is deleted and every other row kept
        assert rows_of(store, presence) == set(keys[1:])

    asyncio.run(run())


def test_seats_opening_and_closing_at_once_share_a_few_transactions(store: MatchStore) -> None:
    async def run() -> None:
        # Given a process with no seat feed open, whose first presence write is held back
        calls = Calls()
        presence = Presence(store.backend, calls, lambda _m: None, expiry=EXPIRY)
        calls.held_back = ("first", 0)
        presence.feed_opened("first", 0)
        await asyncio.sleep(0.05)
        assert calls.transactions == 1

        # When 200 seat feeds open while that write is under way, and 50 of them close again
        keys = opened_seats(presence, SEATS)
        for key in keys[:50]:
            presence.feed_closed(*key)
        calls.let_go.set()
        await settled(presence)

        # Then they were written in one more transaction, not one per seat (until 2026-12-06
        # each opening and each closing was a transaction of its own: 251 here)
        assert calls.transactions == 2
        # And the store holds exactly the seats still open
        assert rows_of(store, presence) == {("first", 0), *keys[50:]}

    asyncio.run(run())


def test_a_seat_that_closes_while_its_row_is_written_ends_with_no_row(store: MatchStore) -> None:
    async def run() -> None:
        # Given a seat feed whose row is being written
        calls = Calls()
        presence = Presence(store.backend, calls, lambda _m: None, expiry=EXPIRY)
        calls.held_back = ("m", 1)
        presence.feed_opened("m", 1)
        await asyncio.sleep(0.05)
        assert presence._writing == {("m", 1)}

        # When the feed closes before that write ends
        presence.feed_closed("m", 1)
        calls.held_back = None
        calls.let_go.set()
        await settled(presence)

        # Then the row written is deleted by the writer's next transaction
        assert rows_of(store, presence) == set()
        assert calls.transactions == 2

    asyncio.run(run())
