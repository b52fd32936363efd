"""What SQLite and PostgreSQL share: statements on eventsourcing's own connections.

``SqlBackend`` runs the statements the store writes itself (the stream numbers' table, the side
tables' bulk reads, a migration's rewrites) in transactions of eventsourcing's datastore; each
database's backend says only how a statement names a table and a parameter (``query``) and how
it inserts a row unless it exists (``insert_ignoring``).
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, Final

from eventsourcing.persistence import AggregateRecorder, StoredEvent

from app.store.backend import PRESENCE_TABLE, Backend, Run
from app.store.streams import STREAMS_TABLE

_MADE_LIMIT: Final = 512  # statements kept made; a read of N ids makes one per N
_CHUNK: Final = 500  # numbers per read, well under SQLite's limit on bound parameters

_SIDE_ROWS: Final = (
    "SELECT originator_id, originator_version, topic, state FROM {s}"
    " WHERE originator_id IN ({marks}) ORDER BY originator_id, originator_version"
)

PRESENCE_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS {h} (match_id TEXT NOT NULL, seat INTEGER NOT NULL,"
    " process TEXT NOT NULL, beat {real} NOT NULL, PRIMARY KEY (match_id, seat, process))"
)
"""The presence table (``{real}``: the database's name for a double)."""

PRESENCE_INDEX: Final = f"CREATE INDEX IF NOT EXISTS {PRESENCE_TABLE}_process ON {{h}} (process)"
"""A process's rows found without a scan (its heartbeat, its stop)."""

_HOLD: Final = (
    "INSERT INTO {h} (match_id, seat, process, beat) VALUES ({p}, {p}, {p}, {p})"
    " ON CONFLICT (match_id, seat, process) DO UPDATE SET beat = excluded.beat"
)

_RELEASE: Final = "DELETE FROM {h} WHERE match_id = {p} AND seat = {p} AND process = {p}"

_HELD: Final = (
    "SELECT match_id, seat FROM {h} WHERE match_id IN ({marks}) AND process <> {p} AND beat >= {p}"
)

_SIDE_VERSIONS: Final = (
    "SELECT originator_id AS id, MAX(originator_version) AS version FROM {s} GROUP BY originator_id"
)


class SqlBackend(Backend):
    """A backend whose tables are SQL tables reached through eventsourcing's datastore."""

    _made: dict[tuple[str, str | None], Any]

    insert_ignoring: str = "INSERT OR IGNORE INTO {t} (match_id) VALUES ({p})"
    """Give a match a number unless it has one (the table's unique ``match_id``)."""

    @abc.abstractmethod
    def query(self, statement: str, tables: dict[str, str]) -> Any:
        """``statement`` with ``{p}`` a parameter and each ``{NAME}`` the table ``tables``
        names, as the driver takes it."""

    def _tables(self, side: str | None = None) -> dict[str, str]:
        recorder: Any = self.events
        tables = {"t": STREAMS_TABLE, "e": recorder.events_table_name, "h": PRESENCE_TABLE}
        if side is not None:
            tables["s"] = side
        return tables

    @contextlib.contextmanager
    def transaction(self, *, commit: bool = True, side: str | None = None) -> Iterator[Run]:
        """Statements in one transaction on the events recorder's own connections."""
        datastore: Any = getattr(self.events, "datastore")  # noqa: B009
        queries = self._queries()
        with self.gate(), datastore.transaction(commit=commit) as cursor:

            def run(statement: str, params: tuple[Any, ...]) -> list[Any]:
                query = queries.get((statement, side))
                if query is None:
                    query = queries[(statement, side)] = self.query(statement, self._tables(side))
                cursor.execute(query, params)
                if getattr(cursor, "sqlite_cursor", cursor).description is None:  # no rows
                    return []
                return list(cursor.fetchall())

            yield run

    def _queries(self) -> dict[tuple[str, str | None], Any]:
        """The statements already made for the driver (the same few are run again and again)."""
        queries: dict[tuple[str, str | None], Any] | None = getattr(self, "_made", None)
        if queries is None or len(queries) > _MADE_LIMIT:
            queries = {}
            self._made = queries
        return queries

    def _read(self, statement: str, params: tuple[Any, ...], side: str | None = None) -> list[Any]:
        with self.transaction(commit=False, side=side) as run:
            return run(statement, params)

    # -- side tables ------------------------------------------------------------------------

    def side_rows(self, recorder: AggregateRecorder, ids: list[str]) -> list[StoredEvent]:
        """Every row of these streams, by stream then seq, in one statement."""
        table: Any = recorder
        marks = ", ".join(["{p}"] * len(ids))
        rows = self._read(
            _SIDE_ROWS.replace("{marks}", marks), tuple(ids), side=table.events_table_name
        )
        return [
            StoredEvent(
                str(row["originator_id"]),
                int(row["originator_version"]),
                str(row["topic"]),
                bytes(row["state"]),
            )
            for row in rows
        ]

    def side_versions(self, recorder: AggregateRecorder) -> dict[str, int]:
        """One scan of the side table's key."""
        table: Any = recorder
        rows = self._read(_SIDE_VERSIONS, (), side=table.events_table_name)
        return {str(row["id"]): int(row["version"]) for row in rows}

    # -- stream numbers ---------------------------------------------------------------------

    def stream_number(self, match_id: str) -> int | None:
        """The number in ``stored_streams``."""
        rows = self._read("SELECT n FROM {t} WHERE match_id = {p}", (match_id,))
        return int(rows[0]["n"]) if rows else None

    def stream_matches(self, numbers: Sequence[int]) -> dict[int, str]:
        """The match ids of these numbers, a few hundred a statement."""
        found: dict[int, str] = {}
        wanted = sorted(set(numbers))
        for start in range(0, len(wanted), _CHUNK):
            chunk = tuple(wanted[start : start + _CHUNK])
            marks = ", ".join(["{p}"] * len(chunk))
            rows = self._read(f"SELECT n, match_id FROM {{t}} WHERE n IN ({marks})", chunk)
            found.update((int(row["n"]), str(row["match_id"])) for row in rows)
        return found

    def assign_stream(self, match_id: str) -> int:
        """Insert the match unless it is there, and read its number, in one transaction."""
        with self.transaction() as run:
            run(self.insert_ignoring, (match_id,))
            return int(run("SELECT n FROM {t} WHERE match_id = {p}", (match_id,))[0]["n"])

    # -- presence ---------------------------------------------------------------------------

    def presence_write(
        self,
        process: str,
        holds: Sequence[tuple[str, int]],
        releases: Sequence[tuple[str, int]],
        beat: float,
    ) -> None:
        """One upsert or delete on the table's key per row, all in one transaction."""
        if not holds and not releases:
            return
        with self.transaction() as run:
            for match_id, seat in holds:
                run(_HOLD, (match_id, seat, process, beat))
            for match_id, seat in releases:
                run(_RELEASE, (match_id, seat, process))

    def presence_beat(self, process: str, beat: float, gone_before: float) -> list[tuple[str, int]]:
        """The refresh and the sweep of rows gone, in one transaction; the process's rows."""
        with self.transaction() as run:
            held = run(
                "UPDATE {h} SET beat = {p} WHERE process = {p} RETURNING match_id, seat",
                (beat, process),
            )
            run("DELETE FROM {h} WHERE beat < {p}", (gone_before,))
            return [(str(row["match_id"]), int(row["seat"])) for row in held]

    def presence_release_all(self, process: str) -> None:
        """One delete on the process's index."""
        with self.transaction() as run:
            run("DELETE FROM {h} WHERE process = {p}", (process,))

    def presence_elsewhere(self, process: str, live_since: float) -> bool:
        """The first live row of another process, if any."""
        statement = "SELECT 1 FROM {h} WHERE process <> {p} AND beat >= {p} LIMIT 1"
        return bool(self._read(statement, (process, live_since)))

    def presence_seats(
        self, match_ids: Sequence[str], process: str, live_since: float
    ) -> dict[str, frozenset[int]]:
        """A few hundred matches a statement, on the table's key."""
        held: dict[str, set[int]] = {}
        wanted = sorted(set(match_ids))
        for start in range(0, len(wanted), _CHUNK):
            chunk = tuple(wanted[start : start + _CHUNK])
            statement = _HELD.replace("{marks}", ", ".join(["{p}"] * len(chunk)))
            for row in self._read(statement, (*chunk, process, live_since)):
                held.setdefault(str(row["match_id"]), set()).add(int(row["seat"]))
        return {match_id: frozenset(seats) for match_id, seats in held.items()}
