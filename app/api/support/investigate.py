"""A match's investigation page for support: the replay with every hand, and one timeline of
what happened and what was refused (µs, who, request id, deadline in force, lateness), the
feeds' presence, the turn clock's fires and each bot play re-derived from its seat's view.

The timeline merges three stores of fact by time: the match stream (what happened), the
refused-command records and the presence records (app.service.desk_records). A bot play (or the
clock's, R25) is marked by re-adjudicating the stream as ``verify --bots`` does: every bot play
before the first divergence was re-derived and matched, the one at it differs.
"""

from __future__ import annotations

from typing import Any

import msgspec

from app.api.support.schemas import InvestigationResponse, RefusedResponse, TimelineEntry
from app.api.table.ops import event_lines
from app.runtime.runtime import ApiRuntime
from domain.events import CardPlayed, FloorDealt, MatchCreated, MatchEnded, optional
from domain.redaction import SUPPORT
from domain.times import utc_micros, utc_text_us


def refused_of(runtime: ApiRuntime, match_id: str) -> RefusedResponse:
    """The refused commands kept of the match (404 for an unknown match)."""
    runtime.service.load(match_id)
    kept = runtime.desk_records.refused(match_id)
    return RefusedResponse(match_id, kept.records, kept.dropped)


def _bot_marks(match_id: str, recorded: list[Any]) -> tuple[dict[int, str], dict[str, Any]]:
    """Each bot or clock play's mark by seq, and the verification (chain and rules)."""
    from replays.verification import verify_stream

    # A strong bot's pick costs its whole budget to re-run: the page marks it legal_only and
    # ``basra verify --bots`` re-runs it; every other bot play (and the clock's) is re-derived.
    result = verify_stream(match_id, recorded, [])
    diverged = result.divergence.seq if result.divergence is not None else None
    kinds: dict[int, str] = {}
    for r in recorded:
        if isinstance(r.event, MatchCreated):
            kinds = {s: k for s, k in enumerate(_seat_kinds(r.event)) if k is not None}
    marks: dict[int, str] = {}
    for r in recorded:
        event = r.event
        if not isinstance(event, CardPlayed):
            continue
        kind = kinds.get(event.seat)
        if kind is None and not event.auto:
            continue
        if diverged is not None and r.seq > diverged:
            marks[r.seq] = "unchecked"
        elif diverged is not None and r.seq == diverged:
            marks[r.seq] = "differs"
        elif kind == "strong":
            marks[r.seq] = "legal_only"
        else:
            marks[r.seq] = "matches"
    return marks, msgspec.to_builtins(result)


def _seat_kinds(created: MatchCreated) -> list[str | None]:
    """Each seat's bot kind (None for a person's seat)."""
    kinds = created.bot_kinds if isinstance(created.bot_kinds, dict) else {}
    return [
        (kinds.get(str(seat), created.bot_kind) if seat in created.bots else None)
        for seat in range(created.seats)
    ]


def investigate(runtime: ApiRuntime, match_id: str) -> InvestigationResponse:
    """Everything about the match for support (404 for an unknown match)."""
    service = runtime.service
    recorded = service.events(match_id)
    if not recorded:
        service.load(match_id)  # raises MatchNotFoundError
    marks, verification = _bot_marks(match_id, recorded)
    timeline: list[TimelineEntry] = []
    in_force: str | None = None  # R25: the deadline the seat on turn had to play by
    for r in recorded:
        event = r.event
        at_us = utc_micros(r.at)
        seat = getattr(event, "seat", None)
        # The clock's play (four seats) and the clock's loss (two seats) show the deadline
        # that ran out, so "my card was played for me" is answered on the row itself.
        ran_out = (isinstance(event, CardPlayed) and event.auto) or (
            isinstance(event, MatchEnded) and event.reason == "timeout"
        )
        timeline.append(
            TimelineEntry(
                at_us=at_us,
                at=r.at,
                kind="event",
                what=str(type(event).__struct_config__.tag),
                seq=r.seq,
                seat=seat if isinstance(seat, int) else None,
                who=r.caused_by,
                request_id=r.request_id,
                clock=(r.caused_by or "").startswith("clock"),
                bot=marks.get(r.seq),
                deadline=in_force if ran_out else None,
            )
        )
        if isinstance(event, CardPlayed | FloorDealt):
            in_force = optional(event.deadline)
    refused = runtime.desk_records.refused(match_id)
    for c in refused.records:
        timeline.append(
            TimelineEntry(
                at_us=c.at_us,
                at=utc_text_us(c.at_us),
                kind="refused",
                what=c.code,
                seq=c.seq,
                seat=c.seat,
                who=c.principal,
                request_id=c.request_id,
                deadline=c.deadline,
                late_us=c.late_us,
            )
        )
    presence = runtime.desk_records.presence(match_id)
    for p in presence.records:
        timeline.append(
            TimelineEntry(
                at_us=p.at_us,
                at=utc_text_us(p.at_us),
                kind="connected" if p.__struct_config__.tag == "feed_connected" else "dropped",
                what="feed",
                seat=p.seat if p.seat >= 0 else None,
                who=p.principal,
            )
        )
    timeline.sort(key=lambda e: (e.at_us, e.seq or 0))
    cases = [c for c in runtime.desk.cases() if c.match_id == match_id]
    return InvestigationResponse(
        match_id=match_id,
        voided=match_id in runtime.desk.voided(),
        events=event_lines(recorded, SUPPORT),
        timeline=timeline,
        presence=presence.records,
        refused_dropped=refused.dropped,
        verification=verification,
        cases=cases,
    )
