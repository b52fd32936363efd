"""The support desk: reports and cases, sanctions, voided results (docs/support.md).

Every change is a fact appended at the seq its writer read (app.store.desk_store), so a limit
(10 reports a player a day), an open case per match, or "suspended once" is one atomic step
across processes. Actions are never match events: they go to a case's stream (``case:ID``), a
player's (``sanctions:PLAYER``, and a rename to the player's own stream) or the results' stream
(``voids``), each with the agent's name, the case and a reason.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final, TypeVar

import msgspec

from app.errors import (
    AccountSuspendedError,
    AgentOnlyError,
    AlreadySuspendedError,
    CaseNotFoundError,
    ConflictError,
    InvalidActionError,
    InvalidReportError,
    PlayerNotFoundError,
    ReasonRequiredError,
    ReportLimitError,
)
from app.service.players import PlayerService
from app.store.desk_store import DeskStore
from domain.access import ENV_AGENT
from domain.desk import (
    CATEGORIES,
    OUTCOMES,
    REASON_MAX,
    REPORT_TEXT_MAX,
    REPORTS_PER_DAY,
    ActionTaken,
    AnyDeskEvent,
    CaseAnswered,
    CaseClosed,
    CaseNoted,
    CaseOpened,
    EvidencePinned,
    PlayerRenamedBySupport,
    PlayerSuspended,
    PlayerWarned,
    ReportFiled,
    ResultRestored,
    ResultVoided,
    SideForfeited,
    SuspensionLifted,
    WarningSeen,
    is_blank,
    voided_matches,
)
from domain.players import PlayerState
from domain.times import canonical_micros, utc_micros, utc_text_us

T = TypeVar("T")

APPEND_TRIES: Final = 20
"""How often a step is tried again after another process appended to its stream first."""

Clock = Callable[[], str]
"""Now, as UTC text in the replay format's form."""


def utc_now_text() -> str:
    """The wall clock as UTC text."""
    now = datetime.now(UTC)
    return utc_text_us(int(now.timestamp() * 1_000_000))


class Suspension(msgspec.Struct, frozen=True):
    """A suspension in force: until when (None: until lifted), why, by whom."""

    until: str | None
    reason: str
    agent: str
    at: str


class CaseView(msgspec.Struct, frozen=True, kw_only=True):
    """A case as its stream tells it (for support only)."""

    case_id: str
    match_id: str
    opened: str
    status: str
    categories: list[str]
    reports: list[ReportFiled]
    notes: list[CaseNoted]
    pins: list[EvidencePinned]
    actions: list[ActionTaken]
    answer: str | None
    outcome: str | None
    closed: str | None


class ReporterView(msgspec.Struct, frozen=True, kw_only=True):
    """What a reporter sees of their report: its case's status and answer, nothing else."""

    case_id: str
    match_id: str
    category: str
    at: str
    status: str
    answer: str | None


def reason_of(reason: str | None) -> str:
    """The reason of an action: never blank (ReasonRequiredError), at most 1,000 code points."""
    if reason is None or is_blank(reason):
        raise ReasonRequiredError("every support action needs a non-empty 'reason'")
    if len(reason) > REASON_MAX:
        raise InvalidActionError(f"a reason is at most {REASON_MAX} characters")
    return reason


def acting(agent: str) -> str:
    """The agent's name when it may act: a named agent, never the shared support token."""
    if agent == ENV_AGENT:
        raise AgentOnlyError("the shared support token reads but cannot act: use a named agent")
    return agent


def until_of(until: str | None, now: str) -> str | None:
    """A suspension's end: None (until lifted) or a later instant in the replay format's form."""
    if until is None:
        return None
    micros = canonical_micros(until)
    if micros is None:
        raise InvalidActionError(
            f"'until' must be UTC in the form 2026-01-02T03:04:05.000000Z, not {until[:40]!r}"
        )
    if micros <= utc_micros(now):
        raise InvalidActionError("'until' must be later than now")
    return until


def fold_case(events: list[AnyDeskEvent]) -> CaseView | None:
    """The case its stream's facts describe (None for no stream)."""
    if not events or not isinstance(events[0], CaseOpened):
        return None
    opened = events[0]
    reports = [e for e in events if isinstance(e, ReportFiled)]
    answers = [e for e in events if isinstance(e, CaseAnswered)]
    closed = next((e for e in reversed(events) if isinstance(e, CaseClosed)), None)
    return CaseView(
        case_id=opened.case_id,
        match_id=opened.match_id,
        opened=opened.at,
        status="closed" if closed is not None else "open",
        categories=sorted({r.category for r in reports}),
        reports=reports,
        notes=[e for e in events if isinstance(e, CaseNoted)],
        pins=[e for e in events if isinstance(e, EvidencePinned)],
        actions=[e for e in events if isinstance(e, ActionTaken)],
        answer=answers[-1].text if answers else None,
        outcome=closed.outcome if closed else None,
        closed=closed.at if closed else None,
    )


class DeskService:
    """Reports, cases, sanctions and voids of one store."""

    def __init__(
        self,
        desk: DeskStore,
        players: PlayerService,
        clock: Clock = utc_now_text,
        on_voids: Callable[[], object] | None = None,
    ) -> None:
        self.desk = desk
        self.players = players
        self.clock = clock
        self.on_voids = on_voids
        """Called after a void or restore is stored (the results catch up with it)."""

    # -- reports and cases ------------------------------------------------------------------

    def file_report(self, player_id: str, match_id: str, category: str, text: str) -> str:
        """A report by ``player_id`` on ``match_id`` (who may report is the caller's check):
        opens a case or joins the open one; the case id. At most 10 a player a day."""
        if category not in CATEGORIES:
            raise InvalidReportError(f"category must be one of {', '.join(CATEGORIES)}")
        if not isinstance(text, str) or len(text) > REPORT_TEXT_MAX:
            raise InvalidReportError(f"a report's text is at most {REPORT_TEXT_MAX} characters")
        self.refuse_if_suspended(player_id)
        now = self.clock()
        case_id = self._retry(lambda: self._open_case(match_id, now))
        report = ReportFiled(
            f"r-{secrets.token_hex(8)}", player_id, category, text, now, case_id, match_id
        )
        self._retry(lambda: self._count_report(report))
        self._append(f"case:{case_id}", report)
        return case_id

    def _count_report(self, report: ReportFiled) -> None:
        stream = f"reporter:{report.player_id}"
        filed = self.desk.read(stream)
        today = report.at[:10]
        if sum(1 for r in filed if isinstance(r, ReportFiled) and r.at[:10] == today) >= (
            REPORTS_PER_DAY
        ):
            raise ReportLimitError(f"at most {REPORTS_PER_DAY} reports a day (UTC)")
        self.desk.append(stream, len(filed), [report])

    def _open_case(self, match_id: str, now: str) -> str:
        stream = f"match-case:{match_id}"
        opened = [e for e in self.desk.read(stream) if isinstance(e, CaseOpened)]
        if opened:
            current = fold_case(self.desk.read(f"case:{opened[-1].case_id}"))
            if current is not None and current.status == "open":
                return current.case_id
        case = CaseOpened(f"c-{secrets.token_hex(8)}", match_id, now)
        self.desk.append(stream, len(opened), [case])  # one open case per match, atomically
        self.desk.append(f"case:{case.case_id}", 0, [case])
        self._append("cases", case)
        return case.case_id

    def reports_of(self, player_id: str) -> list[ReporterView]:
        """The player's own reports, newest first, each with its case's status and answer."""
        filed = [e for e in self.desk.read(f"reporter:{player_id}") if isinstance(e, ReportFiled)]
        cases = self.desk.read_many(sorted({f"case:{r.case_id}" for r in filed}))
        shown = []
        for report in reversed(filed):
            case = fold_case(cases.get(f"case:{report.case_id}", []))
            shown.append(
                ReporterView(
                    case_id=report.case_id,
                    match_id=report.match_id,
                    category=report.category,
                    at=report.at,
                    status=case.status if case else "open",
                    answer=case.answer if case else None,
                )
            )
        return shown

    def cases(
        self, status: str | None = None, category: str | None = None, before: str | None = None
    ) -> list[CaseView]:
        """The case queue, oldest first, filtered by status, category and age (opened before)."""
        ids = [e.case_id for e in self.desk.read("cases") if isinstance(e, CaseOpened)]
        streams = self.desk.read_many([f"case:{i}" for i in ids])
        found = []
        for case_id in ids:
            case = fold_case(streams.get(f"case:{case_id}", []))
            if case is None:
                continue
            if status is not None and case.status != status:
                continue
            if category is not None and category not in case.categories:
                continue
            if before is not None and case.opened >= before:
                continue
            found.append(case)
        return found

    def case(self, case_id: str) -> CaseView:
        """One case (CaseNotFoundError when none)."""
        case = fold_case(self.desk.read(f"case:{case_id}"))
        if case is None:
            raise CaseNotFoundError(f"no case {case_id[:40]!r}")
        return case

    def cases_about(self, match_ids: set[str], player_id: str) -> list[CaseView]:
        """The cases on any of ``match_ids`` or filed by ``player_id``."""
        return [
            c
            for c in self.cases()
            if c.match_id in match_ids or any(r.player_id == player_id for r in c.reports)
        ]

    def note(self, case_id: str, agent: str, text: str) -> CaseView:
        """A note on the case (the note is its own reason)."""
        self.case(case_id)
        self._append(f"case:{case_id}", CaseNoted(acting(agent), reason_of(text), self.clock()))
        return self.case(case_id)

    def pin(self, case_id: str, agent: str, evidence: str, reason: str | None) -> CaseView:
        """Pin a piece of evidence (``seq:N`` or a refused request's id) to the case."""
        self.case(case_id)
        pinned = EvidencePinned(acting(agent), evidence[:200], reason_of(reason), self.clock())
        self._append(f"case:{case_id}", pinned)
        return self.case(case_id)

    def answer(self, case_id: str, agent: str, text: str) -> CaseView:
        """The answer every reporter of the case sees on their profile."""
        self.case(case_id)
        self._append(f"case:{case_id}", CaseAnswered(acting(agent), reason_of(text), self.clock()))
        return self.case(case_id)

    def close(self, case_id: str, agent: str, outcome: str, reason: str | None) -> CaseView:
        """Close the case with an outcome (``no_fault``, ``voided``, ``sanctioned``, ``bug``)."""
        why = reason_of(reason)
        if outcome not in OUTCOMES:
            raise InvalidActionError(f"outcome must be one of {', '.join(OUTCOMES)}")
        if self.case(case_id).status == "closed":
            raise InvalidActionError("the case is closed already")
        closed = CaseClosed(acting(agent), outcome, why, self.clock())
        self._append(f"case:{case_id}", closed)
        return self.case(case_id)

    def _on_case(self, case_id: str | None, action: ActionTaken) -> None:
        if case_id is not None:
            self.case(case_id)
            self._append(f"case:{case_id}", action)

    # -- sanctions --------------------------------------------------------------------------

    def suspension_of(self, player_id: str) -> Suspension | None:
        """The player's suspension in force now (R29), or None."""
        now = self.clock()
        current: Suspension | None = None
        for event in self.desk.read(f"sanctions:{player_id}"):
            if isinstance(event, PlayerSuspended):
                current = Suspension(event.until, event.reason, event.agent, event.at)
            elif isinstance(event, SuspensionLifted):
                current = None
        if current is not None and current.until is not None and current.until <= now:
            return None
        return current

    def refuse_if_suspended(self, player_id: str | None) -> None:
        """R29: AccountSuspendedError (403 ``account_suspended``, saying until when) when the
        player is suspended now; nothing for None (a seat taken by name) or a free player."""
        if player_id is None:
            return
        found = self.suspension_of(player_id)
        if found is not None:
            until = found.until or "it is lifted"
            raise AccountSuspendedError(f"this account is suspended until {until} (R29)")

    def suspend(
        self, player_id: str, agent: str, reason: str | None, until: str | None, case_id: str | None
    ) -> Suspension:
        """Suspend the player (AlreadySuspendedError when they are)."""
        why, who, now = reason_of(reason), acting(agent), self.clock()
        end = until_of(until, now)
        self._player(player_id)

        def step() -> None:
            stream = f"sanctions:{player_id}"
            events = self.desk.read(stream)
            if self.suspension_of(player_id) is not None:
                raise AlreadySuspendedError("the player is suspended already")
            self.desk.append(stream, len(events), [PlayerSuspended(who, why, end, case_id, now)])

        self._retry(step)
        self._on_case(case_id, ActionTaken(who, "suspend", player_id, why, now, end or ""))
        return Suspension(end, why, who, now)

    def lift(self, player_id: str, agent: str, reason: str | None, case_id: str | None) -> None:
        """Lift the player's suspension (InvalidActionError when there is none)."""
        why, who, now = reason_of(reason), acting(agent), self.clock()
        self._player(player_id)

        def step() -> None:
            stream = f"sanctions:{player_id}"
            events = self.desk.read(stream)
            if self.suspension_of(player_id) is None:
                raise InvalidActionError("the player is not suspended")
            self.desk.append(stream, len(events), [SuspensionLifted(who, why, case_id, now)])

        self._retry(step)
        self._on_case(case_id, ActionTaken(who, "lift", player_id, why, now))

    def warn(self, player_id: str, agent: str, reason: str | None, case_id: str | None) -> None:
        """Warn the player: ``reason`` shows once on their next ``GET /players/me``."""
        why, who, now = reason_of(reason), acting(agent), self.clock()
        self._player(player_id)
        self._append(f"sanctions:{player_id}", PlayerWarned(who, why, case_id, now))
        self._on_case(case_id, ActionTaken(who, "warn", player_id, why, now))

    def take_warning(self, player_id: str) -> str | None:
        """The warnings not yet shown to the player (joined), marked seen as they are read."""

        def step() -> str | None:
            stream = f"sanctions:{player_id}"
            events = self.desk.read(stream)
            unseen: list[str] = []
            for event in events:
                if isinstance(event, PlayerWarned):
                    unseen.append(event.reason)
                elif isinstance(event, WarningSeen):
                    unseen = []
            if not unseen:
                return None
            self.desk.append(stream, len(events), [WarningSeen(self.clock())])
            return "\n".join(unseen)

        return self._retry(step)

    def rename(
        self, player_id: str, agent: str, reason: str | None, name: str, case_id: str | None
    ) -> str:
        """Give an abusively named player a new name (the old one kept in the sanctions and the
        case); the name they show under now."""
        why, who, now = reason_of(reason), acting(agent), self.clock()
        player = self._player(player_id)
        renamed = self.players.rename(player, name)
        event = PlayerRenamedBySupport(who, why, player.name, renamed.shown_name, case_id, now)
        self._append(f"sanctions:{player_id}", event)
        detail = f"{player.name} -> {renamed.shown_name}"
        self._on_case(case_id, ActionTaken(who, "rename", player_id, why, now, detail))
        return renamed.shown_name

    def record_forfeit(
        self,
        match_id: str,
        seat: int,
        player_id: str | None,
        agent: str,
        reason: str,
        case_id: str | None,
    ) -> None:
        """The agent's side of a forfeit it made (app.service.desk_forfeit): in the player's
        sanctions and in the case, never in the match stream (which got ``match_ended``)."""
        now = self.clock()
        if player_id is not None:
            fact = SideForfeited(agent, reason, match_id, seat, player_id, case_id, now)
            self._append(f"sanctions:{player_id}", fact)
        detail = f"seat {seat}" + (f" ({player_id})" if player_id is not None else "")
        self._on_case(case_id, ActionTaken(agent, "forfeit", match_id, reason, now, detail))

    def note_player(self, player_id: str, agent: str, text: str | None) -> None:
        """A note on the player (never shown to players)."""
        note = CaseNoted(acting(agent), reason_of(text), self.clock())
        self._player(player_id)
        self._append(f"notes:{player_id}", note)

    def player_notes(self, player_id: str) -> list[AnyDeskEvent]:
        """The notes on the player, in order."""
        return self.desk.read(f"notes:{player_id}")

    def sanctions(self, player_id: str) -> list[AnyDeskEvent]:
        """Everything support did to the player, in order."""
        return self.desk.read(f"sanctions:{player_id}")

    # -- voided results ---------------------------------------------------------------------

    def voided(self) -> set[str]:
        """The matches whose result is voided now (R28)."""
        return voided_matches(self.desk.read("voids"))

    def void(self, match_id: str, agent: str, reason: str | None, case_id: str | None) -> None:
        """R28: void the match's result (the caller checked that it paid points)."""
        self._void_or_restore(match_id, agent, reason, case_id, void=True)

    def restore(self, match_id: str, agent: str, reason: str | None, case_id: str | None) -> None:
        """R28: put a voided result back in its place in the order."""
        self._void_or_restore(match_id, agent, reason, case_id, void=False)

    def _void_or_restore(
        self, match_id: str, agent: str, reason: str | None, case_id: str | None, *, void: bool
    ) -> None:
        why, who, now = reason_of(reason), acting(agent), self.clock()
        if case_id is not None:
            self.case(case_id)

        def step() -> None:
            events = self.desk.read("voids")
            voided = match_id in voided_matches(events)
            if void and voided:
                raise InvalidActionError("the match's result is voided already")
            if not void and not voided:
                raise InvalidActionError("the match's result is not voided")
            fact = (ResultVoided if void else ResultRestored)(match_id, who, why, case_id, now)
            self.desk.append("voids", len(events), [fact])

        self._retry(step)
        action = "void" if void else "restore"
        self._on_case(case_id, ActionTaken(who, action, match_id, why, now))
        if self.on_voids is not None:
            self.on_voids()

    # -- inside -----------------------------------------------------------------------------

    def _player(self, player_id: str) -> PlayerState:
        player = self.players.load(player_id)
        if player is None:
            raise PlayerNotFoundError(f"no player {player_id[:40]!r}")
        return player

    def _append(self, stream: str, event: AnyDeskEvent) -> None:
        def step() -> None:
            self.desk.append(stream, len(self.desk.read(stream)), [event])

        self._retry(step)

    @staticmethod
    def _retry(attempt: Callable[[], T]) -> T:
        for _ in range(APPEND_TRIES - 1):
            try:
                return attempt()
            except ConflictError:
                continue
        return attempt()
