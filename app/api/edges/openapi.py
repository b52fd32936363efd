"""OpenAPI pieces shared by the controllers: bodies, error responses and the bearer scheme."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import (
    Components,
    OpenAPI,
    OpenAPIMediaType,
    Operation,
    RequestBody,
    Schema,
    SecurityScheme,
)

from app.api.edges.errors import ErrorBody

_MEANING: Final = {
    400: "Malformed JSON, a missing body, a bad header or not a card (`malformed_json`, "
    "`missing_body`, `unknown_card`, …)",
    401: "No bearer token, or one this server did not issue (`missing_token`, `unknown_token`)",
    403: "A token of another match or seat, or a route for support only",
    405: "The route does not take this method (`method_not_allowed`; see the `Allow` header)",
    404: "No such match (`match_not_found`), player (`player_not_found`, `not_a_player`) or route",
    409: "Not now: not this seat's turn, the match moved on, the seat is taken, it has ended",
    413: "The body is too large (`body_too_large`)",
    422: "Well-formed but invalid: unknown field, wrong type, a seat that is not a seat number, "
    "card not in hand, …",
    429: "Too many requests (`rate_limited`), or more than 10 reports a day (`report_limit`)",
    503: "The event store cannot be reached (`store_unavailable`)",
}


def errors(*statuses: int) -> dict[int, ResponseSpec]:
    """The documented error responses of a route, all in the one error shape."""
    return {
        status: ResponseSpec(
            data_container=ErrorBody, description=_MEANING[status], generate_examples=False
        )
        for status in statuses
    }


BEARER: Final = "bearer"
"""The name of the bearer-token security scheme."""

COMPONENTS: Final = Components(
    security_schemes={
        BEARER: SecurityScheme(
            type="http",
            scheme="bearer",
            description="A seat's token from POST /matches/{id}/seats/{seat}, or the support token",
        )
    }
)
"""Components added to the schema."""

SEAT_SECURITY: Final[tuple[dict[str, list[str]], ...]] = ({BEARER: []},)
"""Routes that need a seat's (or support's) token."""

OPTIONAL_SECURITY: Final[tuple[dict[str, list[str]], ...]] = ({}, {BEARER: []})
"""Public routes that a seat's (or support's) token may also open: the table and its feed of a
table without spectators."""


def body_schema(body_type: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON Schema of a request body, inline, as the strict decoder enforces it.

    A struct nested in the body (the receipts of a verification) is inlined too: msgspec refers
    to it as ``#/$defs/…``, which means nothing inside the OpenAPI document (Redoc stops there).
    """
    generated = msgspec.json.schema(body_type)
    defs: dict[str, Any] = generated["$defs"]
    schema: dict[str, Any] = _inline_defs(defs[body_type.__name__], defs, ())
    return schema


def _inline_defs(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    """``node`` with every ``{"$ref": "#/$defs/Name"}`` below it replaced by that definition."""
    if isinstance(node, list):
        return [_inline_defs(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in seen:
            raise ValueError(f"a request body cannot nest {name} in itself")
        return _inline_defs(defs[name], defs, (*seen, name))
    return {key: _inline_defs(value, defs, seen) for key, value in node.items()}


def json_body(body_type: type[msgspec.Struct], *, required: bool = True) -> type[Operation]:
    """An Operation class declaring ``body_type`` as the route's JSON body (required or not).

    Handlers read their body themselves (app.api.edges.bodies), so Litestar sees no ``data``
    parameter and would document none; this puts the strict decoder's own schema in the document.
    """
    body = RequestBody(
        content={"application/json": OpenAPIMediaType(schema=body_schema(body_type))},  # type: ignore[arg-type]
        required=required,
        description=body_type.__doc__,
    )

    @dataclass
    class WithJsonBody(Operation):
        def __post_init__(self) -> None:
            self.request_body = body

    return WithJsonBody


def _pairs_as_arrays(schema: object) -> None:
    """Below ``schema``, a fixed-length array of one type becomes ``items`` with a length."""
    if not isinstance(schema, Schema):
        return
    prefix = list(schema.prefix_items or ())
    if prefix and schema.items is None and all(item == prefix[0] for item in prefix):
        schema.items, schema.prefix_items = prefix[0], None
        schema.min_items = schema.max_items = len(prefix)
    children: list[object] = [schema.items, *(schema.prefix_items or ())]
    children += [*(schema.properties or {}).values(), *(schema.one_of or ())]
    children += [*(schema.any_of or ()), *(schema.all_of or ())]
    for child in children:
        _pairs_as_arrays(child)


def fixed_length_arrays(openapi: OpenAPI) -> None:
    """A pair of cards (``tuple[str, str]``) is written ``{"items": string, "minItems": 2,
    "maxItems": 2}`` rather than with ``prefixItems``: the same values, in the form that every
    OpenAPI 3.1 tool reads (schemathesis turns ``prefixItems`` into the pre-2020 ``items: [..]``
    and then refuses its own rewrite). Rewritten in place, once, when the app is built."""
    components = openapi.components
    schemas = components.schemas if components is not None else None
    for schema in (schemas or {}).values():
        _pairs_as_arrays(schema)
