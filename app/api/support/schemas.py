"""The bodies and answers of the support desk's routes (docs/api.md, "Support desk")."""

from __future__ import annotations

import msgspec

from app.readmodels.support_search import PlayerHit
from app.service.desk import CaseView, ReporterView, Suspension
from domain.desk import AnyDeskEvent, CommandRefused, FeedConnected, FeedDropped


class ReportRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /matches/{id}/reports``: a category and up to 1,000 characters of text."""

    category: str
    text: str = ""


class ReportResponse(msgspec.Struct, frozen=True):
    """The case the report opened or joined."""

    case_id: str


class MyReportsResponse(msgspec.Struct, frozen=True):
    """``GET /players/me/reports``: the player's own reports, status and answer only."""

    reports: list[ReporterView]


class ActionRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Every support action's body: a reason (never empty), optionally the case it serves."""

    reason: str | None = None
    case_id: str | None = None
    until: str | None = None
    """``suspend`` only: UTC in the replay format's form; left out, until lifted."""
    name: str | None = None
    """``rename`` only: the new name."""
    outcome: str | None = None
    """``close`` only: ``no_fault``, ``voided``, ``sanctioned`` or ``bug``."""
    evidence: str | None = None
    """``pins`` only: ``seq:N`` or a refused request's id."""
    text: str | None = None
    """``notes`` and ``answer``: the text (``reason`` is taken when it is left out)."""
    player: str | None = None
    """``forfeit`` only: the id of the player whose side forfeits."""
    seat: int | None = None
    """``forfeit`` only: the seat whose side forfeits (instead of, or with, ``player``)."""


class SessionRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /support/session``: a named agent's token, typed into the console's form."""

    token: str


class CasesResponse(msgspec.Struct, frozen=True):
    """The case queue, oldest first."""

    cases: list[CaseView]


class PlayersFound(msgspec.Struct, frozen=True):
    """``GET /support/players?q=``."""

    players: list[PlayerHit]


class RefusedResponse(msgspec.Struct, frozen=True):
    """``GET /support/matches/{id}/refused``: the refused commands kept and how many were not."""

    match_id: str
    refused: list[CommandRefused]
    dropped: int


class TimelineEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One thing that happened, or was refused, on a match, in time order (µs)."""

    at_us: int
    at: str
    kind: str
    """``event`` (with its type in ``what``), ``refused``, ``connected``, ``dropped``."""
    what: str
    seq: int | None = None
    seat: int | None = None
    who: str | None = None
    request_id: str | None = None
    deadline: str | None = None
    """A refused command's deadline in force, or the deadline that ran out for the clock's
    play (``card_played`` with ``auto``) or the clock's loss (``match_ended`` ``timeout``)."""
    late_us: int | None = None
    clock: bool = False
    """True when the turn clock made it (R25)."""
    bot: str | None = None
    """A bot's (or the clock's) play: ``matches`` (re-derived from its seat's view and equal),
    ``differs``, ``legal_only`` (a strong bot's pick, re-run on request) or ``unchecked``."""


class InvestigationResponse(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /support/matches/{id}``: everything about a match in one place, for support."""

    match_id: str
    voided: bool
    events: list[msgspec.Raw]
    timeline: list[TimelineEntry]
    presence: list[FeedConnected | FeedDropped]
    refused_dropped: int
    verification: dict[str, object]
    cases: list[CaseView]


class PlayerPage(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /support/players/{id}``: a player as support sees them."""

    player: PlayerHit
    matches: list[dict[str, object]]
    results: list[dict[str, object]]
    rating_history: list[dict[str, object]]
    reports_by: list[CaseView]
    reports_about: list[CaseView]
    suspension: Suspension | None
    sanctions: list[AnyDeskEvent]
    notes: list[AnyDeskEvent]


class ForfeitResponse(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /support/matches/{id}/forfeit``: the match ended as a forfeit of ``seat``'s side."""

    done: str
    target: str
    seat: int
    player_id: str | None
    seq: int
    """The seq of the match's ``match_ended``."""


class DoneResponse(msgspec.Struct, frozen=True):
    """An action stored."""

    done: str
    target: str
