"""A recorded event: one line of a match stream with its position, time and cause."""

from __future__ import annotations

import msgspec

from domain.events import Event


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event at its ``seq`` (1-based, gapless) in a match stream, with when and who caused it.

    ``at`` is the UTC time it was recorded (RFC 3339 with microseconds and ``Z``); ``caused_by``
    says who caused it (``seat:N/token:ID``, ``bot:N``, ``server``, ``import``) and
    ``request_id`` the request it came from; both are for support only.
    """

    seq: int
    at: str
    event: Event
    caused_by: str | None = None
    request_id: str | None = None
