"""Litestar's exception handlers: every error leaves the API in the one shape.

A project error gets its code, message and the status of its cause (``status_of``);
Litestar's own errors (routing, body size, parameter validation) get the API's codes; anything
else is logged in full and answered with a generic 500 that says nothing about the match.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from app.api.edges.errors import (
    INTERNAL_ERROR,
    ApiError,
    BodyTooLargeError,
    ErrorBody,
    ErrorDetail,
    InvalidValueError,
    MalformedJsonError,
    MethodNotAllowedError,
    MissingBodyError,
    RouteNotFoundError,
    status_of,
)
from domain.errors import BasraError

log = logging.getLogger("basra.api")


def error_response(code: str, message: str, status: int) -> Response[ErrorBody]:
    """The one error shape."""
    return Response(ErrorBody(ErrorDetail(code, message)), status_code=status)


def _from_validation(exc: ValidationException) -> ApiError:
    """Litestar's own validation (a body or parameter it decoded): where, and what it said."""
    extra: Any = exc.extra
    items = extra if isinstance(extra, list) else []
    first = items[0] if items and isinstance(items[0], dict) else {}
    key = first.get("key")
    if key == "data" and first.get("source") == "body":
        return MissingBodyError("this route needs a JSON body")
    where = f" (at {key})" if key else ""
    return InvalidValueError(f"{first.get('message', exc.detail)}{where}")


def _from_http(exc: HTTPException) -> ApiError | Response[ErrorBody]:
    """Litestar's error as the API's own, by its type and status (never by its text)."""
    if isinstance(exc, ValidationException):
        return _from_validation(exc)
    status = exc.status_code
    if status == 404:
        return RouteNotFoundError("no such route")
    if status == 405:
        return MethodNotAllowedError("this route does not take that method")
    if status == 413:
        return BodyTooLargeError("the request body is too large")
    if status == 400:
        return MalformedJsonError(f"the body is not valid JSON: {exc.detail}")
    return error_response(f"http_{status}", str(exc.detail), status)


def handle_basra_error(request: Request[Any, Any, Any], exc: BasraError) -> Response[ErrorBody]:
    """A project error: its code, its message, and the status of its cause."""
    status = status_of(exc)
    if status is None:  # a class under no cause: a bug, not the client's fault
        return handle_unexpected(request, exc)
    if status >= 500:
        log.error("server error %s: %s", exc.code, exc.message)
    return error_response(exc.code, exc.message, status)


def handle_http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[ErrorBody]:
    """Litestar's own errors (routing, body size, validation) in the same shape."""
    found = _from_http(exc)
    if isinstance(found, Response):
        return found
    response = handle_basra_error(request, found)
    if exc.headers and "allow" in {name.lower() for name in exc.headers}:
        response.headers.update(exc.headers)  # a 405 names the methods the route takes
    return response


def handle_unexpected(_: Request[Any, Any, Any], exc: Exception) -> Response[ErrorBody]:
    """Anything else: logged in full on the server, a generic 500 for the client."""
    log.exception("unexpected error", exc_info=exc)
    return error_response(INTERNAL_ERROR, "the server failed to handle this request", 500)


EXCEPTION_HANDLERS: Final = {
    BasraError: handle_basra_error,
    HTTPException: handle_http_error,
    Exception: handle_unexpected,
}
"""The exception handlers of the app: every error leaves through here."""
