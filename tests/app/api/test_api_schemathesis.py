"""The served OpenAPI document holds: generated requests to every route (schemathesis).

A real server on a free port; schemathesis reads its ``/schema/openapi.json`` and sends
requests that fit the document and requests that do not, anonymously and with a seat's token.
No response may be a 5xx, and every response must match what the document says: its status,
content type, body schema and headers. ``/events`` is left out here (a live stream stays open
until the match ends; its own tests cover it). Bounded by ``max_examples`` per route.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import Case
from schemathesis.checks import CheckFunction
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.api.app import create_app
from app.api.edges.limits_config import NO_LIMITS
from app.api.settings import ApiSettings
from app.service import MatchService
from tests.app.api.helpers import SUPPORT_TOKEN, HttpSteps, bearer, serving

NOT_CHECKED: list[CheckFunction] = [positive_data_acceptance]
"""Schemathesis's "a request that fits the document is accepted": the rules refuse some on
purpose, with a documented 422 (seat 3 of a two-seat table, a card that is not in the hand,
``201.0`` for a target, which JSON Schema counts as an integer but the strict decoder does
not). Every other check runs."""

EXAMPLES = 20
"""Generated requests per route and test (each test runs every route but the live feed)."""

COUNTS: dict[str, int] = {}
"""Requests sent, by test (printed with ``-s``)."""


class Served:
    """The server under test, its store, and a way to make a fresh seated match."""

    def __init__(self, url: str, service: MatchService) -> None:
        self.url = url
        self.service = service
        self.http = httpx.Client()

    def seated(self) -> tuple[str, str]:
        """A fresh practice match at seat 0: (match id, seat 0's token)."""
        steps = HttpSteps(self.http, self.url)
        created = steps.create(bots=[1])
        return str(created["match_id"]), steps.sit(created["match_id"], 0)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A real API server over a SQLite file, for the whole module."""
    db: Path = tmp_path_factory.mktemp("schemathesis") / "basra.db"
    service = MatchService.open(db)
    # Limits off: the run sends hundreds of requests from one address (test_api_limits.py).
    api_settings = ApiSettings(support_token=SUPPORT_TOKEN, test_mode=True, limits=NO_LIMITS)
    started = time.monotonic()
    try:
        with serving(create_app(service, settings=api_settings)) as server:
            target = Served(server.url, service)
            yield target
            target.http.close()
    finally:
        service.close()
    print(f"\nschemathesis: {COUNTS} requests in {time.monotonic() - started:.1f} s")


@pytest.fixture(scope="module")
def api_schema(served: Served) -> BaseSchema:
    """The document as served, without the endless live feed."""
    schema = schemathesis.openapi.from_url(f"{served.url}/schema/openapi.json")
    return schema.exclude(path="/matches/{match_id}/events")


SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _each_operation(api_schema: BaseSchema, check: Callable[[Case[Any]], None]) -> None:
    """Run ``check`` on generated cases of every operation, each under Hypothesis."""
    for result in api_schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]  # an invalid document raises here

        @given(case=operation.as_strategy())
        @SETTINGS
        def run(case: Case[Any]) -> None:
            check(case)

        run()


def test_anonymous_requests_get_no_5xx_and_fit_the_document(
    served: Served, api_schema: BaseSchema
) -> None:
    def check(case: Case[Any]) -> None:
        COUNTS["anonymous"] = COUNTS.get("anonymous", 0) + 1
        case.call_and_validate(base_url=served.url, excluded_checks=NOT_CHECKED)

    _each_operation(api_schema, check)


def test_seated_requests_get_no_5xx_and_fit_the_document(
    served: Served, api_schema: BaseSchema
) -> None:
    def check(case: Case[Any]) -> None:
        match_id, token = served.seated()
        if case.path_parameters and "match_id" in case.path_parameters:
            case.path_parameters["match_id"] = match_id
        COUNTS["seated"] = COUNTS.get("seated", 0) + 1
        case.call_and_validate(
            base_url=served.url, headers=bearer(token), excluded_checks=NOT_CHECKED
        )

    _each_operation(api_schema, check)
