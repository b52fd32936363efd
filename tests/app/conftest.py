"""Shared fixtures: the same store contract on memory, a SQLite file and PostgreSQL.

``store`` is parametrized over the three stores; PostgreSQL runs when ``BASRA_TEST_POSTGRES``
holds a DSN (``.ci/run`` always sets it) and is skipped only when it is unset. Every PostgreSQL
test gets its own schema, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from app.config import PostgresSettings, StoreConfig, parse_database_url
from app.service import MatchService
from app.store.match_store import MatchStore
from app.store.postgres import drop_schema

POSTGRES_DSN = os.environ.get("BASRA_TEST_POSTGRES")
"""The test PostgreSQL server, e.g. postgresql://postgres@127.0.0.1:5432/test."""

STORE_KINDS = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
"""The stores every contract test runs against."""


def postgres_url(settings: PostgresSettings) -> str:
    """A BASRA_DATABASE_URL for ``settings`` (schema included)."""
    auth = settings.user + (f":{settings.password}" if settings.password else "")
    return (
        f"postgresql://{auth}@{settings.host}:{settings.port}/{settings.dbname}"
        f"?schema={settings.schema}"
    )


@pytest.fixture
def postgres_settings() -> Iterator[PostgresSettings]:
    """A fresh schema on the test server, dropped after the test."""
    if not POSTGRES_DSN:
        pytest.skip("BASRA_TEST_POSTGRES is not set")
    schema = f"basra_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    settings = msgspec.structs.replace(parse_database_url(POSTGRES_DSN), schema=schema)
    yield settings
    drop_schema(settings)


@pytest.fixture(params=STORE_KINDS)
def store_config(request: pytest.FixtureRequest, tmp_path: Path) -> StoreConfig:
    """Where the store under test lives: memory, a SQLite file in tmp_path, or a PG schema."""
    kind = request.param
    if kind == "postgres":
        settings: PostgresSettings = request.getfixturevalue("postgres_settings")
        return StoreConfig(kind="postgres", postgres=settings)
    if kind == "sqlite":
        return StoreConfig(kind="sqlite", sqlite_path=tmp_path / "store" / "basra.db")
    return StoreConfig(kind="memory")


@pytest.fixture
def store(store_config: StoreConfig) -> Iterator[MatchStore]:
    """An empty store of each kind, closed after the test."""
    opened = MatchStore.open(store_config)
    yield opened
    opened.close()


@pytest.fixture
def other_store(store: MatchStore) -> Iterator[MatchStore]:
    """A second handle on the same database, with its own connections (another process)."""
    second = store.reopen()
    yield second
    if second.kind != "memory":
        second.close()


@pytest.fixture
def service(store: MatchStore) -> MatchService:
    """A MatchService over ``store``."""
    return MatchService(store)


@pytest.fixture
def other_service(other_store: MatchStore) -> MatchService:
    """A second MatchService on the same database (another API process)."""
    return MatchService(other_store)


@pytest.fixture
def sqlite_service(tmp_path: Path) -> Iterator[MatchService]:
    """A MatchService on a SQLite file, for tests that need a file."""
    opened = MatchService.open(tmp_path / "basra.db")
    yield opened
    opened.close()


@pytest.fixture
def make_service(tmp_path: Path) -> Iterator[Callable[[str], MatchService]]:
    """Open MatchServices on named SQLite files in tmp_path; all closed after the test."""
    opened: list[MatchService] = []

    def make(name: str) -> MatchService:
        service = MatchService.open(tmp_path / name)
        opened.append(service)
        return service

    yield make
    for service in opened:
        service.close()
