"""Who hears about appends in this process: the live feeds, told after each commit."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from domain.recorded import RecordedEvent

log = logging.getLogger(__name__)

Listener = Callable[[str, list[RecordedEvent]], None]
"""Called with (match id, the events just appended) after every successful append."""


class Listeners:
    """The callbacks to tell after each append; one that fails never undoes the append."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def add(self, callback: Listener) -> None:
        """Call ``callback(match_id, events)`` after every successful append."""
        with self._lock:
            self._listeners.append(callback)

    def notify(self, match_id: str, recorded: list[RecordedEvent]) -> None:
        """Tell every listener what was just appended to ``match_id``."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(match_id, recorded)
            except Exception:  # a listener's failure must not undo a stored command
                log.exception("listener %r failed for match %s", listener, match_id)
