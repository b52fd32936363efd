"""Group commit: the appends of concurrent commands stored together in one transaction.

A durable commit costs one flush to disk (SQLite ``synchronous=FULL``, PostgreSQL's WAL flush)
and, on PostgreSQL, one turn of eventsourcing's lock on the events table (docs/architecture.md
L9). Commands that arrive while another transaction is committing wait for it, then the first
of them commits every waiting command's events in one transaction: one flush and one lock for
all of them, however many there are.

Each command keeps its guarantees:

- it returns only once its own events are committed (nothing acknowledged is lost);
- it is refused alone: when the grouped transaction is refused because some stream moved on
  (a stale writer, eventsourcing's ``IntegrityError``), nothing of it was stored, and each of
  its commands is committed again in a transaction of its own, so only the stale one is refused;
- the global log numbers every event in commit order, as it did one command at a time, since
  the library's own insert does the numbering.

The leader (the command that commits a group) is simply the first waiting caller: no thread is
kept for it, and a lone command commits at once, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from eventsourcing.persistence import IntegrityError, StoredEvent

Insert = Callable[[Sequence[StoredEvent]], Sequence[int] | None]
"""The recorder's ``insert_events``: stores rows in one transaction, returns their positions."""

MAX_GROUP = 256
"""At most this many commands in one transaction (their rows are one statement's parameters)."""


class _Waiting:
    """One command's rows, and once committed its positions or its error."""

    __slots__ = ("done", "error", "positions", "rows")

    def __init__(self, rows: Sequence[StoredEvent]) -> None:
        self.rows = rows
        self.positions: list[int] = []
        self.error: BaseException | None = None
        self.done = False


class GroupCommit:
    """Commits the rows of concurrent ``append`` calls together through ``insert``."""

    def __init__(self, insert: Insert, max_group: int = MAX_GROUP) -> None:
        self._insert = insert
        self._max_group = max_group
        self._changed = threading.Condition()
        self._queue: list[_Waiting] = []
        self._leading = False
        self.transactions = 0
        """How many transactions were committed or tried (for tests and benchmarks)."""

    def append(self, rows: Sequence[StoredEvent]) -> list[int]:
        """Store ``rows`` in one transaction (possibly with other callers' rows); positions.

        Raises what the insert raised for these rows: IntegrityError when a stream moved on.
        """
        [outcome] = self.append_many([rows])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def append_many(self, batches: Sequence[Sequence[StoredEvent]]) -> list[list[int] | Exception]:
        """Store each of ``batches`` (one stream's rows each) as ``append`` would, queued at once
        so that they share transactions; each one's positions, or the error refusing it alone."""
        mine = [_Waiting(rows) for rows in batches]
        with self._changed:
            self._queue.extend(mine)
        while True:
            with self._changed:
                while not all(w.done for w in mine) and self._leading:
                    self._changed.wait()
                if all(w.done for w in mine):
                    break
                self._leading = True
                group = self._queue[: self._max_group]
                del self._queue[: self._max_group]
            try:
                self._commit(group)
            finally:
                with self._changed:
                    self._leading = False
                    self._changed.notify_all()
        outcomes: list[list[int] | Exception] = []
        for waiting in mine:
            if waiting.error is not None and not isinstance(waiting.error, Exception):
                raise waiting.error  # an interrupt, not a refusal
            outcomes.append(waiting.error if waiting.error is not None else waiting.positions)
        return outcomes

    def _commit(self, group: list[_Waiting]) -> None:
        """One transaction for the group; on a refusal, one transaction per command."""
        try:
            positions = self._run([row for waiting in group for row in waiting.rows])
        except IntegrityError as error:
            if len(group) == 1:
                _finish(group[0], error=error)
                return
            for waiting in group:  # nothing was stored: find the stale one(s) alone
                try:
                    _finish(waiting, positions=self._run(waiting.rows))
                except BaseException as alone:  # each caller gets its own outcome
                    _finish(waiting, error=alone)
            return
        except BaseException as error:  # the database failed: every command of the group did
            for waiting in group:
                _finish(waiting, error=error)
            return
        start = 0
        for waiting in group:
            end = start + len(waiting.rows)
            _finish(waiting, positions=positions[start:end])
            start = end

    def _run(self, rows: Sequence[StoredEvent]) -> list[int]:
        self.transactions += 1
        return list(self._insert(rows) or ())


def _finish(
    waiting: _Waiting, positions: list[int] | None = None, error: BaseException | None = None
) -> None:
    waiting.positions = positions or []
    waiting.error = error
    waiting.done = True
