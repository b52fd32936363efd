"""A recorded event: one entry of a match stream with its seq, record time and cause.

The same record is what the event store keeps (app.store) and what the replay tooling steps
through, checks and writes (replays), so it lives here, below both: ``RecordedEvent``, the
numbering every stream keeps (``misnumbered``), and the one JSON line an event is shown as to a
viewer (``event_line``: a replay file's event lines and the live feed's messages,
docs/replay-format.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from domain.chain import sealed_hash
from domain.events import EVENT_ENCODER, Event
from domain.redaction import SUPPORT, redact_event


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event at its ``seq`` (1-based, gapless) in a match stream, with when and who caused it.

    ``at`` is the UTC time it was recorded (RFC 3339 with microseconds and ``Z``); ``caused_by``
    says who caused it (``seat:N/token:ID``, ``bot:N``, ``server``, ``import``) and
    ``request_id`` the request it came from; both are for support only. ``chain`` is the
    stream's hash chain link after this event (domain.chain; None in a stream recorded before
    the chain or imported without one); ``sealed`` is the hash of the support-only fields as a
    file gave it, kept for an imported event (None: computed from the event's own fields).
    """

    seq: int
    at: str
    event: Event
    caused_by: str | None = None
    request_id: str | None = None
    chain: str | None = None
    sealed: str | None = None


def misnumbered(seqs: Iterable[int]) -> tuple[int, int] | None:
    """The first ``(found, expected)`` where ``seqs`` stop running 1, 2, 3… (a gap or a
    repeat), or None when every seq is where it belongs."""
    for expected, found in enumerate(seqs, 1):
        if found != expected:
            return found, expected
    return None


def event_line(recorded: RecordedEvent, viewer: int, revealed: bool) -> bytes:
    """One event line: ``seq``, ``type``, ``at`` and the event's fields, redacted for ``viewer``."""
    event = redact_event(recorded.event, viewer, revealed)
    body = EVENT_ENCODER.encode(event)
    prefix: dict[str, Any] = {"seq": recorded.seq, "at": recorded.at}
    if viewer == SUPPORT and recorded.caused_by is not None:
        prefix["caused_by"] = recorded.caused_by
    if viewer == SUPPORT and recorded.request_id is not None:
        prefix["request_id"] = recorded.request_id
    head = EVENT_ENCODER.encode(prefix)
    # Merge {"seq":..,"at":..} with {"type":..,...}: seq first, as the replay format shows it.
    line = head[:-1] + b"," + body[1:]
    if recorded.chain is None:
        return line
    # The chain link and the hash of the support-only fields close every line of a chained
    # stream, for every viewer: blinded by the secret, they show no hidden card (chain.py).
    sealed = recorded.sealed if recorded.sealed is not None else sealed_hash(recorded)
    links = EVENT_ENCODER.encode({"sealed": sealed, "chain": recorded.chain})
    return line[:-1] + b"," + links[1:]
