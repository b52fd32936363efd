"""A feed's news of another process's append comes with the events themselves on PostgreSQL (the
NOTIFY carries the rows), so the feed need not read the store for them."""

from __future__ import annotations

import asyncio

import pytest

from app.runtime.broker import EventBroker
from app.service import MatchService
from app.store.match_store import MatchStore
from domain.events import MatchEnded
from domain.recorded import RecordedEvent


def event_at(seq: int) -> RecordedEvent:
    """A recorded event at ``seq`` (its kind does not matter to the broker)."""
    return RecordedEvent(
        seq=seq,
        at="2026-12-05T08:00:00.000000Z",
        event=MatchEnded(reason="abandoned", winner=None, totals=(0, 0)),
    )


def test_another_process_append_reaches_a_watching_feed_with_its_events(
    store: MatchStore, other_store: MatchStore
) -> None:
    if store.kind != "postgres":
        pytest.skip("only PostgreSQL pushes; other stores are polled and wake feeds to read")
    service = MatchService(store)

    async def scenario() -> list[list[RecordedEvent]]:
        # given this process's broker following the database, and a feed watching a match
        broker = EventBroker(service.notifications_after, 0.5, store.listen)

        async def offload(func: object, *args: object) -> object:
            return await asyncio.to_thread(func, *args)  # type: ignore[arg-type]

        await broker.start(offload)
        sub = broker.subscribe("m-elsewhere")
        try:
            # when another process appends two events to it
            await asyncio.to_thread(other_store.append, "m-elsewhere", [event_at(1), event_at(2)])
            batches: list[list[RecordedEvent]] = []
            while sum(len(b) for b in batches) < 2:
                got = await sub.next(30)
                assert got is not None, "no news of the append within 30 s"
                batches.extend(got)
            return batches
        finally:
            sub.close()
            await broker.stop()

    batches = asyncio.run(scenario())
    # then the feed was handed the events themselves, in order: no empty "read the store" wake
    assert all(batch for batch in batches)
    assert [e for batch in batches for e in batch] == [event_at(1), event_at(2)]
