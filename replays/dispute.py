"""The dispute log: every event with when it was recorded and who caused it (support only)."""

from __future__ import annotations

import msgspec

from domain.events import event_tag
from domain.redaction import SUPPORT
from replays.cursor import MatchCursor, Viewer
from replays.words import describe, describe_cause


class DisputeEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One event: seq, record time, cause (support only), request id and the action in words."""

    seq: int
    at: str
    type: str
    caused_by: str | None
    cause: str | None
    request_id: str | None
    action: str


def dispute_log(cursor: MatchCursor, viewer: Viewer = SUPPORT) -> list[DisputeEntry]:
    """Who did what, when, for every event; causes and request ids are shown to support only."""
    entries = []
    for seq in range(1, cursor.last_seq + 1):
        position = cursor.position(seq, viewer)
        entries.append(
            DisputeEntry(
                seq=seq,
                at=position.at,
                type=event_tag(position.event),
                caused_by=position.caused_by,
                cause=describe_cause(position.caused_by) if viewer == SUPPORT else None,
                request_id=position.request_id,
                action=describe(position.event, viewer),
            )
        )
    return entries


def render_log(entries: list[DisputeEntry]) -> str:
    """The log as text, one event a line: seq, time, cause, request, action."""
    lines = []
    for entry in entries:
        parts = [f"{entry.seq:>4}", entry.at]
        if entry.cause is not None:
            parts.append(entry.cause)
        if entry.request_id is not None:
            parts.append(f"request {entry.request_id}")
        parts.append(entry.action)
        lines.append("  ".join(parts))
    return "\n".join(lines) + ("\n" if lines else "")
