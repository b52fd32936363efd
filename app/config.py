"""Which store to open: an embedded SQLite file by default, PostgreSQL when configured."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit

import msgspec

DEFAULT_DB_FILE = "basra.db"
"""The embedded store's file in the current directory when nothing else is given."""

SYNCHRONOUS_MODES = ("FULL", "NORMAL")
"""SQLite ``synchronous`` settings the store accepts (always with ``journal_mode=WAL``)."""

DEFAULT_SYNCHRONOUS = "FULL"
"""An fsync per commit: an acknowledged play survives a power cut (docs/storage.md)."""

POSTGRES_KEYS = (
    "POSTGRES_DBNAME",
    "POSTGRES_HOST",
    "POSTGRES_PORT",
    "POSTGRES_USER",
    "POSTGRES_PASSWORD",
    "POSTGRES_SCHEMA",
)
"""eventsourcing's own PostgreSQL settings, read from the environment."""

StoreKind = Literal["memory", "sqlite", "postgres"]
"""The three stores the same code runs on."""


class PostgresSettings(msgspec.Struct, frozen=True):
    """Where the PostgreSQL store lives; ``schema`` holds its tables."""

    dbname: str
    host: str
    port: str = "5432"
    user: str = "postgres"
    password: str = ""
    schema: str = "public"

    def env(self) -> dict[str, str]:
        """eventsourcing's ``POSTGRES_*`` settings for these values."""
        return {
            "POSTGRES_DBNAME": self.dbname,
            "POSTGRES_HOST": self.host,
            "POSTGRES_PORT": self.port,
            "POSTGRES_USER": self.user,
            "POSTGRES_PASSWORD": self.password,
            "POSTGRES_SCHEMA": self.schema,
        }

    def describe(self) -> str:
        """Where it is, without the password."""
        where = f"{self.user}@{self.host}:{self.port}/{self.dbname}"
        return f"postgresql://{where} schema {self.schema}"


class StoreConfig(msgspec.Struct, frozen=True):
    """The resolved choice of store."""

    kind: StoreKind
    sqlite_path: Path | None = None
    postgres: PostgresSettings | None = None
    synchronous: str = DEFAULT_SYNCHRONOUS

    def identity(self) -> str:
        """A stable name for this store, so a read-model file knows which log it follows."""
        if self.sqlite_path is not None:
            return f"sqlite:{self.sqlite_path.resolve()}"
        if self.postgres is not None:
            return self.postgres.describe()
        return "memory"

    def describe(self) -> str:
        """The store, for people (never a password)."""
        if self.sqlite_path is not None:
            return f"SQLite {self.sqlite_path} (synchronous={self.synchronous})"
        if self.postgres is not None:
            return self.postgres.describe()
        return self.kind

    @property
    def serves_processes(self) -> bool:
        """Whether several server processes can share this store (PostgreSQL's only)."""
        return self.postgres is not None


def parse_database_url(url: str) -> PostgresSettings:
    """``postgresql://user:password@host:port/dbname?schema=NAME`` as settings."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(f"not a PostgreSQL URL (postgresql://...): {url.split('@')[-1]!r}")
    query = dict(parse_qsl(parts.query))
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise ValueError("the PostgreSQL URL names no database (postgresql://host/DBNAME)")
    return PostgresSettings(
        dbname=dbname,
        host=parts.hostname or "127.0.0.1",
        port=str(parts.port or 5432),
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        schema=query.get("schema", "public"),
    )


def postgres_from_env(environ: Mapping[str, str]) -> PostgresSettings | None:
    """eventsourcing's ``POSTGRES_*`` variables, when ``POSTGRES_DBNAME`` is set."""
    dbname = environ.get("POSTGRES_DBNAME")
    if not dbname:
        return None
    return PostgresSettings(
        dbname=dbname,
        host=environ.get("POSTGRES_HOST", "127.0.0.1"),
        port=environ.get("POSTGRES_PORT", "5432"),
        user=environ.get("POSTGRES_USER", "postgres"),
        password=environ.get("POSTGRES_PASSWORD", ""),
        schema=environ.get("POSTGRES_SCHEMA") or "public",
    )


def resolve_store(
    db: Path | None = None,
    database_url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> StoreConfig:
    """The store to open.

    PostgreSQL when ``database_url`` is given, else ``$BASRA_DATABASE_URL``, else eventsourcing's
    ``POSTGRES_*`` variables; otherwise the SQLite file ``db``, else ``$BASRA_DB``, else
    ``./basra.db``. ``$BASRA_SQLITE_SYNCHRONOUS`` picks FULL (default) or NORMAL.
    """
    env = os.environ if environ is None else environ
    url = database_url or env.get("BASRA_DATABASE_URL")
    if url:
        return StoreConfig(kind="postgres", postgres=parse_database_url(url))
    settings = postgres_from_env(env)
    if settings is not None:
        return StoreConfig(kind="postgres", postgres=settings)
    if db is None:
        db = Path(env.get("BASRA_DB") or DEFAULT_DB_FILE)
    synchronous = (env.get("BASRA_SQLITE_SYNCHRONOUS") or DEFAULT_SYNCHRONOUS).upper()
    if synchronous not in SYNCHRONOUS_MODES:
        raise ValueError(f"BASRA_SQLITE_SYNCHRONOUS must be FULL or NORMAL, not {synchronous!r}")
    return StoreConfig(kind="sqlite", sqlite_path=db, synchronous=synchronous)


def existing_store(config: StoreConfig) -> StoreConfig:
    """``config`` when its store exists: a SQLite file is never created by a reader.

    PostgreSQL is taken as it is (its schema is made when first opened).
    """
    if config.sqlite_path is not None and not config.sqlite_path.is_file():
        from app.errors import StoreMissingError

        raise StoreMissingError(str(config.sqlite_path))
    return config


def readmodel_path(config: StoreConfig, environ: Mapping[str, str] | None = None) -> Path:
    """The read models' own SQLite file: ``$BASRA_READMODELS``, else one beside the store.

    With PostgreSQL each host keeps its own cache file (in ``$XDG_CACHE_HOME/basra``), named
    after the database and schema it follows; it is rebuilt from the shared log when missing.
    """
    env = os.environ if environ is None else environ
    explicit = env.get("BASRA_READMODELS")
    if explicit:
        return Path(explicit)
    if config.sqlite_path is not None:
        path = config.sqlite_path
        return path.with_name(f"{path.stem}.readmodels.sqlite3")
    cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "basra"
    import hashlib  # only a PostgreSQL store's cache file is named by a digest

    digest = hashlib.sha256(config.identity().encode()).hexdigest()[:12]
    return cache / f"readmodels-{digest}.sqlite3"
