"""Refused commands and presence kept for support: durable across handles (another process),
on every kind of store, and bounded under a flood with the dropped ones counted."""

from __future__ import annotations

import threading

from app.service.desk_records import DeskRecords
from app.store.desk_store import DeskStore
from app.store.match_store import MatchStore
from domain.desk import REFUSED_PER_PRINCIPAL, CommandRefused, FeedConnected, FeedDropped


def _refused(n: int, principal: str, match_id: str = "m-flood") -> CommandRefused:
    return CommandRefused(
        at_us=1_700_000_000_000_000 + n,
        match_id=match_id,
        principal=principal,
        seat=0,
        request_id=f"req-{n:06d}",
        route="/matches/{match_id:str}/plays",
        code="not_your_turn",
        seq=5,
        turn=1,
    )


def test_one_principal_flooding_keeps_its_oldest_200_and_counts_the_rest(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given one seat sending 250 refused plays
    records = DeskRecords(DeskStore(store))
    kept = [records.record_refusal(_refused(n, "seat:0/token:t1")) for n in range(250)]
    # and another principal refused once after the flood
    other = records.record_refusal(_refused(999, "seat:1/token:t2"))
    # then read through another handle, the oldest 200 of the first and the other's one are kept
    seen = DeskRecords(DeskStore(other_store)).refused("m-flood")
    assert kept == [True] * REFUSED_PER_PRINCIPAL + [False] * 50 and other
    assert [r.request_id for r in seen.records] == [
        *(f"req-{n:06d}" for n in range(200)),
        "req-000999",
    ]
    assert seen.dropped == 50


def test_a_match_keeps_at_most_its_bound_from_many_principals_racing(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given a bound of 30 per match and 12 per principal, and four writers on two handles
    handles = [
        DeskRecords(DeskStore(s), per_match=30, per_principal=12) for s in (store, other_store)
    ]

    def flood(writer: int) -> None:
        for n in range(15):
            handles[writer % 2].record_refusal(_refused(writer * 100 + n, f"seat:{writer}"))

    threads = [threading.Thread(target=flood, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # then exactly 30 are kept, none above 12 for a principal, and the other 30 are counted
    seen = handles[0].refused("m-flood")
    per = {
        p: sum(1 for r in seen.records if r.principal == p)
        for p in {r.principal for r in seen.records}
    }
    assert len(seen.records) == 30 and max(per.values()) <= 12
    assert seen.dropped == 60 - 30


def test_presence_is_kept_in_order_for_another_handle(
    store: MatchStore, other_store: MatchStore
) -> None:
    records = DeskRecords(DeskStore(store))
    records.record_presence(FeedConnected(10, "m-p", 0, "seat:0/player:p-1"))
    records.record_presence(FeedDropped(25, "m-p", 0, "seat:0/player:p-1"))
    seen = DeskRecords(DeskStore(other_store)).presence("m-p")
    assert [(type(r).__name__, r.at_us) for r in seen.records] == [
        ("FeedConnected", 10),
        ("FeedDropped", 25),
    ]
    assert seen.dropped == 0
