"""Folded match states: the process's cache first, then the latest snapshot, then the stream.

A load reads only what is newer than the state it starts from, so the common case is one
indexed read that finds nothing. After a commit the new state is cached, and a snapshot is kept
each time the stream passes a multiple of ``snapshot_every`` events. Snapshots and the cache are
caches: a snapshot that cannot be written leaves the commit standing.
"""

from __future__ import annotations

import logging

from app.errors import MatchNotFoundError, StoreFaultError
from app.store.cache import StateCache
from app.store.match_store import MatchStore
from domain.evolve import evolve, fold
from domain.recorded import RecordedEvent
from domain.state import INITIAL_STATE, MatchState

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 50
"""A snapshot is kept each time a stream passes a multiple of this many events."""


class MatchStates:
    """The latest state of each match, folded from as little of its stream as possible."""

    def __init__(self, store: MatchStore, *, snapshot_every: int = SNAPSHOT_EVERY) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        self.cache = StateCache()

    def load(self, match_id: str) -> MatchState:
        """The match's state after its last event (``state.events`` == last seq).

        The common case is a cached state plus one indexed read of anything newer (another
        process may have appended); a cold load starts from the latest snapshot.
        """
        cached = self.cache.get(match_id)
        if cached is not None:
            newer = self.store.read(match_id, after_seq=cached.events)
            if not newer:
                return cached
            state = fold((r.event for r in newer), cached)
            self.cache.put(match_id, state)
            return state
        base = self.store.latest_snapshot(match_id) or INITIAL_STATE
        newer = self.store.read(match_id, after_seq=base.events)
        if not newer and base.setup is None:
            raise MatchNotFoundError(match_id)
        state = fold((r.event for r in newer), base)
        self.cache.put(match_id, state)
        return state

    def remember(self, match_id: str, state: MatchState, previous: int) -> None:
        """Cache ``state`` just stored (the stream was at seq ``previous``); snapshot it when
        the stream has passed a multiple of ``snapshot_every``."""
        self.cache.put(match_id, state)
        every = self.snapshot_every
        if every > 0 and state.events // every > previous // every:
            try:
                self.store.save_snapshot(match_id, state)
            except StoreFaultError as error:  # a snapshot is only a cache: the append stands
                log.warning("snapshot of %s at %d not kept: %s", match_id, state.events, error)

    def advance(self, match_id: str, recorded: RecordedEvent) -> bool:
        """Fold an event another process stored into the cached state when it is the next one
        (the database pushed it: app.store.live); True when the cache moved on. A state not
        cached, or not at the seq before, is left for the next load to read."""
        cached = self.cache.get(match_id)
        if cached is None or cached.events != recorded.seq - 1:
            return False
        self.cache.put(match_id, evolve(cached, recorded.event))
        return True

    def forget(self, match_id: str) -> None:
        """Drop the cached state (another writer moved the stream on)."""
        self.cache.discard(match_id)
