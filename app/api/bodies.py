"""Strict JSON bodies: a wrong type is refused, never coerced (``"3"`` is not the number 3).

Litestar decodes a body leniently (it converts strings to numbers, as it must for query
strings); handlers declare the body for validation and the schema, then take it through here.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from app.api.auth import AnyRequest
from app.api.errors import MalformedJsonError, MissingBodyError, body_error

B = TypeVar("B", bound=msgspec.Struct)


async def strict_body(request: AnyRequest, body_type: type[B]) -> B:
    """The request body decoded strictly as ``body_type``, or the precise API error."""
    raw = await request.body()
    if not raw.strip():
        raise MissingBodyError("this route needs a JSON body")
    try:
        return msgspec.json.decode(raw, type=body_type, strict=True)
    except msgspec.ValidationError:
        raise body_error(raw, body_type) from None
    except msgspec.DecodeError as error:
        raise MalformedJsonError(f"the body is not valid JSON: {error}") from None
