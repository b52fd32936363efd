"""End-to-end fixtures: a fresh PostgreSQL schema's URL (skipped without BASRA_TEST_POSTGRES)."""

from __future__ import annotations

import pytest

from app.config import PostgresSettings
from tests.app.conftest import postgres_settings, postgres_url

__all__ = ["pg_url", "postgres_settings"]


@pytest.fixture
def pg_url(postgres_settings: PostgresSettings) -> str:
    """A BASRA_DATABASE_URL for a fresh schema, dropped after the test."""
    return postgres_url(postgres_settings)
