"""Following the global log as it grows, pushed by the database (PostgreSQL LISTEN/NOTIFY).

eventsourcing's PostgreSQL recorder sends ``NOTIFY`` on its events channel in every transaction
that inserts events, and its ``subscribe(gt=position)`` (docs/architecture.md L4) LISTENs on
that channel and reads the log after ``position`` each time a notification arrives: in the
order of the log, since the recorder's table lock makes commit order and position order the
same (L9). ``LogListener`` keeps one such subscription open on a thread of its own and hands
each entry's (position, match id, seq) to a callback. When the connection breaks (the database
restarts), it subscribes again after the last position it handed on, so nothing is skipped
or repeated.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from eventsourcing.persistence import ApplicationRecorder

log = logging.getLogger("basra.store.live")

OnEntry = Callable[[int, str, int], None]
"""Called with (position, match id, seq) of each new log entry, on the listener's thread."""

RETRY_SECONDS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
"""Waits before subscribing again after a failure, the last repeated."""


class LogListener:
    """One thread following the log after ``position`` through ``recorder.subscribe``."""

    def __init__(self, recorder: ApplicationRecorder, position: int, on_entry: OnEntry) -> None:
        self.position = position
        self._recorder = recorder
        self._on_entry = on_entry
        self._stopped = threading.Event()
        self._current: Any = None
        self._guard = threading.Lock()
        self.subscriptions = 0
        """How many times it subscribed (more than once after a failure)."""
        self._thread = threading.Thread(target=self._run, name="basra-log-listener", daemon=True)

    def start(self) -> None:
        """Start following."""
        self._thread.start()

    def stop(self, wait_seconds: float = 10.0) -> None:
        """Stop following and wait for the thread to end."""
        self._stopped.set()
        with self._guard:
            current = self._current
        if current is not None:
            current.stop()
        self._thread.join(wait_seconds)

    def _run(self) -> None:
        failures = 0
        while not self._stopped.is_set():
            try:
                self._follow()
                failures = 0
            except Exception as error:  # the connection broke: subscribe again, later
                wait = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning("following the event log failed (%s); again in %.2f s", error, wait)
                self._stopped.wait(wait)

    def _follow(self) -> None:
        subscription = self._recorder.subscribe(gt=self.position)
        with self._guard:
            if self._stopped.is_set():
                subscription.stop()
            self._current = subscription
        self.subscriptions += 1
        try:
            with subscription:
                for notification in subscription:
                    self._on_entry(
                        notification.id,
                        str(notification.originator_id),
                        notification.originator_version,
                    )
                    self.position = notification.id
        finally:
            with self._guard:
                self._current = None
