"""OpenAPI pieces shared by the controllers: the error responses and the bearer scheme."""

from __future__ import annotations

from typing import Final

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Components, SecurityScheme

from app.api.errors import ErrorBody

_MEANING: Final = {
    400: "Malformed JSON, a missing body or a bad header (`malformed_json`, `missing_body`, …)",
    401: "No bearer token, or one this server did not issue (`missing_token`, `unknown_token`)",
    403: "A token of another match or seat, or a route for support only",
    404: "No such match (`match_not_found`) or route",
    409: "Not now: not this seat's turn, the match moved on, the seat is taken, it has ended",
    413: "The body is too large (`body_too_large`)",
    422: "Well-formed but invalid: unknown field, wrong type, not a card, card not in hand, …",
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
