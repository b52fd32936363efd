"""``basra store migrate``: an earlier build's store rewritten once into the one stored form.

Earlier builds stored rows in the JSON form (``basra:TAG`` topics, a JSON envelope) and named
each match's stream by its match id; this build reads and writes only compact rows under stream
keys (docs/storage.md, "One stored form"). The migration rewrites every earlier row in place:

- each stream stored under its match id gets a key (a number in ``stored_streams``, a number
  whose key names another stream of the store burnt, as before) and its rows are renamed to it;
- each JSON row is re-encoded in the compact form, at the same stream and seq.

Every row keeps its log position (SQLite ``rowid``, PostgreSQL ``notification_id``): rows are
updated, never deleted and inserted again, so read models, live feeds and the turn clock's
follower see nothing move. Each stream is rewritten in one transaction (its new key with it),
the JSON rows left in keyed streams in batches: interrupted anywhere (kill -9 included), the
store holds whole streams of either form and running it again finishes the rest. Only once
nothing is left is the store marked with this build's form; until then every server and
command refuses it (StoreNotMigratedError). It runs alone: it takes the store's lock that every
serving or reading process holds shared (app.store.backend).

A row that cannot be read in its earlier form either (damaged JSON, an unknown topic) is left
as it is and counted: it stays a corrupt event of its match, as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec

from app.config import StoreConfig
from app.errors import CorruptEventError
from app.store.backend import STORED_FORM, Run
from app.store.compact import encode_compact
from app.store.earlier import decode_json_row
from app.store.match_store import MatchStore
from app.store.sql import SqlBackend
from app.store.streams import stream_key, stream_number

BATCH: Final = 500
"""JSON rows of keyed streams rewritten per transaction."""

BURNT: Final = "\x01burnt:"
"""The prefix of a number's ``match_id`` when its key named another stream (no match id the
server makes starts with a control character)."""

_JSON_TOPICS: Final = "topic >= 'basra:' AND topic < 'basra;'"  # ';' follows ':' in ASCII


class MigrationReport(msgspec.Struct, frozen=True, kw_only=True):
    """What ``basra store migrate`` did to one store."""

    store: str
    form_before: int
    form_after: int
    streams_renamed: int = 0
    """Streams stored under their match id, now under a key."""
    rows_renamed: int = 0
    """Rows of those streams (each keeps its position)."""
    rows_rewritten: int = 0
    """JSON rows re-encoded in the compact form."""
    rows_unreadable: int = 0
    """Rows left as they were: not readable in any form (corrupt events of their match)."""

    @property
    def changed(self) -> int:
        """How many rows were changed in any way."""
        return self.rows_renamed + self.rows_rewritten


Progress = Callable[[int, int], None]
"""Told (rows done, rows in all) as the migration goes."""

Checkpoint = Callable[[], None]
"""Called after each row rewritten and after each commit (tests interrupt the migration here)."""


def _nothing() -> None:
    return None


class _Migration:
    """One run over one store."""

    def __init__(
        self, backend: SqlBackend, progress: Progress | None, checkpoint: Checkpoint
    ) -> None:
        self.backend = backend
        self.position = backend.position_column
        self.progress = progress
        self.checkpoint = checkpoint
        self.done = 0
        self.total = 0
        self.counts = {"streams_renamed": 0, "rows_renamed": 0, "rows_rewritten": 0}
        self.unreadable: set[int] = set()

    def _read(self, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """One statement in a transaction of its own."""
        with self.backend.transaction() as run:
            return run(statement, params)

    def _advance(self, rows: int) -> None:
        self.done += rows
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)

    def run(self) -> None:
        """Rename every stream stored under its match id, then rewrite the JSON rows left."""
        keyed = {
            int(row["n"]): str(row["match_id"]) for row in self._read("SELECT n, match_id FROM {t}")
        }
        names = self._read(
            f"SELECT originator_id AS name, COUNT(*) AS count, MIN({self.position}) AS first"
            " FROM {e} GROUP BY originator_id",
        )
        legacy = sorted(
            (int(row["first"]), str(row["name"]), int(row["count"]))
            for row in names
            if not _is_key(row["name"], keyed)
        )
        counting = "SELECT COUNT(*) AS count FROM {e} WHERE " + _JSON_TOPICS
        json_rows = int(self._read(counting)[0]["count"])
        legacy_json = sum(
            int(self._read(counting + " AND originator_id = {p}", (name,))[0]["count"])
            for _, name, _ in legacy
        )
        self.total = sum(count for _, _, count in legacy) + json_rows - legacy_json
        self._advance(0)
        for _, match_id, count in legacy:
            with self.backend.transaction() as run:
                key = self._key_for(run, match_id)
                self._rewrite(run, match_id, "originator_id = {p}", (match_id,))
                run("UPDATE {e} SET originator_id = {p} WHERE originator_id = {p}", (key, match_id))
                self.counts["streams_renamed"] += 1
                self.counts["rows_renamed"] += count
                self.checkpoint()
            self._advance(count)
            self.checkpoint()
        after = 0
        while True:
            with self.backend.transaction() as run:
                last = self._rewrite(run, None, f"{self.position} > {{p}}", (after,), limit=BATCH)
            self.checkpoint()
            if last is None:
                return
            after = last

    def _key_for(self, run: Run, match_id: str) -> str:
        """A number for the match whose key names no stream of the store (burning any whose
        key does), in the open transaction."""
        run(self.backend.insert_ignoring, (match_id,))
        while True:
            number = int(run("SELECT n FROM {t} WHERE match_id = {p}", (match_id,))[0]["n"])
            key = stream_key(number)
            if not run("SELECT 1 FROM {e} WHERE originator_id = {p} LIMIT 1", (key,)):
                return key
            run("UPDATE {t} SET match_id = {p} WHERE n = {p}", (f"{BURNT}{number}", number))
            run(self.backend.insert_ignoring, (match_id,))

    def _rewrite(
        self,
        run: Run,
        match_id: str | None,
        where: str,
        params: tuple[Any, ...],
        limit: int | None = None,
    ) -> int | None:
        """Re-encode the JSON rows ``where`` selects (of ``match_id``'s stream, or in log
        order after a position, at most ``limit``); the last position seen, None if none."""
        statement = (
            f"SELECT {self.position} AS position, originator_id, originator_version, topic, state"
            " FROM {e}"
            f" WHERE {where} AND {_JSON_TOPICS} ORDER BY {self.position}"
        )
        if limit is not None:
            statement += f" LIMIT {int(limit)}"
        rows = run(statement, params)
        last: int | None = None
        for row in rows:
            position = int(row["position"])
            stream, seq = str(row["originator_id"]), int(row["originator_version"])
            last = position
            name = match_id if match_id is not None else self._match_of(run, stream)
            try:
                recorded = decode_json_row(name, seq, str(row["topic"]), bytes(row["state"]))
            except CorruptEventError:
                if position not in self.unreadable:
                    self.unreadable.add(position)
                    if match_id is None:
                        self._advance(1)
                continue
            topic, state = encode_compact(recorded)
            run(
                f"UPDATE {{e}} SET topic = {{p}}, state = {{p}} WHERE {self.position} = {{p}}",
                (topic, state, position),
            )
            self.counts["rows_rewritten"] += 1
            if match_id is None:
                self._advance(1)
            self.checkpoint()
        return last

    def _match_of(self, run: Run, stream: str) -> str:
        number = stream_number(stream)
        if number is None:
            return stream
        rows = run("SELECT match_id FROM {t} WHERE n = {p}", (number,))
        return str(rows[0]["match_id"]) if rows else stream


def _is_key(name: object, keyed: dict[int, str]) -> bool:
    """Whether a stored stream name is a key given to a match (else: a match id)."""
    number = stream_number(str(name))
    return number is not None and number in keyed and not keyed[number].startswith(BURNT)


def migrate(
    config: StoreConfig,
    *,
    progress: Progress | None = None,
    checkpoint: Checkpoint = _nothing,
) -> MigrationReport:
    """Rewrite the store ``config`` names into the one stored form, alone (StoreUnavailableError
    while any other process has it open); what was changed. Run twice, the second changes
    nothing; interrupted, run again to finish."""
    store = MatchStore.open(config, migrating=True)
    try:
        backend = store.backend
        before = backend.form()
        if before == STORED_FORM or not isinstance(backend, SqlBackend):
            return MigrationReport(store=config.identity(), form_before=before, form_after=before)
        migration = _Migration(backend, progress, checkpoint)
        migration.run()
        backend.mark_form()
        return MigrationReport(
            store=config.identity(),
            form_before=before,
            form_after=backend.form(),
            rows_unreadable=len(migration.unreadable),
            **migration.counts,
        )
    finally:
        store.close()
