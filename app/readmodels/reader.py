"""The ``matches`` read model read with sqlite3 alone, when it has nothing left to fold.

``basra matches`` first brings the read models up to the log (app.readmodels.models, with
sqlite-utils), then lists them. When the file already follows this store at the log's last
position there is nothing to fold, and this module answers the same query without loading
sqlite-utils or the store. Anything else (no file, another store, another schema, entries
not folded yet) answers None, and the caller takes the full path. It never writes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.readmodels.matches import MatchSummaryView, view_of
from app.readmodels.players import shown_name

SCHEMA_VERSION = "5"
"""The read models' schema this reader understands (app.readmodels.models.SCHEMA_VERSION)."""

PROJECTION = "matches"
"""The name the ``matches`` projection tracks its position under
(app.readmodels.models.PROJECTION)."""


def fresh_matches(
    path: Path,
    identity: str,
    log_position: int,
    *,
    status: str | None = None,
    limit: int | None = None,
) -> list[MatchSummaryView] | None:
    """Rows of ``matches``, newest first, when ``path`` has folded the log up to
    ``log_position`` of the store named ``identity``; None when it has not (or cannot say)."""
    if not path.is_file():
        return None
    uri = path.resolve().as_uri() + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=10.0)
    try:
        connection.row_factory = sqlite3.Row
        connection.execute("BEGIN")  # one snapshot: the position and the rows agree
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("store") != identity or meta.get("schema") != SCHEMA_VERSION:
            return None
        found = connection.execute(
            "SELECT position FROM positions WHERE name = ?", (PROJECTION,)
        ).fetchone()
        if found is None or int(found[0]) != log_position:
            return None
        where = "WHERE status = ? " if status else ""
        query = f"SELECT * FROM matches {where}ORDER BY created desc, match_id"
        params: list[str | int] = [status] if status else []
        if limit is not None:
            query += " LIMIT ?"
            params.append(limit)
        rows = connection.execute(query, params).fetchall()
        return [view_of(dict(row)) for row in rows]
    except sqlite3.Error:
        return None  # the full path says what is wrong, in its own words
    finally:
        connection.close()


def fresh_names(path: Path, versions: dict[str, int]) -> dict[str, str] | None:
    """The name each player of ``versions`` shows under, from the ``players`` directory, when it
    holds every one of them at exactly that stream version; None when any is missing or behind.

    ``versions`` is each player's last seq in the store: the directory has no tracked position
    (the players' streams have no global order), so it is fresh for these players only when it
    has folded each of their streams to its end.
    """
    if not versions:
        return {}
    uri = path.resolve().as_uri() + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=10.0)
    try:
        connection.row_factory = sqlite3.Row
        ids = sorted(versions)
        names: dict[str, str] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            query = (
                f"SELECT player_id, name, erased, version FROM players WHERE player_id IN ({marks})"
            )
            for row in connection.execute(query, chunk).fetchall():
                if int(row["version"]) == versions[row["player_id"]]:
                    names[row["player_id"]] = shown_name(dict(row))
        return names if len(names) == len(versions) else None
    except sqlite3.Error:
        return None  # the full path says what is wrong, in its own words
    finally:
        connection.close()


_CHUNK = 500  # ids per query, well under SQLite's limit on bound parameters
