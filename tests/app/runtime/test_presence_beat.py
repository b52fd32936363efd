"""The presence heartbeat (app/runtime/presence.py) writes again only the rows that differ from
the feeds open here, never every row because some write is under way: each row is a transaction
of its own, a flush on SQLite, queued with the plays."""

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
    """Runs store calls on a thread, counts the row upserts, and can hold back one seat's."""

    def __init__(self) -> None:
        self.holds = 0
        self.held_back: tuple[str, int] | None = None
        self.let_go = asyncio.Event()

    async def __call__(self, func: Callable[..., Any], *args: Any) -> Any:
        name = getattr(func, "__name__", "")
        if name == "presence_hold":
            self.holds += 1
            if self.held_back == (args[1], args[2]):
                await self.let_go.wait()  # this write is under way when the heartbeat comes
        return await asyncio.to_thread(func, *args)


def rows_of(store: MatchStore, presence: Presence) -> set[tuple[str, int]]:
    """The rows the store holds for ``presence``'s process (a heartbeat's own read)."""
    now = time.time()
    return set(store.backend.presence_beat(presence.process, now, now - EXPIRY))


async def settled(presence: Presence) -> None:
    """Wait until no row write of ``presence`` is under way (a condition, not a timed wait)."""
    deadline = time.monotonic() + 30
    while presence._writing:
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
            store.backend.presence_release(presence.process, match_id, seat)
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
        real_release = store.backend.presence_release

        def refuse(*_args: Any) -> None:
            raise OSError("disk full")

        store.backend.presence_release = refuse  # type: ignore[method-assign]
        presence.feed_closed(*keys[0])
        await settled(presence)
        store.backend.presence_release = real_release  # type: ignore[method-assign]
        assert keys[0] in rows_of(store, presence)

        # When the heartbeat runs
        await presence._beat()
        await settled(presence)

        # Then the left-over row is deleted and every other row kept
        assert rows_of(store, presence) == set(keys[1:])

    asyncio.run(run())
