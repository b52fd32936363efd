"""Following the global log as it grows, pushed by the database (PostgreSQL LISTEN/NOTIFY).

Every transaction that inserts events sends a ``NOTIFY`` on the events channel
(app.store.postgres). Its payload carries the inserted rows themselves: the schema's name and
the rows' positions in the log, then one line a row (``notify_payload``). A payload too big for
a notification (8,000 bytes) is sent empty, and so is the library's own insert's.

``LogListener`` holds one connection that LISTENs on that channel, on a thread of its own, and
hands each row (position, stream, seq, stored topic, state) to a callback, in the order of the
log: notifications arrive in commit order, and the recorder's table lock makes commit order and
position order the same (docs/architecture.md L9). An empty payload, and every (re)connection,
read the log after the last position handed on instead. A row at or before that position is
never handed on twice, so nothing is skipped or repeated when the connection breaks (the
database restarts). A channel is the database's, not a schema's: rows of another schema's log
are passed over.

Before, the listener read the log after every notification, its own process's appends
included; with two processes every play cost each of them a read, and every feed of the match
on the other process a read of the stream (docs/performance.md, "The rows in the NOTIFY").
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from app.store.backend import OnRow
from domain.recorded import RecordedEvent

if TYPE_CHECKING:
    from eventsourcing.postgres import PostgresApplicationRecorder

log = logging.getLogger("basra.store.live")

OnEntry = Callable[[int, str, int, Callable[[], RecordedEvent]], None]
"""Called with (position, match id, seq, a call decoding the entry's recorded event) of each
new log entry, on the listener's thread: the event is decoded only where it is wanted."""

RETRY_SECONDS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
"""Waits before listening again after a failure, the last repeated."""

PAYLOAD_LIMIT = 7700
"""The most bytes a NOTIFY payload's rows take, each counted with its position (at most 21
characters): PostgreSQL refuses payloads from 8,000 bytes, and the schema's name (at most 63)
goes in front too."""

POSITION_BYTES = 22
"""What a row's position adds to the payload at most (a bigint and its comma)."""

READ_PAGE = 500
"""Rows a read of the log takes at a time (after a (re)connection or an empty payload)."""

WAKE_SECONDS = 0.1
"""How often the waiting thread looks whether it was asked to stop."""


class StoredRow(Protocol):
    """A row as the store's recorder writes it (eventsourcing's ``StoredEvent``)."""

    @property
    def originator_id(self) -> Any:
        """The stream's id."""

    @property
    def originator_version(self) -> int:
        """The row's seq in its stream."""

    @property
    def topic(self) -> str:
        """The stored topic."""

    @property
    def state(self) -> bytes:
        """The stored event."""


def notify_payload(rows: Sequence[StoredRow]) -> str:
    """The rows of one insert as the NOTIFY carries them (the database puts their positions in
    front): ``stream TAB seq TAB topic TAB base64(state)``, one line a row; empty when they do
    not fit, or a field would break the lines (the listener then reads the log)."""
    lines = []
    size = 0
    for row in rows:
        stream, topic = str(row.originator_id), row.topic
        if "\t" in stream or "\n" in stream or "\t" in topic or "\n" in topic:
            return ""
        line = f"{stream}\t{row.originator_version}\t{topic}\t" + base64.b64encode(
            row.state
        ).decode("ascii")
        size += (len(line) if line.isascii() else len(line.encode())) + 1 + POSITION_BYTES
        if size > PAYLOAD_LIMIT:
            return ""
        lines.append(line)
    return "\n".join(lines)


def rows_of_payload(payload: str, schema: str) -> list[tuple[int, str, int, str, bytes]] | None:
    """The rows of ``schema``'s log a NOTIFY's payload carries (``schema TAB positions``, then a
    line a row), in log order: none when they are another schema's (the channel is the
    database's); None when it carries none (empty) or cannot be read: read the log instead."""
    if not payload:
        return None
    head, _, body = payload.partition("\n")
    whose, _, listed = head.rpartition("\t")
    if whose != schema:
        return [] if whose else None
    try:
        positions = [int(p) for p in listed.split(",")]
        lines = body.split("\n")
        if len(lines) != len(positions):
            return None
        rows = []
        for position, line in zip(positions, lines, strict=True):
            stream, seq, topic, state = line.split("\t")
            rows.append((position, stream, int(seq), topic, base64.b64decode(state)))
    except (ValueError, binascii.Error):
        return None
    return rows


class LogListener:
    """One thread LISTENing on the recorder's channel, handing each row after ``position`` on."""

    def __init__(self, recorder: PostgresApplicationRecorder, position: int, on_row: OnRow) -> None:
        self.position = position
        self._recorder = recorder
        self._on_row = on_row
        self._stopped = threading.Event()
        self.reads = 0
        """How many times it read the log (each (re)connection, each empty payload)."""
        self._thread = threading.Thread(target=self._run, name="basra-log-listener", daemon=True)

    def start(self) -> None:
        """Start following."""
        self._thread.start()

    def stop(self, wait_seconds: float = 10.0) -> None:
        """Stop following and wait for the thread to end."""
        self._stopped.set()
        self._thread.join(wait_seconds)

    def _run(self) -> None:
        failures = 0
        while not self._stopped.is_set():
            try:
                self._follow()
                failures = 0
            except Exception as error:  # the connection broke: listen again, later
                wait = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                log.warning("following the event log failed (%s); again in %.2f s", error, wait)
                self._stopped.wait(wait)

    def _follow(self) -> None:
        from psycopg import sql  # only a process on PostgreSQL loads the driver

        channel = sql.Identifier(self._recorder.channel_name)
        with self._recorder.datastore.get_connection() as conn:
            conn.execute(sql.SQL("LISTEN {0}").format(channel))
            if not conn.autocommit:
                conn.commit()  # LISTEN takes effect when its transaction commits
            try:
                # Listening first, then reading: a row committed in between is in the read or
                # in a notification (or both: its position then says it was handed on).
                self._read_log()
                while not self._stopped.is_set():
                    for notification in conn.notifies(timeout=WAKE_SECONDS):
                        self._take(notification.payload)
                        if self._stopped.is_set():
                            break
            finally:
                # The connection goes back to the pool: it must not go on being sent every
                # insert's rows for whoever takes it next.
                with contextlib.suppress(Exception):
                    conn.execute("UNLISTEN *")
                    if not conn.autocommit:
                        conn.commit()

    def _take(self, payload: str) -> None:
        """One notification: its rows, or a read of the log when it carries none."""
        rows = rows_of_payload(payload, self._recorder.datastore.schema)
        if rows is None:
            self._read_log()
            return
        for position, stream, seq, topic, state in rows:
            if position <= self.position:
                continue  # already handed on (read with the log)
            self._on_row(position, stream, seq, topic, state)
            self.position = position

    def _read_log(self) -> None:
        """Hand on every row of the log after ``position``."""
        self.reads += 1
        while True:
            page = self._recorder.select_notifications(
                start=self.position, limit=READ_PAGE, inclusive_of_start=False
            )
            for row in page:
                self._on_row(
                    row.id, str(row.originator_id), row.originator_version, row.topic, row.state
                )
                self.position = row.id
            if len(page) < READ_PAGE:
                return
