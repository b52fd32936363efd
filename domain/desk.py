"""The support desk as facts: refused commands, presence, reports, cases, sanctions and voids.

None of these is a match event: the match stream holds only what happened at the table. They
live in streams of their own beside it (app.store.desk_store): ``refused:MATCH`` (what the
server refused on a match, bounded), ``presence:MATCH`` (when each seat's feed connected and
dropped, bounded), ``case:ID`` (one case: opened, reports, notes, pins, actions, answers,
closed), ``sanctions:PLAYER`` (suspensions, warnings, renames and forfeits by support) and
``voids`` (the results' stream of voided and restored matches, R28). Times are given by the
caller.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final, Literal, TypeAlias

import msgspec

CATEGORIES: Final = ("clock", "bot", "cheating", "abuse", "bug", "other")
"""What a report may be about."""

OUTCOMES: Final = ("no_fault", "voided", "sanctioned", "bug")
"""How a case may be closed."""

REPORT_TEXT_MAX: Final = 1000
"""A report's text, in code points."""

REASON_MAX: Final = 1000
"""An action's reason, a note or an answer, in code points."""

REFUSED_PER_MATCH: Final = 1000
"""Refused-command records kept per match (the oldest are kept)."""

REFUSED_PER_PRINCIPAL: Final = 200
"""Refused-command records kept per principal per match."""

PRESENCE_PER_MATCH: Final = 1000
"""Presence records kept per match."""

REPORTS_PER_DAY: Final = 10
"""Reports one player may file in a day (UTC)."""

Category: TypeAlias = Literal["clock", "bot", "cheating", "abuse", "bug", "other"]
Outcome: TypeAlias = Literal["no_fault", "voided", "sanctioned", "bug"]


class DeskEvent(msgspec.Struct, frozen=True, tag_field="type"):
    """A fact of the support desk; never recorded itself."""


class CommandRefused(DeskEvent, frozen=True, tag="command_refused"):
    """The server refused a command on a match from an authenticated caller.

    ``at_us`` is when it arrived (µs since the epoch); ``seq``, ``turn`` and ``deadline`` are
    the state it met; ``late_us`` is by how much it missed the deadline in force (None when it
    did not come late)."""

    at_us: int
    match_id: str
    principal: str
    seat: int | None
    request_id: str
    route: str
    code: str
    seq: int | None = None
    turn: int | None = None
    deadline: str | None = None
    late_us: int | None = None


class RefusalsDropped(DeskEvent, frozen=True, tag="refusals_dropped"):
    """The running count of refused commands not kept (a bound was reached)."""

    count: int


class FeedConnected(DeskEvent, frozen=True, tag="feed_connected"):
    """A seat's (or support's) live feed of the match opened."""

    at_us: int
    match_id: str
    seat: int
    principal: str


class FeedDropped(DeskEvent, frozen=True, tag="feed_dropped"):
    """That feed closed (the client left, the network dropped, or the feed ended)."""

    at_us: int
    match_id: str
    seat: int
    principal: str


class CaseOpened(DeskEvent, frozen=True, tag="case_opened"):
    """A case was opened on a match by its first report."""

    case_id: str
    match_id: str
    at: str


class ReportFiled(DeskEvent, frozen=True, tag="report_filed"):
    """A player (by id) reported the match; ``text`` is theirs, stored as text."""

    report_id: str
    player_id: str
    category: str
    text: str
    at: str
    case_id: str = ""
    match_id: str = ""


class CaseNoted(DeskEvent, frozen=True, tag="case_noted"):
    """An agent wrote a note on the case (never shown to players)."""

    agent: str
    text: str
    at: str


class EvidencePinned(DeskEvent, frozen=True, tag="evidence_pinned"):
    """An agent pinned a piece of evidence: a seq of the match or a refused request's id."""

    agent: str
    evidence: str
    reason: str
    at: str


class ActionTaken(DeskEvent, frozen=True, tag="action_taken"):
    """An action taken on the case's behalf (void, restore, suspend, lift, rename, warn,
    forfeit)."""

    agent: str
    action: str
    target: str
    reason: str
    at: str
    detail: str = ""


class CaseAnswered(DeskEvent, frozen=True, tag="case_answered"):
    """The answer every reporter of the case sees on their profile."""

    agent: str
    text: str
    at: str


class CaseClosed(DeskEvent, frozen=True, tag="case_closed"):
    """The case was closed with an outcome and a reason."""

    agent: str
    outcome: str
    reason: str
    at: str


class PlayerSuspended(DeskEvent, frozen=True, tag="player_suspended"):
    """R29: the player may not sit, create, rematch, enter the pool or report until ``until``
    (None: until lifted)."""

    agent: str
    reason: str
    until: str | None
    case_id: str | None
    at: str


class SuspensionLifted(DeskEvent, frozen=True, tag="suspension_lifted"):
    """The player's suspension was lifted."""

    agent: str
    reason: str
    case_id: str | None
    at: str


class PlayerWarned(DeskEvent, frozen=True, tag="player_warned"):
    """The player is shown ``text`` once, on their next ``GET /players/me``."""

    agent: str
    reason: str
    case_id: str | None
    at: str


class WarningSeen(DeskEvent, frozen=True, tag="warning_seen"):
    """The player's warnings so far were shown to them."""

    at: str


class PlayerRenamedBySupport(DeskEvent, frozen=True, tag="player_renamed_by_support"):
    """Support renamed the player; the old name is kept here."""

    agent: str
    reason: str
    old_name: str | None
    new_name: str
    case_id: str | None
    at: str


class SideForfeited(DeskEvent, frozen=True, tag="side_forfeited"):
    """R29, R26: support ended a match in play as a forfeit of ``seat``'s side (the player's,
    when a registered player held it); the match stream holds its ordinary ``match_ended``."""

    agent: str
    reason: str
    match_id: str
    seat: int
    player_id: str | None
    case_id: str | None
    at: str


class ResultVoided(DeskEvent, frozen=True, tag="result_voided"):
    """R28: the match's result is taken back (points and ratings as if it was never played)."""

    match_id: str
    agent: str
    reason: str
    case_id: str | None
    at: str


class ResultRestored(DeskEvent, frozen=True, tag="result_restored"):
    """R28: a voided result is put back in its place in the order."""

    match_id: str
    agent: str
    reason: str
    case_id: str | None
    at: str


class ConsoleSessionOpened(DeskEvent, frozen=True, tag="console_session_opened"):
    """A named agent signed in to the console; only the session cookie's SHA-256 is kept."""

    agent: str
    at: str
    expires: str


class ConsoleSessionEnded(DeskEvent, frozen=True, tag="console_session_ended"):
    """The agent signed out of that console session."""

    at: str


AnyDeskEvent: TypeAlias = (
    ConsoleSessionOpened
    | ConsoleSessionEnded
    | CommandRefused
    | RefusalsDropped
    | FeedConnected
    | FeedDropped
    | CaseOpened
    | ReportFiled
    | CaseNoted
    | EvidencePinned
    | ActionTaken
    | CaseAnswered
    | CaseClosed
    | PlayerSuspended
    | SuspensionLifted
    | PlayerWarned
    | WarningSeen
    | PlayerRenamedBySupport
    | SideForfeited
    | ResultVoided
    | ResultRestored
)
"""Every fact of the desk's streams."""

DESK_EVENT_TYPES: Final = (
    ConsoleSessionOpened,
    ConsoleSessionEnded,
    CommandRefused,
    RefusalsDropped,
    FeedConnected,
    FeedDropped,
    CaseOpened,
    ReportFiled,
    CaseNoted,
    EvidencePinned,
    ActionTaken,
    CaseAnswered,
    CaseClosed,
    PlayerSuspended,
    SuspensionLifted,
    PlayerWarned,
    WarningSeen,
    PlayerRenamedBySupport,
    SideForfeited,
    ResultVoided,
    ResultRestored,
)
"""The classes of ``AnyDeskEvent``, for topics."""


def voided_matches(events: list[AnyDeskEvent]) -> set[str]:
    """The matches whose result is voided now, by the ``voids`` stream's facts in order."""
    voided: set[str] = set()
    for event in events:
        if isinstance(event, ResultVoided):
            voided.add(event.match_id)
        elif isinstance(event, ResultRestored):
            voided.discard(event.match_id)
    return voided


_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` with every control and direction character shown as ``\\xNN``/``\\uNNNN``, so
    nothing a player writes can move a terminal's cursor or reorder what an agent reads."""

    def shown(found: re.Match[str]) -> str:
        code = ord(found.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROL.sub(shown, text)


def is_blank(text: str | None) -> bool:
    """True when ``text`` is missing or holds nothing but spaces and invisible characters."""
    if text is None:
        return True
    return all(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in text)
