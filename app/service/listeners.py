"""Who hears of each command in this process: the live feeds after each append, the metrics
after every outcome."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, ParamSpec

from app.service.outcome import Outcome
from domain.recorded import RecordedEvent

log = logging.getLogger(__name__)

P = ParamSpec("P")

Listener = Callable[[str, list[RecordedEvent]], None]
"""Called with (match id, the events just appended) after every successful append."""


class Callbacks(Generic[P]):
    """The callbacks to tell, in the order added; one that fails never undoes the command."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[P, None]] = []
        self._lock = threading.Lock()

    def add(self, callback: Callable[P, None]) -> None:
        """Call ``callback`` with each later notice."""
        with self._lock:
            self._callbacks.append(callback)

    def notify(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Tell every callback; a failure is logged, never raised to the command's caller."""
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(*args, **kwargs)
            except Exception:  # a listener's failure must not undo a stored command
                log.exception("callback %r failed", callback)


class Listeners(Callbacks[[str, list[RecordedEvent]]]):
    """The callbacks told ``(match_id, events)`` after each append."""


class Observers(Callbacks[[Outcome]]):
    """The callbacks told every command's ``Outcome``, stored or refused."""
