"""The in-memory store, for tests: eventsourcing's POPO recorders, gone when the process ends.

Every handle on one in-memory store (``reopen``, as another process would have) shares its
recorders: the events, the snapshots, the side tables and the stream numbers. It is always in
the one stored form, has no lock and nothing to migrate.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    StoredEvent,
)
from eventsourcing.popo import POPOAggregateRecorder

from app.config import StoreConfig
from app.store.backend import Backend


class MemorySnapshots(POPOAggregateRecorder):
    """eventsourcing's in-memory recorder, remembering which streams it holds (so that
    dropping them can say how many there were, through the recorder's public reads)."""

    def __init__(self) -> None:
        super().__init__()
        self._keys: set[str] = set()

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Store as the library does; note the streams."""
        ids = super().insert_events(stored_events, **kwargs)
        self._keys.update(str(e.originator_id) for e in stored_events)
        return ids

    def streams(self) -> list[str]:
        """The streams that have snapshots."""
        return sorted(self._keys)


class _Shared:
    """What every handle on one in-memory store shares."""

    def __init__(self, snapshots: AggregateRecorder) -> None:
        self.lock = threading.Lock()
        self.snapshots = snapshots
        self.sides: dict[str, AggregateRecorder] = {}
        self.versions: weakref.WeakKeyDictionary[AggregateRecorder, dict[str, int]] = (
            weakref.WeakKeyDictionary()
        )
        self.numbers: dict[str, int] = {}
        self.matches: dict[int, str] = {}
        self.presence: dict[tuple[str, int, str], float] = {}  # (match, seat, process) -> beat


class MemoryBackend(Backend):
    """eventsourcing's in-memory recorders (PERSISTENCE_MODULE ``eventsourcing.popo``)."""

    kind = "memory"
    never_waits = True

    def __init__(
        self, factory: InfrastructureFactory[Any], events: ApplicationRecorder, shared: _Shared
    ) -> None:
        self.config = StoreConfig(kind="memory")
        self.factory = factory
        self.events = events
        self._shared = shared

    @classmethod
    def open(cls, config: StoreConfig, *, migrating: bool = False) -> MemoryBackend:
        """A new, empty in-memory store."""
        factory = InfrastructureFactory.construct({"PERSISTENCE_MODULE": "eventsourcing.popo"})
        return cls(factory, factory.application_recorder(), _Shared(MemorySnapshots()))

    def reopen(self) -> MemoryBackend:
        """Another handle sharing every recorder of this one."""
        return MemoryBackend(self.factory, self.events, self._shared)

    @property
    def snapshots(self) -> AggregateRecorder:
        """The snapshots' recorder shared by every handle."""
        return self._shared.snapshots

    def drop_snapshots(self) -> int:
        """Count the snapshots through the recorder's own reads, then give every handle a new,
        empty recorder (the library's in-memory recorder deletes nothing)."""
        recorder = self._shared.snapshots
        assert isinstance(recorder, MemorySnapshots)
        count = sum(len(recorder.select_events(key)) for key in recorder.streams())
        self._shared.snapshots = MemorySnapshots()
        return count

    def side_recorder(self, purpose: str) -> AggregateRecorder:
        """One recorder per purpose for every handle, as handles on one file share its tables."""
        with self._shared.lock:
            recorder = self._shared.sides.get(purpose)
            if recorder is None:
                recorder = self._shared.sides[purpose] = self.factory.aggregate_recorder(purpose)
            return recorder

    def side_rows(self, recorder: AggregateRecorder, ids: list[str]) -> list[StoredEvent]:
        """Each stream read through the recorder."""
        return [row for pid in ids for row in recorder.select_events(pid)]

    def side_versions(self, recorder: AggregateRecorder) -> dict[str, int]:
        """The versions noted as rows were appended (the recorder cannot list its streams)."""
        with self._shared.lock:
            return dict(self._shared.versions.get(recorder, {}))

    def side_appended(self, recorder: AggregateRecorder, rows: Sequence[StoredEvent]) -> None:
        """Note each stream's last seq."""
        with self._shared.lock:
            versions = self._shared.versions.setdefault(recorder, {})
            for row in rows:
                key = str(row.originator_id)
                versions[key] = max(row.originator_version, versions.get(key, 0))

    def stream_number(self, match_id: str) -> int | None:
        """The match's number, if it has one."""
        with self._shared.lock:
            return self._shared.numbers.get(match_id)

    def stream_matches(self, numbers: Sequence[int]) -> dict[int, str]:
        """The match ids of these numbers."""
        with self._shared.lock:
            matches = self._shared.matches
            return {n: matches[n] for n in numbers if n in matches}

    def assign_stream(self, match_id: str) -> int:
        """The match's number, given now if it has none."""
        with self._shared.lock:
            number = self._shared.numbers.get(match_id)
            if number is None:
                number = len(self._shared.matches) + 1
                self._shared.numbers[match_id] = number
                self._shared.matches[number] = match_id
            return number

    # -- presence ---------------------------------------------------------------------------

    def presence_write(
        self,
        process: str,
        holds: Sequence[tuple[str, int]],
        releases: Sequence[tuple[str, int]],
        beat: float,
    ) -> None:
        """The rows written or refreshed, and deleted, under one lock."""
        with self._shared.lock:
            for match_id, seat in holds:
                self._shared.presence[(match_id, seat, process)] = beat
            for match_id, seat in releases:
                self._shared.presence.pop((match_id, seat, process), None)

    def presence_beat(self, process: str, beat: float, gone_before: float) -> list[tuple[str, int]]:
        """Refresh the process's rows, drop the rows gone; the process's rows."""
        with self._shared.lock:
            rows = self._shared.presence
            mine = [key for key in rows if key[2] == process]
            for key in mine:
                rows[key] = beat
            for key in [key for key, at in rows.items() if at < gone_before]:
                del rows[key]
            return [(match_id, seat) for match_id, seat, _ in mine]

    def presence_release_all(self, process: str) -> None:
        """Every row of the process deleted."""
        with self._shared.lock:
            rows = self._shared.presence
            for key in [key for key in rows if key[2] == process]:
                del rows[key]

    def presence_elsewhere(self, process: str, live_since: float) -> bool:
        """Whether another process has a live row."""
        with self._shared.lock:
            rows = self._shared.presence.items()
            return any(key[2] != process and beat >= live_since for key, beat in rows)

    def presence_seats(
        self, match_ids: Sequence[str], process: str, live_since: float
    ) -> dict[str, frozenset[int]]:
        """The live rows of other processes."""
        wanted = set(match_ids)
        held: dict[str, set[int]] = {}
        with self._shared.lock:
            for (match_id, seat, holder), beat in self._shared.presence.items():
                if match_id in wanted and holder != process and beat >= live_since:
                    held.setdefault(match_id, set()).add(seat)
        return {match_id: frozenset(seats) for match_id, seats in held.items()}
