"""The head of each match's stream this process stored or read, so a command need not read it.

Each command links its events after the stream's last link (domain.chain) and records them no
earlier than the stream's last record time (a stream's times never go backwards). The service
keeps both for the last event it appended per match; the next command on that match, at that
seq, takes them from here instead of reading the row again. Any other seq (another process
appended since) is a miss, and the service reads the last event from the store. Threads share it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import NamedTuple

DEFAULT_CAPACITY = 4096
"""How many matches' heads one process keeps."""


class StreamHead(NamedTuple):
    """The last stored event of a stream: its chain link (None: unchained) and record time
    (None: no event yet)."""

    chain: str | None
    at: str | None


NO_HEAD = StreamHead(None, None)
"""The head of a stream before its first event."""


class ChainHeads:
    """match id → (seq, head after that seq), newest seq wins, least recently used out."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._heads: OrderedDict[str, tuple[int, StreamHead]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str, seq: int) -> StreamHead | None:
        """The head after ``seq`` when it is known; None otherwise."""
        with self._lock:
            known = self._heads.get(match_id)
            if known is None or known[0] != seq:
                return None
            self._heads.move_to_end(match_id)
            return known[1]

    def put(self, match_id: str, seq: int, chain: str | None, at: str | None = None) -> None:
        """Keep the head after ``seq`` unless a later seq of the match is already kept."""
        if self.capacity <= 0:
            return
        with self._lock:
            known = self._heads.get(match_id)
            if known is not None and known[0] > seq:
                return
            self._heads[match_id] = (seq, StreamHead(chain, at))
            self._heads.move_to_end(match_id)
            while len(self._heads) > self.capacity:
                self._heads.popitem(last=False)

    def discard(self, match_id: str) -> None:
        """Forget a match (its stream moved on elsewhere)."""
        with self._lock:
            self._heads.pop(match_id, None)
