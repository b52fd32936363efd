"""Rows written to a read model's table in one statement."""

from __future__ import annotations

from typing import Any

import sqlite_utils


def insert_rows(
    db: sqlite_utils.Database, table: str, rows: list[dict[str, Any]], *, replace: bool = False
) -> None:
    """Insert ``rows`` (dicts of SQLite values, all with the same keys) in one statement.

    sqlite-utils' ``insert_all`` converts every value it writes, which took about half a
    batch's time in the results projection; these rows hold SQLite values already.
    """
    if not rows:
        return
    columns = list(rows[0])
    verb = "INSERT OR REPLACE" if replace else "INSERT"
    names = ", ".join(f"[{c}]" for c in columns)
    marks = ", ".join("?" * len(columns))
    db.conn.executemany(
        f"{verb} INTO [{table}] ({names}) VALUES ({marks})",
        [[row[c] for c in columns] for row in rows],
    )
