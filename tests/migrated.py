"""Copies of the fixture stores in tests/data, migrated to today's stored form.

The fixture stores were written by earlier builds and are never changed: a test that opens one
copies it and runs ``basra store migrate``'s migration on the copy first, as an operator would
before serving it (docs/storage.md, "One stored form").
"""

from __future__ import annotations

import shutil
from pathlib import Path

from app.config import StoreConfig
from app.store.migration import MigrationReport, migrate

DATA = Path(__file__).parent / "data"
"""The fixture stores' folder."""


def migrated_copy(name: str, target: Path) -> Path:
    """``target``: a copy of the fixture store ``name`` (in tests/data), migrated."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / name, target)
    migrate_file(target)
    return target


def migrate_file(path: Path) -> MigrationReport:
    """Migrate the SQLite store at ``path``."""
    return migrate(StoreConfig(kind="sqlite", sqlite_path=path))
