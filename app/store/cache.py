"""A small thread-safe LRU of folded match states, newest position wins."""

from __future__ import annotations

import threading
from collections import OrderedDict

from domain.state import MatchState

DEFAULT_CAPACITY = 2048
"""How many matches' states one process keeps in memory."""


class StateCache:
    """match id → the latest folded MatchState this process has seen."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._states: OrderedDict[str, MatchState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> MatchState | None:
        """The cached state, if any (marks it recently used)."""
        with self._lock:
            state = self._states.get(match_id)
            if state is not None:
                self._states.move_to_end(match_id)
            return state

    def put(self, match_id: str, state: MatchState) -> None:
        """Keep ``state`` unless a later position of the same match is already cached."""
        if self.capacity <= 0:
            return
        with self._lock:
            known = self._states.get(match_id)
            if known is not None and known.events > state.events:
                return
            self._states[match_id] = state
            self._states.move_to_end(match_id)
            while len(self._states) > self.capacity:
                self._states.popitem(last=False)

    def discard(self, match_id: str) -> None:
        """Forget a match."""
        with self._lock:
            self._states.pop(match_id, None)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._states.clear()
