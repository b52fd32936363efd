"""PostgreSQL specifics: the store's schema must exist before eventsourcing creates tables."""

from __future__ import annotations

import contextlib

import psycopg
from psycopg import sql

from app.config import PostgresSettings
from app.errors import StoreUnavailableError


def connect(settings: PostgresSettings) -> psycopg.Connection[tuple[object, ...]]:
    """A plain autocommit connection, for administration (schemas), not for events."""
    try:
        return psycopg.connect(
            dbname=settings.dbname,
            host=settings.host,
            port=settings.port,
            user=settings.user,
            password=settings.password,
            autocommit=True,
            connect_timeout=5,
        )
    except psycopg.Error as error:
        raise StoreUnavailableError(
            f"cannot reach PostgreSQL at {settings.describe()}: {error}".strip()
        ) from None


def ensure_schema(settings: PostgresSettings) -> None:
    """``CREATE SCHEMA IF NOT EXISTS`` the settings' schema."""
    if settings.schema == "public":
        return
    # Another process creating the same schema at the same moment is not an error.
    with connect(settings) as connection, contextlib.suppress(psycopg.errors.UniqueViolation):
        connection.execute(
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(settings.schema))
        )


def drop_schema(settings: PostgresSettings) -> None:
    """Drop the settings' schema and everything in it (tests clean up with this)."""
    if settings.schema == "public":
        raise ValueError("refusing to drop the public schema")
    with connect(settings) as connection:
        connection.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(settings.schema))
        )
