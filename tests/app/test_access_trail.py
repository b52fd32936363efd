"""The support access trail on every kind of store: each record is appended after the stream's
last row, read alone (never the whole trail), and the trail reads back whole and in order."""

from __future__ import annotations

from app.service.access import AccessService
from app.store.access_store import AccessStore
from app.store.match_store import MatchStore


def test_a_trail_grows_by_its_last_seq_on_every_store(store: MatchStore) -> None:
    # given an agent's empty trail
    access = AccessService(store)
    trail = AccessStore(store)
    assert trail.last_seq("support-access:nadia") == 0

    # when the agent opens 30 pages
    for k in range(30):
        access.record_access("nadia", f"m-{k}", "investigation", f"req-{k:03d}")

    # then the last seq is 30 and the log holds all 30, newest first, and no one else's
    assert trail.last_seq("support-access:nadia") == 30
    log = access.access_log("nadia")
    assert [r.request_id for r in log][:3] == ["req-029", "req-028", "req-027"]
    assert len(log) == 30 and access.access_log("omar") == []
