"""The log pushed by the database (PostgreSQL LISTEN/NOTIFY): every entry, once, in log order."""

from __future__ import annotations

import threading
import time

from app.store.match_store import MatchStore
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
    listener = store.listen(store.max_position(), lambda *entry: seen.append(entry))
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
    finally:
        listener.stop()
