"""Re-adjudication: every deal from the seed, every play through ``decide``, every score again.

``audit`` walks a stream once. Each event either answers a request (a seat taken, a card
played, a seat leaving), which is re-decided by ``domain.decide`` from the position before it,
or is one of the events the rules produced with that answer (deals, scores, the end), which
must equal what the rules produce now. Its dispute trail (who caused it, when) must be possible
too. The first event that differs is the divergence.

The comparisons live beside this module: deals in ``audit_deals``, plays in ``audit_play``,
scores and ends in ``audit_scores``, bot choices in ``audit_bots``, causes and times in
``audit_trail``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import assert_never

import msgspec
from msgspec.structs import replace

from domain.autoplay import judge
from domain.commands import (
    AbandonTable,
    CreateMatch,
    ExpireTurn,
    LeaveMatch,
    PlayCard,
    RecordRematch,
    TakeSeat,
)
from domain.decide import decide
from domain.errors import RulesRefusalError, UnknownCardError
from domain.events import (
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    table_settings,
    tagged,
)
from domain.evolve import evolve
from domain.fairness import commitment
from domain.recorded import RecordedEvent, misnumbered
from domain.rulesets import RULESETS, Classic
from domain.state import INITIAL_STATE, MatchState
from domain.times import utc_text_us
from replays.audit_bots import BotPlays, BotReferee
from replays.audit_clock import (
    at_us,
    check_clock_cause,
    deadline_of,
    is_clock_act,
    settle_deadline,
    without_deadline,
)
from replays.audit_deals import compare_deal, compare_floor, compare_round_started
from replays.audit_play import BASRA_RULING, compare_play
from replays.audit_scores import compare_end, compare_score
from replays.audit_text import Diverged, card_name, event_kind, event_name, expected_text
from replays.audit_trail import TimeInversion, TrailReferee
from replays.divergence import Divergence

__all__ = ["BASRA_RULING", "AuditReport", "AuditResult", "Divergence", "audit", "audit_events"]

_STAND_IN_KEY = bytes(32)
"""Lets ``decide`` run on a match without its secret; the deals it makes are never trusted."""

_RESULT_REASONS = ("target", "round_limit")
"""R22: the ends that only the rules produce, right after a round is scored."""


class AuditReport(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of re-adjudicating a stream; ``divergence`` is None when it is clean.

    ``bot_plays`` counts the bot plays re-derived (and those checked as legal cards only).
    """

    match_id: str | None
    events: int
    seeded: bool
    divergence: Divergence | None
    bot_plays: BotPlays = msgspec.field(default_factory=BotPlays)
    inverted_times: tuple[TimeInversion, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every event follows from the rules."""
        return self.divergence is None


class AuditResult(msgspec.Struct, frozen=True, kw_only=True):
    """A report plus the stream as the rules state it (optional fields completed if lenient)."""

    report: AuditReport
    events: tuple[Event, ...]


def audit(
    recorded: Sequence[RecordedEvent],
    *,
    bots: bool = True,
    strong_bots: bool = False,
    chain_intact: bool = False,
) -> AuditReport:
    """Re-adjudicate a stored stream; every field must equal what the rules give.

    ``strong_bots`` re-runs every strong bot's pick too (slow); without it a strong bot's play
    is checked only to be a legal card of its own hand, as every play is. ``chain_intact``
    (every chain link recomputed and holding) reports record times that go backwards as
    ``inverted_times`` instead of a divergence (audit_trail.TimeInversion).
    """
    auditor = _Auditor(bots=bots, lenient=False, strong_bots=strong_bots, chain_intact=chain_intact)
    return auditor.run(recorded).report


def audit_events(
    recorded: Sequence[RecordedEvent],
    *,
    bots: bool = True,
    lenient: bool = False,
    chain_intact: bool = False,
) -> AuditResult:
    """Re-adjudicate and also return the events as the rules state them.

    ``lenient`` accepts plays that leave out the optional ``groups`` and ``sweep`` fields (a file
    written elsewhere); the returned events then carry them as the rules give them.
    ``chain_intact`` is as for ``audit``.
    """
    return _Auditor(bots=bots, lenient=lenient, chain_intact=chain_intact).run(recorded)


class _Auditor:
    """One pass over a stream, holding the position before each event."""

    def __init__(
        self, *, bots: bool, lenient: bool, strong_bots: bool = False, chain_intact: bool = False
    ) -> None:
        self.lenient = lenient
        self.state: MatchState = INITIAL_STATE
        self.rules: Classic | None = None
        self.seeded = False
        self.expected: deque[Event] = deque()
        self.ended_at: int | None = None
        self.out: list[Event] = []
        self.bots = BotReferee(enabled=bots, strong=strong_bots)
        self.trail = TrailReferee(chain_intact=chain_intact)

    def run(self, recorded: Sequence[RecordedEvent]) -> AuditResult:
        """Walk the stream; stop at the first divergence."""
        match_id: str | None = None
        seq = 0
        divergence: Divergence | None = None
        try:
            if not recorded:
                seq = 1
                raise Diverged("missing", "the stream is empty; it starts with match_created")
            wrong = misnumbered(item.seq for item in recorded)
            for index, item in enumerate(recorded, 1):
                seq = index
                if wrong is not None and wrong[1] == index:
                    raise Diverged(
                        "sequence",
                        f"seq {item.seq} is where seq {index} belongs: a stream is numbered 1, 2,"
                        " 3… with no gap and no repeat",
                    )
                check_clock_cause(
                    item.event,
                    item.caused_by,
                    is_clock_act(item.event, self.state.deadline) and not self.expected,
                )
                event = self.judge(index, item.event, at_us(item.at))
                self.trail.check_cause(item.event, item.caused_by, self.state)
                self.trail.check_time(index, item.at)
                if index == 1 and isinstance(event, MatchCreated):
                    match_id = event.match_id
                self.out.append(event)
                self.state = evolve(self.state, event)
            if self.expected:
                seq = len(recorded) + 1
                missing = self.expected[0]
                raise Diverged(
                    "missing",
                    f"the stream stops before {event_name(missing)}, which the rules produce with"
                    f" the event at seq {len(recorded)} ({expected_text(missing)})",
                )
        except Diverged as stop:
            divergence = Divergence(seq=seq, kind=stop.kind, explanation=stop.explanation)
        report = AuditReport(
            match_id=match_id,
            events=len(recorded),
            seeded=self.seeded,
            divergence=divergence,
            bot_plays=self.bots.counted(),
            inverted_times=tuple(self.trail.inversions),
        )
        return AuditResult(report=report, events=tuple(self.out))

    # --- one event -------------------------------------------------------------------------

    def judge(self, seq: int, event: Event, now_us: int | None = None) -> Event:
        """The event as the rules state it, or raise ``Diverged``; ``now_us`` is its record time."""
        if seq == 1:
            if not isinstance(event, MatchCreated):
                raise Diverged(
                    "order", f"a stream starts with match_created, not {event_name(event)}"
                )
            return self.created(event)
        if isinstance(event, MatchCreated):
            raise Diverged("order", "a match is created once, by its first event")
        if self.ended_at is not None and not isinstance(event, RematchCreated):
            raise Diverged(
                "extra", f"the match ended at seq {self.ended_at}; no event may follow its end"
            )
        # R25: the deadline is checked apart from the rest, within the clock's tolerance.
        recorded_deadline = deadline_of(event)
        event = without_deadline(event)
        if self.expected:
            wanted = self.expected.popleft()
            judged = self.compare(event, without_deadline(wanted))
        else:
            wanted = self.answer(event, now_us)
            judged = self.compare(event, without_deadline(wanted))
        judged = settle_deadline(judged, recorded_deadline, deadline_of(wanted), now_us)
        if isinstance(judged, MatchEnded):
            self.ended_at = seq
        return judged

    def created(self, event: MatchCreated) -> MatchCreated:
        """The first event: a valid table, and a commitment that matches the secret."""
        secret: bytes | None = None
        if event.secret is not None:
            try:
                secret = bytes.fromhex(event.secret)
            except ValueError:
                raise Diverged("setup", "the match secret is not hexadecimal") from None
            if len(secret) != 32 or event.secret != secret.hex():
                raise Diverged("setup", "the match secret is not 32 bytes in lowercase hex")
        self.seeded = secret is not None
        settings = table_settings(event)
        command = CreateMatch(
            match_id=event.match_id,
            ruleset=event.ruleset,
            seats=event.seats,
            secret=secret if secret is not None else _STAND_IN_KEY,
            target=event.target,
            bots=event.bots,
            bot_kind=event.bot_kind,
            client_seeds=event.client_seeds,
            # R25: a recorded turn time is one a server may give (1-600), whoever chose it.
            server_turn_seconds=settings.turn_seconds,
            rematch_of=settings.rematch_of,
            reserved=settings.reserved or None,
            paired=settings.paired,
        )
        try:
            made = decide(INITIAL_STATE, command)
        except RulesRefusalError as error:
            raise Diverged("setup", f"the table cannot be created: {error.message}") from None
        expected = made[0]
        assert isinstance(expected, MatchCreated)
        if expected.bots != event.bots:
            raise Diverged("setup", "bot seats must be listed once each, in seat order")
        if expected.reserved != event.reserved:
            raise Diverged("setup", "kept seats are left out of the line when none is kept")
        if secret is not None and event.commitment is not None:
            # C = SHA-256("basra-fair-v1/commit" ‖ lp(match_id) ‖ S) (docs/fairness.md), with
            # the id the match was created under (kept as ``origin`` by an import).
            created_as = event.origin if event.origin is not None else event.match_id
            if commitment(created_as, secret) != event.commitment:
                raise Diverged(
                    "setup",
                    f"the commitment does not match the revealed secret for match {created_as}"
                    " (docs/fairness.md)",
                )
        self.rules = RULESETS[expected.ruleset]
        self.expected.extend(made[1:])
        return event

    def answer(self, event: Event, now_us: int | None) -> Event:
        """What the rules make of the request ``event`` answers, re-decided from the position
        before it at the time it was recorded (``now_us``); the first of the events it makes."""
        command: PlayCard | TakeSeat | LeaveMatch | RecordRematch | ExpireTurn | AbandonTable
        deadline = self.state.deadline
        match tagged(event):
            case CardPlayed(seat=seat, card=card, auto=True) as played if deadline is not None:
                # R25: the clock played for the seat; it may only once the deadline has passed.
                self.bots.check(played, self.state)
                command = ExpireTurn(seat, deadline, self._clock_time(now_us))
                what = f"the clock cannot play for seat {seat} at {self._when(now_us)}"
            case CardPlayed(seat=seat, card=card, auto=auto) as played:
                self.bots.check(played, self.state)
                command = PlayCard(seat, card, auto, now_us)
                what = f"seat {seat} cannot play {card_name(card)}"
            case SeatTaken(
                seat=seat, name=name, token_id=token_id, token_hash=token_hash, player_id=pid
            ):
                command = TakeSeat(
                    seat,
                    name,
                    token_id,
                    token_hash,
                    pid if isinstance(pid, str) else None,
                    now_us,
                    recorded=True,
                )
                if isinstance(event, SeatTaken) and isinstance(event.client_seed, str):
                    command = replace(command, client_seed=event.client_seed)
                what = f"{name!r} cannot take seat {seat}"
            case MatchEnded(reason="timeout", seat=seat) if (
                deadline is not None and seat is not None
            ):
                command = ExpireTurn(seat, deadline, self._clock_time(now_us))
                what = f"the clock cannot end the match at {self._when(now_us)}"
            case MatchEnded(reason="timeout") if self._clocked():
                raise Diverged(
                    "clock",
                    f"a timeout with no deadline in force: {self.awaiting()}, and no clock runs"
                    " on this turn (R25)",
                )
            case MatchEnded(reason="abandoned", seat=None):
                command = AbandonTable(self._clock_time(now_us))
                what = "the table cannot be closed as abandoned"
            case MatchEnded(reason=reason, seat=seat):
                if reason in _RESULT_REASONS:
                    raise Diverged(
                        "end", f"a match ends by {reason} only right after a round is scored (R22)"
                    )
                if seat is None:
                    raise Diverged("end", f"a match that ends by {reason} names the seat")
                command = LeaveMatch(seat, reason)
                what = f"seat {seat} cannot leave"
            case RematchCreated(match_id=rematch):
                command = RecordRematch(rematch)
                what = f"match {rematch} cannot be recorded as the rematch"
            case MatchCreated() | RoundStarted() | CardsDealt() | FloorDealt() | RoundScored():
                raise Diverged(
                    "order",
                    f"{event_name(event)} does not follow from anything here: {self.awaiting()}",
                )
            case unknown:
                assert_never(unknown)
        try:
            # The clock's card for a seat that ran out is chosen as the server chose it (R25).
            made = judge(self._decidable(), command)
        except (RulesRefusalError, UnknownCardError) as error:  # a recorded non-card (R1) too
            raise Diverged(event_kind(event), f"{what}: {error.message}") from None
        self.expected.extend(made[1:])
        return made[0]

    def _clocked(self) -> bool:
        """True for a table created with a turn time (R25)."""
        setup = self.state.setup
        return setup is not None and setup.turn_seconds is not None

    def _clock_time(self, now_us: int | None) -> int:
        if now_us is None:
            raise Diverged("clock", "the clock acted, but the time it was recorded is unreadable")
        return now_us

    def _when(self, now_us: int | None) -> str:
        return "an unreadable time" if now_us is None else utc_text_us(now_us)

    def awaiting(self) -> str:
        """What the rules wait for at this position, in words."""
        state = self.state
        if state.status == "waiting":
            return "the match waits for its seats to be taken"
        return f"the rules wait for seat {state.turn} to play"

    def _decidable(self) -> MatchState:
        """The position for ``decide``: a match without its secret gets a stand-in key."""
        state = self.state
        if self.seeded or state.setup is None:
            return state
        return replace(state, setup=replace(state.setup, key=_STAND_IN_KEY))

    # --- comparing -----------------------------------------------------------------------

    def compare(self, event: Event, wanted: Event) -> Event:
        """``event`` if it is what the rules produce here (``wanted``); else raise."""
        if type(event) is not type(wanted):
            raise Diverged(
                "order",
                f"the rules produce {event_name(wanted)} here ({expected_text(wanted)}), not"
                f" {event_name(event)}",
            )
        rules = self.rules
        assert rules is not None
        state, seeded = self.state, self.seeded
        match tagged(event):
            case CardPlayed() as got:
                assert isinstance(wanted, CardPlayed)
                return compare_play(got, wanted, rules, lenient=self.lenient)
            case RoundStarted() as got:
                assert isinstance(wanted, RoundStarted)
                return compare_round_started(got, wanted, state, seeded=seeded)
            case CardsDealt() as got:
                assert isinstance(wanted, CardsDealt)
                return compare_deal(got, wanted, state, rules, seeded=seeded)
            case FloorDealt() as got:
                assert isinstance(wanted, FloorDealt)
                return compare_floor(got, wanted, state, rules, seeded=seeded)
            case RoundScored() as got:
                assert isinstance(wanted, RoundScored)
                return compare_score(got, wanted)
            case MatchEnded() as got:
                assert isinstance(wanted, MatchEnded)
                return compare_end(got, wanted)
            case MatchCreated() | SeatTaken() | RematchCreated() as got:
                if got != wanted:
                    raise Diverged(
                        event_kind(got), f"{event_name(got)} differs from what the rules give"
                    )
                return got
            case unknown:
                assert_never(unknown)
