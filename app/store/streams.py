"""Stream keys: each match's stream is stored under a short key, its match id kept once.

Every row of the events table names its stream, and so does every entry of the table's key
index: with the match id there (24-40 characters), the id alone was a fifth of a match's bytes.
A match created by this build gets a number in ``stored_streams`` (one row a match: the number
and the match id) and its rows are stored under that number's key, a few characters long
(``stream_key``). Matches stored before keys existed keep their match id as their stream's name
(a legacy stream): a match with no row in ``stored_streams`` is read and appended to under its
match id, so every stream recorded before stays whole (docs/storage.md, "Stored rows").

A key is never the name of a legacy stream: a number whose key a legacy stream already uses is
burnt (its row names no match) and the next one taken. Keys never change once given, so every
process caches them; the cache is safe under threads.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from app.store.compact import is_compact_topic

if TYPE_CHECKING:  # the light readers import the key functions without eventsourcing
    from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactory

STREAMS_TABLE: Final = "stored_streams"
"""The table of stream numbers and match ids beside the events table."""

_DIGITS: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_VALUE: Final = {digit: value for value, digit in enumerate(_DIGITS)}
_CACHE_LIMIT: Final = 100_000
_CHUNK: Final = 500  # numbers per read, well under SQLite's limit on bound parameters
_BURNT: Final = "\x01burnt:"  # a control character: no match id the server makes starts so


def stream_key(number: int) -> str:
    """The key of stream ``number`` (1, 2, …): its base-62 digits after one digit giving how
    many there are, so that keys sort as their numbers do (``stream_key(61) == "1z"``,
    ``stream_key(62) == "210"``) and the events' key index only ever grows at its end."""
    if number < 1:
        raise ValueError(f"stream numbers start at 1, not {number}")
    digits = ""
    while number:
        number, digit = divmod(number, 62)
        digits = _DIGITS[digit] + digits
    return _DIGITS[len(digits)] + digits


def stream_number(key: str) -> int | None:
    """The number of a key made by ``stream_key``; None for any other text (a match id)."""
    if len(key) < 2 or key[0] not in _VALUE or _VALUE[key[0]] != len(key) - 1:
        return None
    number = 0
    for digit in key[1:]:
        value = _VALUE.get(digit)
        if value is None:
            return None
        number = number * 62 + value
    return number if key[1] != "0" else None


class StreamKeys:
    """Which name each match's stream is stored under, in one store (all its processes)."""

    def __init__(self, kind: str, recorder: ApplicationRecorder, factory: Any) -> None:
        self.kind = kind
        self._recorder: Any = recorder
        self._lock = threading.Lock()
        self._key_of: dict[str, str] = {}
        self._match_of: dict[str, str] = {}
        self._memory = _memory_table(factory) if kind == "memory" else None
        if kind == "sqlite":
            self._execute(
                f"CREATE TABLE IF NOT EXISTS {STREAMS_TABLE} "
                "(n INTEGER PRIMARY KEY, match_id TEXT NOT NULL UNIQUE)",
                (),
                commit=True,
            )
        elif kind == "postgres":
            create_postgres_table(recorder)

    # -- the two directions ---------------------------------------------------------------------

    def originator(self, match_id: str) -> str:
        """The name the match's stream is stored under: its key, or its own id for a legacy
        stream or a match not stored."""
        with self._lock:
            key = self._key_of.get(match_id)
        if key is not None:
            return key
        number = self._number_of(match_id)
        if number is None:
            return match_id
        key = stream_key(number)
        self._remember(match_id, key)
        return key

    def create(self, match_id: str) -> str:
        """The name a new match's first events are stored under: a new key (or the one it was
        given already), or its id when a legacy stream of that id exists (the append then
        collides with that stream's first row, as a second creation must)."""
        with self._lock:
            key = self._key_of.get(match_id)
        if key is not None:
            return key
        if self._memory is not None:
            key = self.originator(match_id)
            if key != match_id or self._legacy_rows(match_id):
                return key
            key = self._assign_in_memory(match_id)
        else:
            key = self._assign(match_id)
        if key != match_id:
            self._remember(match_id, key)
        return key

    def match_of(self, originator: str) -> str:
        """The match id of a stored stream name (a key, or a legacy stream's match id)."""
        with self._lock:
            match_id = self._match_of.get(originator)
        if match_id is not None:
            return match_id
        number = stream_number(originator)
        found = self._match_at(number) if number is not None else None
        match_id = originator if found is None or found.startswith(_BURNT) else found
        self._remember(match_id, originator)
        return match_id

    def prefetch(self, originators: list[str]) -> None:
        """Learn the match ids of these stored names in as few reads as possible (a page of the
        log names many matches a process has not seen yet)."""
        with self._lock:
            numbers = {
                n: name
                for name in originators
                if name not in self._match_of and (n := stream_number(name)) is not None
            }
        if len(numbers) < 2:
            return  # match_of reads a single one as cheaply
        found: dict[int, str] = {}
        wanted = sorted(numbers)
        if self._memory is not None:
            with self._memory.lock:
                found = {n: self._memory.matches[n] for n in wanted if n in self._memory.matches}
        else:
            for start in range(0, len(wanted), _CHUNK):
                chunk = tuple(wanted[start : start + _CHUNK])
                marks = ", ".join(["{p}"] * len(chunk))
                rows = self._execute(f"SELECT n, match_id FROM {{t}} WHERE n IN ({marks})", chunk)
                found.update((int(row["n"]), str(row["match_id"])) for row in rows)
        for number, name in numbers.items():
            match_id = found.get(number)
            if match_id is None or match_id.startswith(_BURNT):
                match_id = name
            self._remember(match_id, name)

    def _remember(self, match_id: str, originator: str) -> None:
        with self._lock:
            if len(self._match_of) > _CACHE_LIMIT:
                self._match_of.clear()
                self._key_of.clear()
            self._match_of[originator] = match_id
            if originator != match_id:
                self._key_of[match_id] = originator

    # -- the table ------------------------------------------------------------------------------

    def _number_of(self, match_id: str) -> int | None:
        if self._memory is not None:
            with self._memory.lock:
                return self._memory.numbers.get(match_id)
        rows = self._execute("SELECT n FROM {t} WHERE match_id = {p}", (match_id,))
        return int(rows[0]["n"]) if rows else None

    def _match_at(self, number: int) -> str | None:
        if self._memory is not None:
            with self._memory.lock:
                return self._memory.matches.get(number)
        rows = self._execute("SELECT match_id FROM {t} WHERE n = {p}", (number,))
        return str(rows[0]["match_id"]) if rows else None

    def _legacy_rows(self, originator: str) -> bool:
        """Whether a legacy stream is stored under this name: its first row is in the form
        before keys (a stream under a key is compact from its first row on)."""
        rows = self._recorder.select_events(originator, lte=1, limit=1)
        return bool(rows) and not is_compact_topic(rows[0].topic)

    def _assign_in_memory(self, match_id: str) -> str:
        assert self._memory is not None
        while True:
            with self._memory.lock:
                number = self._memory.numbers.get(match_id)
                if number is None:
                    number = len(self._memory.matches) + 1
                    self._memory.numbers[match_id] = number
                    self._memory.matches[number] = match_id
            key = stream_key(number)
            if not self._legacy_rows(key):
                return key
            burnt = f"{_BURNT}{number}"  # a legacy stream is named like the key: take the next
            with self._memory.lock:
                self._memory.matches[number] = burnt
                del self._memory.numbers[match_id]
                self._memory.numbers[burnt] = number

    def _assign(self, match_id: str) -> str:
        """Give the match a number (the one it has, if another writer just gave it one), in
        one transaction; its id itself when a legacy stream of that id exists."""
        if self.kind == "postgres":
            insert = "INSERT INTO {t} (match_id) VALUES ({p}) ON CONFLICT (match_id) DO NOTHING"
        else:
            insert = "INSERT OR IGNORE INTO {t} (match_id) VALUES ({p})"
        first_row = "SELECT topic FROM {e} WHERE originator_id = {p} AND originator_version = 1"
        try:
            with self._transaction(commit=True) as run:
                run(insert, (match_id,))  # first, so the transaction holds the write lock
                legacy = run(first_row, (match_id,))
                if legacy and not is_compact_topic(str(legacy[0]["topic"])):
                    raise _LegacyStream  # rolled back: the number is not taken
                while True:
                    number = int(run("SELECT n FROM {t} WHERE match_id = {p}", (match_id,))[0]["n"])
                    key = stream_key(number)
                    found = run(first_row, (key,))
                    if not found or is_compact_topic(str(found[0]["topic"])):
                        return key
                    # a legacy stream is named like this key: burn the number, take the next
                    run(
                        "UPDATE {t} SET match_id = {p} WHERE n = {p}", (f"{_BURNT}{number}", number)
                    )
                    run(insert, (match_id,))
        except _LegacyStream:
            return match_id

    @contextlib.contextmanager
    def _transaction(
        self, *, commit: bool
    ) -> Iterator[Callable[[str, tuple[Any, ...]], list[Any]]]:
        """Statements in one transaction on the events recorder's own connections ({t}: the
        keys' table, {e}: the events' table, {p}: a parameter), each returning its rows."""
        datastore = self._recorder.datastore
        if self.kind == "postgres":
            from psycopg.sql import SQL, Identifier

            schema = Identifier(datastore.schema)
            tables = {
                "t": SQL("{}.{}").format(schema, Identifier(STREAMS_TABLE)),
                "e": SQL("{}.{}").format(schema, Identifier(self._recorder.events_table_name)),
            }

            def query(statement: str) -> Any:
                return SQL(statement.replace("{p}", "%s")).format(**tables)

        else:
            names = {"t": STREAMS_TABLE, "e": self._recorder.events_table_name}

            def query(statement: str) -> Any:
                return statement.replace("{p}", "?").format(**names)

        with datastore.transaction(commit=commit) as cursor:

            def run(statement: str, params: tuple[Any, ...]) -> list[Any]:
                cursor.execute(query(statement), params)
                if getattr(cursor, "sqlite_cursor", cursor).description is None:  # no rows
                    return []
                return list(cursor.fetchall())

            yield run

    def _execute(
        self, statement: str, params: tuple[Any, ...], *, commit: bool = False
    ) -> list[Any]:
        """One statement in a transaction of its own (see ``_transaction``)."""
        with self._transaction(commit=commit) as run:
            return run(statement, params)


class _LegacyStream(Exception):
    """A legacy stream of the match's id exists: it gets no key."""


def create_postgres_table(recorder: ApplicationRecorder) -> None:
    """``CREATE TABLE IF NOT EXISTS`` the stream numbers' table in the recorder's schema (called
    under the store's table-creation lock)."""
    from psycopg.sql import SQL, Identifier

    datastore: Any = getattr(recorder, "datastore")  # noqa: B009
    query = SQL(
        "CREATE TABLE IF NOT EXISTS {}.{} (n BIGSERIAL PRIMARY KEY, match_id TEXT NOT NULL UNIQUE)"
    ).format(Identifier(datastore.schema), Identifier(STREAMS_TABLE))
    with datastore.transaction(commit=True) as cursor:
        cursor.execute(query)


class _MemoryTable:
    """The in-memory store's stream numbers, shared by its handles."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.numbers: dict[str, int] = {}
        self.matches: dict[int, str] = {}


_MEMORY_TABLES: weakref.WeakKeyDictionary[InfrastructureFactory[Any], _MemoryTable] = (
    weakref.WeakKeyDictionary()
)
_MEMORY_LOCK = threading.Lock()


def _memory_table(factory: InfrastructureFactory[Any]) -> _MemoryTable:
    with _MEMORY_LOCK:
        table = _MEMORY_TABLES.get(factory)
        if table is None:
            table = _MEMORY_TABLES[factory] = _MemoryTable()
        return table
