"""Fixtures of the HTTP API tests: a real MatchService on a SQLite file (or PostgreSQL), the app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from app.api.app import create_app
from app.api.edges.limits_config import NO_LIMITS
from app.api.settings import ApiSettings
from app.config import PostgresSettings
from app.service import MatchService
from tests.app.api.helpers import SUPPORT_TOKEN, bearer
from tests.app.conftest import postgres_url


@pytest.fixture
def api_settings() -> ApiSettings:
    """Test mode (seeds allowed), a support token, short keep-alives, a quick follower, and no
    abuse limits: these tests make many matches and wrong tokens quickly from one address (the
    limits have tests of their own, test_api_limits.py)."""
    return ApiSettings(
        support_token=SUPPORT_TOKEN,
        test_mode=True,
        keepalive_seconds=1.0,
        follow_every_seconds=0.05,
        limits=NO_LIMITS,
    )


@pytest.fixture
def api_db(tmp_path: Path) -> Path:
    """The SQLite file of the API under test."""
    return tmp_path / "api" / "basra.db"


@pytest.fixture
def api_service(api_db: Path) -> Iterator[MatchService]:
    """A MatchService on a fresh SQLite file."""
    service = MatchService.open(api_db)
    yield service
    service.close()


@pytest.fixture
def pg_url(postgres_settings: PostgresSettings) -> str:
    """A PostgreSQL URL for a fresh schema (skipped without BASRA_TEST_POSTGRES)."""
    return postgres_url(postgres_settings)


@pytest.fixture
def api_app(api_service: MatchService, api_settings: ApiSettings) -> Litestar:
    """The app over the SQLite service."""
    return create_app(api_service, settings=api_settings)


@pytest.fixture
def client(api_app: Litestar) -> Iterator[TestClient[Litestar]]:
    """Litestar's test client on the app (lifespan run)."""
    with TestClient(api_app) as test_client:
        yield test_client


class Api:
    """Small steps through the API, each checking its status, for readable tests."""

    def __init__(self, client: TestClient[Litestar]) -> None:
        self.client = client

    def create(self, expect: int = 201, **body: Any) -> dict[str, Any]:
        """POST /matches."""
        body.setdefault("ruleset", "classic")
        body.setdefault("seats", 2)
        response = self.client.post("/matches", json=body)
        assert response.status_code == expect, response.text
        return dict(response.json())

    def sit(self, match_id: str, seat: int, name: str = "Amal") -> str:
        """Take a seat; the token."""
        response = self.client.post(f"/matches/{match_id}/seats/{seat}", json={"name": name})
        assert response.status_code == 201, response.text
        return str(response.json()["token"])

    def view(self, match_id: str, token: str) -> dict[str, Any]:
        """GET the seat's view."""
        response = self.client.get(f"/matches/{match_id}/view", headers=bearer(token))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def play(self, match_id: str, token: str, card: str, **extra: Any) -> Any:
        """POST a play; the raw response."""
        headers = bearer(token) | extra.pop("headers", {})
        return self.client.post(
            f"/matches/{match_id}/plays", json={"card": card, **extra}, headers=headers
        )

    def support_view(self, match_id: str) -> dict[str, Any]:
        """Support's view."""
        response = self.client.get(f"/matches/{match_id}/view", headers=bearer(SUPPORT_TOKEN))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def practice(self, seed: str = "practice", seats: int = 2, **body: Any) -> tuple[str, str]:
        """A practice match: seat 0 a person, the others bots; (match id, seat 0's token)."""
        created = self.create(seats=seats, bots=list(range(1, seats)), seed=seed, **body)
        return created["match_id"], self.sit(created["match_id"], 0)


@pytest.fixture
def api(client: TestClient[Litestar]) -> Api:
    """Steps through the API."""
    return Api(client)
