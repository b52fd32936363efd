"""Which store opens: SQLite by default, PostgreSQL by URL or eventsourcing's variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import (
    PostgresSettings,
    StoreConfig,
    parse_database_url,
    readmodel_path,
    resolve_store,
)


def test_sqlite_is_the_default_in_the_current_folder() -> None:
    config = resolve_store(environ={})
    assert config == StoreConfig(kind="sqlite", sqlite_path=Path("basra.db"), synchronous="FULL")


def test_db_then_basra_db_then_the_default() -> None:
    env = {"BASRA_DB": "/data/env.db"}
    assert resolve_store(Path("given.db"), environ=env).sqlite_path == Path("given.db")
    assert resolve_store(environ=env).sqlite_path == Path("/data/env.db")


def test_a_database_url_selects_postgresql_over_any_file() -> None:
    url = "postgresql://basra:s3cret@db.local:6543/games?schema=league"
    for config in (
        resolve_store(Path("given.db"), url, environ={}),
        resolve_store(Path("given.db"), environ={"BASRA_DATABASE_URL": url}),
    ):
        assert config.kind == "postgres"
        assert config.postgres == PostgresSettings(
            dbname="games",
            host="db.local",
            port="6543",
            user="basra",
            password="s3cret",
            schema="league",
        )
        assert "s3cret" not in config.identity()


def test_eventsourcing_postgres_variables_select_postgresql() -> None:
    env = {
        "POSTGRES_DBNAME": "test",
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
        "POSTGRES_SCHEMA": "s1",
    }
    config = resolve_store(environ=env)
    assert config.kind == "postgres" and config.postgres is not None
    assert (config.postgres.dbname, config.postgres.schema, config.postgres.port) == (
        "test",
        "s1",
        "5432",
    )


def test_bad_settings_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        parse_database_url("mysql://root@localhost/x")
    with pytest.raises(ValueError, match="names no database"):
        parse_database_url("postgresql://postgres@localhost")
    with pytest.raises(ValueError, match="FULL or NORMAL"):
        resolve_store(environ={"BASRA_SQLITE_SYNCHRONOUS": "OFF"})
    assert resolve_store(environ={"BASRA_SQLITE_SYNCHRONOUS": "normal"}).synchronous == "NORMAL"


def test_read_models_live_beside_the_store_or_where_told() -> None:
    sqlite = resolve_store(Path("/srv/basra/basra.db"), environ={})
    assert readmodel_path(sqlite, {}) == Path("/srv/basra/basra.readmodels.sqlite3")
    assert readmodel_path(sqlite, {"BASRA_READMODELS": "/tmp/r.sqlite3"}) == Path("/tmp/r.sqlite3")
    pg = resolve_store(database_url="postgresql://postgres@h/db?schema=a", environ={})
    other = resolve_store(database_url="postgresql://postgres@h/db?schema=b", environ={})
    cache = {"XDG_CACHE_HOME": "/var/cache"}
    assert readmodel_path(pg, cache).parent == Path("/var/cache/basra")
    assert readmodel_path(pg, cache) != readmodel_path(other, cache)
