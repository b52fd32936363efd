"""What every command shares without typer: messages, JSON, one-line errors, the viewer, the store.

Nothing here imports typer, eventsourcing or the HTTP API, so the read-only commands can start
from this module alone (cli.quick) and answer in a fraction of typer's start-up time; ``reading``
reads a SQLite store without eventsourcing at all.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cli.errors import InvalidOptionError, exit_code_of
from domain.errors import BasraError

if TYPE_CHECKING:
    from app.service import MatchService
    from domain.recorded import RecordedEvent

STATUSES = ("waiting", "playing", "ended")
"""The statuses ``basra matches --status`` accepts."""

INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


class Streams(Protocol):
    """What a read-only command needs of a store: whole streams, and which matches exist."""

    def events(self, match_id: str) -> list[RecordedEvent]:
        """The whole stream of ``match_id``; MatchNotFoundError when there is none."""
        ...

    def match_ids(self) -> list[str]:
        """Every stored match id, in the order the matches were created."""
        ...


def echo_err(message: str) -> None:
    """A message for people, on stderr (stdout is kept for ids and data)."""
    print(message, file=sys.stderr)


def dump_json(data: Any) -> None:
    """Print ``data`` as JSON on stdout."""
    import msgspec

    sys.stdout.write(msgspec.json.encode(data).decode() + "\n")


def os_error_words(error: OSError) -> str:
    """An OS error in words, naming the file: ``cannot write out.jsonl: file exists``."""
    reason = (error.strerror or str(error)).lower()
    if error.errno == errno.EEXIST and error.filename is not None:
        reason = "a file of that name exists" if Path(error.filename).is_file() else reason
    name = error.filename
    return f"{name}: {reason}" if name is not None else reason


def error_line(error: BaseException) -> tuple[str, int] | None:
    """The one line and exit status for a known error; None for a bug (shown in full)."""
    if isinstance(error, BasraError):
        return error.message, exit_code_of(error)
    if isinstance(error, OSError):
        return os_error_words(error), 1
    if isinstance(error, ValueError):
        return str(error), 1
    if isinstance(error, KeyboardInterrupt):
        return "interrupted", INTERRUPTED_EXIT
    return None


def report(error: BaseException) -> int | None:
    """Print a known error as ``error: …`` on one line of stderr; its exit status, or None."""
    found = error_line(error)
    if found is None:
        return None
    message, code = found
    echo_err("error: " + " ".join(message.split("\n")))
    return code


def viewer_of(as_seat: int | None, support: bool) -> int:
    """The viewer chosen by ``--as SEAT`` or ``--support`` (support when neither is given)."""
    from domain.redaction import SUPPORT

    if as_seat is not None and support:
        raise InvalidOptionError("give --as SEAT or --support, not both")
    if as_seat is not None and as_seat < 0:
        raise InvalidOptionError(f"--as takes a seat number from 0, not {as_seat}")
    return SUPPORT if as_seat is None else as_seat


def checked_status(status: str | None) -> str | None:
    """``--status`` when it is one of waiting, playing or ended."""
    if status is not None and status not in STATUSES:
        raise InvalidOptionError(
            f"unknown status {status!r}; choose {', '.join(STATUSES[:-1])} or {STATUSES[-1]}"
        )
    return status


@contextmanager
def opened(db: Path | None, *, create: bool = False) -> Iterator[MatchService]:
    """The store ``--db`` (or the environment) names, closed afterwards.

    Only ``create=True`` (simulate, import) may make a new SQLite file; every other command
    refuses a file that does not exist.
    """
    from app.config import existing_store, resolve_store
    from app.service import MatchService
    from app.store.match_store import MatchStore

    config = resolve_store(db)
    service = MatchService(MatchStore.open(config if create else existing_store(config)))
    try:
        yield service
    finally:
        service.close()


def uses_postgres() -> bool:
    """Whether the environment selects PostgreSQL instead of a SQLite file."""
    return bool(os.environ.get("BASRA_DATABASE_URL") or os.environ.get("POSTGRES_DBNAME"))


@contextmanager
def reading(db: Path | None) -> Iterator[Streams]:
    """The streams of the store ``--db`` (or the environment) names, for reading only.

    A SQLite file is read with sqlite3 alone (app.store.sqlite_reader, the table eventsourcing
    writes); PostgreSQL goes through the store. A file that does not exist is refused.
    """
    from app.config import existing_store, resolve_store

    config = existing_store(resolve_store(db))
    if config.sqlite_path is None:
        with opened(db) as service:
            yield service
        return
    from app.store.sqlite_reader import SQLiteStreams

    streams = SQLiteStreams(config.sqlite_path)
    try:
        yield streams
    finally:
        streams.close()
