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

SCHEMA_VERSION = "4"
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
