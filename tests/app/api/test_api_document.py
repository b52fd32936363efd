"""The served OpenAPI document says what the API does: bodies, parameters, media types."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from domain.rulesets import RULESETS

BODY_ROUTES = [
    ("/matches", "post"),
    ("/matches/{match_id}/seats/{seat}", "post"),
    ("/matches/{match_id}/preview", "post"),
    ("/matches/{match_id}/plays", "post"),
    ("/players", "post"),
    ("/players/me", "patch"),
]

OPTIONAL_BODIES = {("/matches/{match_id}/seats/{seat}", "post")}
"""A registered player takes a seat with their token alone: the body may be left out."""

SEAT_QUERY_ROUTES = [
    ("/matches/{match_id}/view", "get"),
    ("/matches/{match_id}/preview", "post"),
    ("/matches/{match_id}/plays", "post"),
    ("/matches/{match_id}/leave", "post"),
    ("/matches/{match_id}/events", "get"),
]


@pytest.fixture
def document(client: TestClient[Litestar]) -> dict[str, Any]:
    """``/schema/openapi.json`` as served."""
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    return dict(response.json())


def _body(document: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    operation = document["paths"][path][method]
    body = operation["requestBody"]
    assert body["required"] is ((path, method) not in OPTIONAL_BODIES)
    return dict(body["content"]["application/json"]["schema"])


@pytest.mark.parametrize(("path", "method"), BODY_ROUTES)
def test_every_body_is_declared_and_refuses_unknown_fields(
    document: dict[str, Any], path: str, method: str
) -> None:
    schema = _body(document, path, method)

    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"]


def test_a_new_match_body_states_the_rules_limits(document: dict[str, Any]) -> None:
    properties = _body(document, "/matches", "post")["properties"]

    assert properties["ruleset"]["enum"] == list(RULESETS)
    assert properties["seats"]["enum"] == [2, 4]
    bots = properties["bots"]
    assert bots["items"] == {
        "description": "a seat number, 0-based",
        "type": "integer",
        "minimum": 0,
        "maximum": 3,
    }
    assert bots["uniqueItems"] is True
    target = next(s for s in properties["target"]["anyOf"] if s.get("type") == "integer")
    assert (target["minimum"], target["maximum"]) == (1, 1000)


@pytest.mark.parametrize(("path", "method"), SEAT_QUERY_ROUTES)
def test_seat_query_routes_document_their_422(
    document: dict[str, Any], path: str, method: str
) -> None:
    operation = document["paths"][path][method]
    seat = next(p for p in operation["parameters"] if p["name"] == "seat")

    assert seat["in"] == "query"
    assert seat["schema"]["type"] == "integer"
    assert "oneOf" not in seat["schema"]
    assert "422" in operation["responses"]


def test_the_seat_in_the_path_is_an_integer_from_0_to_3(document: dict[str, Any]) -> None:
    operation = document["paths"]["/matches/{match_id}/seats/{seat}"]["post"]
    seat = next(p for p in operation["parameters"] if p["name"] == "seat")

    assert seat["in"] == "path" and seat["required"] is True
    assert (seat["schema"]["type"], seat["schema"]["minimum"], seat["schema"]["maximum"]) == (
        "integer",
        0,
        3,
    )


def test_the_live_feed_is_an_event_stream(document: dict[str, Any]) -> None:
    ok = document["paths"]["/matches/{match_id}/events"]["get"]["responses"]["200"]

    assert list(ok["content"]) == ["text/event-stream"]


def test_health_documents_its_503(document: dict[str, Any]) -> None:
    assert "503" in document["paths"]["/health"]["get"]["responses"]


def test_no_schema_uses_the_pre_3_1_tuple_form(document: dict[str, Any]) -> None:
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            assert not isinstance(node.get("items"), list), node
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)


def test_every_route_that_reads_a_body_documents_its_413(document: dict[str, Any]) -> None:
    # given every operation that declares a request body (a body over the size limit is 413)
    with_bodies = [
        (path, method, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "requestBody" in operation
    ]
    assert any(path.endswith("/verification") for path, _, _ in with_bodies)
    # then each documents the 413 in the one error shape
    for path, method, operation in with_bodies:
        assert "413" in operation["responses"], f"{method.upper()} {path}"
