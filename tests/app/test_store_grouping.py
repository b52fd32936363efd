"""Group commit: concurrent appends share a transaction, and each is still kept or refused alone."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from eventsourcing.persistence import InfrastructureFactory, IntegrityError, StoredEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import ConflictError
from app.store.grouping import GroupCommit
from app.store.match_store import MatchStore
from domain.events import MatchEnded
from domain.recorded import RecordedEvent


def row(match_id: str, seq: int) -> StoredEvent:
    """A stored row of ``match_id`` at ``seq`` (the body is not read here)."""
    return StoredEvent(match_id, seq, "basra:test", f"{match_id}/{seq}".encode())


def recorder() -> object:
    """eventsourcing's in-memory application recorder."""
    factory = InfrastructureFactory.construct({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    return factory.application_recorder()


class Gate:
    """An insert that holds its first transaction until ``release``, so that others queue."""

    def __init__(self, insert: object) -> None:
        self.insert = insert
        self.entered = threading.Event()
        self.released = threading.Event()
        self.groups: list[int] = []

    def __call__(self, rows: Sequence[StoredEvent]) -> Sequence[int] | None:
        self.groups.append(len(rows))
        if not self.entered.is_set():
            self.entered.set()
            assert self.released.wait(30)
        return self.insert(rows)  # type: ignore[operator,no-any-return]


def run_threads(targets: list[threading.Thread]) -> None:
    for thread in targets:
        thread.start()
    for thread in targets:
        thread.join(60)
        assert not thread.is_alive()


def test_commands_arriving_during_a_commit_are_committed_together_in_the_next_one() -> None:
    # given a commit under way (held open) and eight commands arriving meanwhile
    store = recorder()
    gate = Gate(store.insert_events)  # type: ignore[attr-defined]
    grouped = GroupCommit(gate)
    results: dict[str, list[int]] = {}

    def append(match_id: str) -> None:
        results[match_id] = grouped.append([row(match_id, 1), row(match_id, 2)])

    first = threading.Thread(target=append, args=("m-first",))
    first.start()
    assert gate.entered.wait(30)
    others = [threading.Thread(target=append, args=(f"m-{k}",)) for k in range(8)]
    for thread in others:
        thread.start()
    while len(grouped._queue) < 8:  # every other command is waiting
        threading.Event().wait(0.01)
    # when the first commit ends
    gate.released.set()
    first.join(30)
    for thread in others:
        thread.join(30)
    # then the eight were one transaction of 16 rows, and each got its own two positions
    assert gate.groups == [2, 16]
    assert grouped.transactions == 2
    log = store.select_notifications(start=1, limit=100)  # type: ignore[attr-defined]
    by_position = {n.id: (n.originator_id, n.originator_version) for n in log}
    for match_id, positions in results.items():
        assert [by_position[p] for p in positions] == [(match_id, 1), (match_id, 2)]


def test_a_stale_command_in_a_group_is_refused_alone_and_the_others_are_kept() -> None:
    # given match m-0 already at seq 1, and a group holding a stale append at seq 1 of m-0
    store = recorder()
    store.insert_events([row("m-0", 1)])  # type: ignore[attr-defined]
    gate = Gate(store.insert_events)  # type: ignore[attr-defined]
    grouped = GroupCommit(gate)
    outcomes: dict[str, object] = {}

    def append(match_id: str, seq: int) -> None:
        try:
            outcomes[f"{match_id}@{seq}"] = grouped.append([row(match_id, seq)])
        except IntegrityError as error:
            outcomes[f"{match_id}@{seq}"] = error

    first = threading.Thread(target=append, args=("m-first", 1))
    first.start()
    assert gate.entered.wait(30)
    late = [
        threading.Thread(target=append, args=args)
        for args in (("m-1", 1), ("m-0", 1), ("m-2", 1), ("m-0", 2))
    ]
    for thread in late:
        thread.start()
    while len(grouped._queue) < 4:
        threading.Event().wait(0.01)
    # when the group commits
    gate.released.set()
    first.join(30)
    for thread in late:
        thread.join(30)
    # then only the stale append is refused; every other one is stored once
    assert isinstance(outcomes.pop("m-0@1"), IntegrityError)
    assert all(isinstance(v, list) and len(v) == 1 for v in outcomes.values()), outcomes
    for match_id, seqs in (("m-0", [1, 2]), ("m-1", [1]), ("m-2", [1]), ("m-first", [1])):
        stored = store.select_events(match_id)  # type: ignore[attr-defined]
        assert [e.originator_version for e in stored] == seqs


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 3), st.integers(1, 2)), min_size=1, max_size=24
    )
)
def test_whatever_races_every_acknowledged_append_is_stored_and_every_refused_one_is_not(
    appends: list[tuple[int, int, int]],
) -> None:
    # given appends (match, first seq, how many events) racing on a few matches, some stale
    store = recorder()
    grouped = GroupCommit(store.insert_events)  # type: ignore[attr-defined]
    kept: list[tuple[str, list[int], list[int]]] = []
    lock = threading.Lock()

    def append(k: int, first: int, count: int) -> None:
        match_id = f"m-{k}"
        seqs = list(range(first, first + count))
        try:
            positions = grouped.append([row(match_id, s) for s in seqs])
        except IntegrityError:
            return
        with lock:
            kept.append((match_id, seqs, positions))

    # when they all run at once
    run_threads([threading.Thread(target=append, args=a) for a in appends])
    # then the stored rows are exactly the acknowledged ones, each at the position it was told
    log = store.select_notifications(start=1, limit=1000)  # type: ignore[attr-defined]
    stored = {(n.originator_id, n.originator_version): n.id for n in log}
    told = {(m, s): p for m, seqs, ps in kept for s, p in zip(seqs, ps, strict=True)}
    assert stored == told
    # and no two acknowledged appends hold the same seq of one match
    assert len(told) == sum(len(seqs) for _, seqs, _ in kept)


def event_at(seq: int) -> RecordedEvent:
    """A recorded event at ``seq`` (its kind does not matter to the store)."""
    return RecordedEvent(
        seq=seq,
        at="2026-12-01T08:00:00.000000Z",
        event=MatchEnded(reason="abandoned", winner=None, totals=(0, 0)),
    )


@pytest.mark.parametrize("threads", [16])
def test_concurrent_appends_on_the_store_are_all_stored_and_racers_on_one_match_lose_alone(
    store: MatchStore, threads: int
) -> None:
    # given threads appending to matches of their own, and two threads racing on one match
    errors: list[BaseException] = []
    conflicts: list[str] = []

    def own(k: int) -> None:
        try:
            for seq in range(1, 11):
                store.append(f"own-{k}", [event_at(seq)])
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    def racer(name: str) -> None:
        try:
            store.append("shared", [event_at(1), event_at(2)])
        except ConflictError:
            conflicts.append(name)

    # when they all run at once
    run_threads(
        [threading.Thread(target=own, args=(k,)) for k in range(threads)]
        + [threading.Thread(target=racer, args=(n,)) for n in ("a", "b")]
    )
    # then every own append is stored, in order, and exactly one racer lost
    assert errors == []
    for k in range(threads):
        assert [r.seq for r in store.read(f"own-{k}")] == list(range(1, 11))
    assert len(conflicts) == 1
    assert [r.seq for r in store.read("shared")] == [1, 2]
    # and the global log holds each event once, in increasing positions
    log = store.log_after(0, 10_000)
    assert len(log) == threads * 10 + 2
    assert len({(e.match_id, e.seq) for e in log}) == len(log)
    assert [e.position for e in log] == sorted(e.position for e in log)


SCRIPT = textwrap.dedent(
    """
    import sys, tempfile, threading
    from pathlib import Path
    sys.setswitchinterval(1e-6)
    from eventsourcing.persistence import IntegrityError, StoredEvent
    from app.store.match_store import MatchStore

    store = MatchStore.sqlite(Path(tempfile.mkdtemp()) / "g.db", "NORMAL")
    grouped = store.grouped
    lost = []

    def run(k):
        for seq in range(1, 41):
            for match in (f"m-{k}", "shared"):
                try:
                    grouped.append([StoredEvent(match, seq, "basra:t", b"{}")])
                except IntegrityError:
                    if match != "shared":
                        lost.append((k, seq))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = store.recorder.select_notifications(start=1, limit=10000)
    print(len(lost), len(rows), grouped.transactions)
    store.close()
    """
)


def test_group_commit_from_six_threads_in_a_fresh_interpreter_loses_nothing() -> None:
    # given six threads with a 1 µs switch interval appending to their own and a shared match
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    # then no own append was refused, and the log holds 6×40 own rows plus the 40 shared seqs
    assert result.returncode == 0, result.stderr[-2000:]
    lost, rows, _transactions = (int(x) for x in result.stdout.split())
    assert lost == 0
    assert rows == 6 * 40 + 40


def test_read_models_kept_up_during_a_concurrent_mixed_load_equal_a_rebuild(
    store: MatchStore, other_store: MatchStore, tmp_path: Path
) -> None:
    # given two services (as two processes) and read models catching up while they work
    from app.errors import ConflictError as Conflict
    from app.readmodels.models import ReadModels
    from app.service import MatchService

    services = [MatchService(store), MatchService(other_store)]
    kept = ReadModels(tmp_path / "kept.sqlite3", store, batch_size=11)
    stop = threading.Event()
    failures: list[BaseException] = []

    def follow() -> None:
        while not stop.is_set():
            kept.catch_up()

    def work(k: int) -> None:
        service = services[k % 2]
        try:
            for n in range(3):
                match_id = service.create_match(
                    ruleset="classic", seats=2, bots=(1,), match_id=f"mix-{k}-{n}"
                ).match_id
                service.take_seat(match_id, 0, f"p{k}")
                for _ in range(2 + n):
                    state = service.load(match_id)
                    if state.status != "playing":
                        break
                    # played through the other service, whose cache may lag: a stale play is
                    # refused, never applied twice
                    with contextlib.suppress(Conflict):
                        services[(k + 1) % 2].play_card(match_id, 0, state.hands[0][0])
                if n == 2:
                    service.leave(match_id, 0)
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)

    # when six threads create, seat, play (through the other service) and leave at once
    follower = threading.Thread(target=follow)
    follower.start()
    run_threads([threading.Thread(target=work, args=(k,)) for k in range(6)])
    stop.set()
    follower.join(60)
    kept.catch_up()
    # then the rows kept up meanwhile equal a rebuild from the whole log
    assert failures == []
    rebuilt = ReadModels(tmp_path / "rebuilt.sqlite3", store)
    rebuilt.rebuild()
    assert kept.position() == rebuilt.position() == store.max_position()
    assert kept.table_rows() == rebuilt.table_rows()
    assert len(rebuilt.matches()) == 18
