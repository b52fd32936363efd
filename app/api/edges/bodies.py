"""Request bodies, decoded once and strictly: ``"3"`` is not the number 3, nothing is coerced.

Handlers declare no ``data`` parameter (Litestar would decode the body leniently first); they
read the raw body through ``read_body``, and the body's schema is declared in the OpenAPI
document by ``docs.json_body``. Every body that is not JSON, whatever the reason (bad syntax,
truncation, nesting too deep for the decoder), is 400 ``malformed_json``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from app.api.edges.auth import AnyRequest
from app.api.edges.errors import MalformedJsonError, MissingBodyError, body_error

B = TypeVar("B", bound=msgspec.Struct)

_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def _decoder(body_type: type[B]) -> msgspec.json.Decoder[B]:
    """One strict decoder per body type, built on first use (a dict insert: thread-safe)."""
    decoder = _DECODERS.get(body_type)
    if decoder is None:
        decoder = _DECODERS[body_type] = msgspec.json.Decoder(body_type, strict=True)
    return decoder


def decode_body(raw: bytes, body_type: type[B]) -> B:
    """``raw`` decoded strictly as ``body_type``, or the precise API error."""
    if not raw.strip():
        raise MissingBodyError("this route needs a JSON body")
    try:
        return _decoder(body_type).decode(raw)
    except msgspec.ValidationError:
        raise body_error(raw, body_type) from None
    except msgspec.DecodeError as error:
        raise MalformedJsonError(f"the body is not valid JSON: {error}") from None
    except RecursionError:
        # msgspec decodes nesting recursively: ~1,000 brackets exhaust the stack.
        raise MalformedJsonError("the body is not valid JSON: nested too deeply") from None


async def read_body(request: AnyRequest, body_type: type[B]) -> B:
    """The request's body decoded strictly as ``body_type`` (it is read once, here)."""
    return decode_body(await request.body(), body_type)
