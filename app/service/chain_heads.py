"""The last chain link this process stored or read for each match, so a command need not read it.

Each command links its events after the stream's last link (domain.chain). The service keeps
the link of the last event it appended per match; the next command on that match, at that
seq, takes it from here instead of reading the row again. Any other seq (another process
appended since) is a miss, and the service reads the link from the store. Threads share it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

DEFAULT_CAPACITY = 4096
"""How many matches' last links one process keeps."""


class ChainHeads:
    """match id → (seq, chain link after that seq), newest seq wins, least recently used out."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._heads: OrderedDict[str, tuple[int, str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str, seq: int) -> tuple[bool, str | None]:
        """(True, link) when the link after ``seq`` is known; (False, None) otherwise."""
        with self._lock:
            known = self._heads.get(match_id)
            if known is None or known[0] != seq:
                return False, None
            self._heads.move_to_end(match_id)
            return True, known[1]

    def put(self, match_id: str, seq: int, chain: str | None) -> None:
        """Keep the link after ``seq`` unless a later seq of the match is already kept."""
        if self.capacity <= 0:
            return
        with self._lock:
            known = self._heads.get(match_id)
            if known is not None and known[0] > seq:
                return
            self._heads[match_id] = (seq, chain)
            self._heads.move_to_end(match_id)
            while len(self._heads) > self.capacity:
                self._heads.popitem(last=False)

    def discard(self, match_id: str) -> None:
        """Forget a match (its stream moved on elsewhere)."""
        with self._lock:
            self._heads.pop(match_id, None)
