"""Re-adjudication: every deal from the seed, every play through ``decide``, every score again.

``audit`` walks a stream once. Each event either answers a request (a seat taken, a card
played, a seat leaving), which is re-decided by ``domain.decide`` from the position before it,
or is one of the events the rules produced with that answer (deals, scores, the end), which
must equal what the rules produce now. The first event that differs is the divergence.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from domain.bots import EasyBot, RandomBot
from domain.cards import Card, display
from domain.commands import CreateMatch, LeaveMatch, PlayCard, TakeSeat
from domain.decide import decide
from domain.errors import BasraError
from domain.events import (
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RoundScored,
    RoundStarted,
    SeatTaken,
    event_tag,
)
from domain.evolve import evolve
from domain.fairness import commitment
from domain.rulesets import RULESETS, Classic
from domain.state import INITIAL_STATE, MatchState
from domain.views import seat_view
from replays.recorded import RecordedEvent
from replays.words import cards_text

BASRA_RULING = {
    "classic": "R14",
    "egyptian": "R15",
    "lebanese": "R16",
    "yemeni": "R17",
    "jordanian": "R18",
}
"""The ruling that decides Basras in each rule set."""

_STAND_IN_KEY = bytes(32)
"""Lets ``decide`` run on a match without its secret; the deals it makes are never trusted."""

_RESULT_REASONS = ("target", "round_limit")
"""R22: the ends that only the rules produce, right after a round is scored."""


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    """The first event that does not follow from the rules: its seq, a kind and why."""

    seq: int
    kind: str
    explanation: str


class AuditReport(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of re-adjudicating a stream; ``divergence`` is None when it is clean."""

    match_id: str | None
    events: int
    seeded: bool
    divergence: Divergence | None

    @property
    def ok(self) -> bool:
        """True when every event follows from the rules."""
        return self.divergence is None


class AuditResult(msgspec.Struct, frozen=True, kw_only=True):
    """A report plus the stream as the rules state it (optional fields completed if lenient)."""

    report: AuditReport
    events: tuple[Event, ...]


class _Diverged(Exception):
    """Internal: raised at the first divergence."""

    def __init__(self, kind: str, explanation: str) -> None:
        super().__init__(explanation)
        self.kind = kind
        self.explanation = explanation


def audit(recorded: Sequence[RecordedEvent], *, bots: bool = True) -> AuditReport:
    """Re-adjudicate a stored stream; every field must equal what the rules give."""
    return _Auditor(bots=bots, lenient=False).run(recorded).report


def audit_events(
    recorded: Sequence[RecordedEvent], *, bots: bool = True, lenient: bool = False
) -> AuditResult:
    """Re-adjudicate and also return the events as the rules state them.

    ``lenient`` accepts plays that leave out the optional ``groups`` and ``sweep`` fields (a file
    written elsewhere); the returned events then carry them as the rules give them.
    """
    return _Auditor(bots=bots, lenient=lenient).run(recorded)


class _Auditor:
    """One pass over a stream, holding the position before each event."""

    def __init__(self, *, bots: bool, lenient: bool) -> None:
        self.check_bots = bots
        self.lenient = lenient
        self.state: MatchState = INITIAL_STATE
        self.rules: Classic | None = None
        self.seeded = False
        self.expected: deque[Event] = deque()
        self.ended_at: int | None = None
        self.out: list[Event] = []
        self.bots: dict[int, RandomBot] = {}
        self.plays_by_seat: dict[int, int] = {}

    def run(self, recorded: Sequence[RecordedEvent]) -> AuditResult:
        """Walk the stream; stop at the first divergence."""
        match_id: str | None = None
        seq = 0
        try:
            if not recorded:
                seq = 1
                raise _Diverged("missing", "the stream is empty; it starts with match_created")
            for index, item in enumerate(recorded, 1):
                seq = index
                if item.seq != index:
                    raise _Diverged(
                        "sequence",
                        f"seq {item.seq} is where seq {index} belongs: a stream is numbered 1, 2,"
                        " 3… with no gap and no repeat",
                    )
                event = self.judge(index, item.event)
                if index == 1 and isinstance(event, MatchCreated):
                    match_id = event.match_id
                self.out.append(event)
                self.state = evolve(self.state, event)
            if self.expected:
                seq = len(recorded) + 1
                missing = self.expected[0]
                raise _Diverged(
                    "missing",
                    f"the stream stops before {_name(missing)}, which the rules produce with the"
                    f" event at seq {len(recorded)} ({_expected_text(missing)})",
                )
        except _Diverged as stop:
            report = AuditReport(
                match_id=match_id,
                events=len(recorded),
                seeded=self.seeded,
                divergence=Divergence(seq=seq, kind=stop.kind, explanation=stop.explanation),
            )
            return AuditResult(report=report, events=tuple(self.out))
        report = AuditReport(
            match_id=match_id, events=len(recorded), seeded=self.seeded, divergence=None
        )
        return AuditResult(report=report, events=tuple(self.out))

    # --- one event -------------------------------------------------------------------------

    def judge(self, seq: int, event: Event) -> Event:
        """The event as the rules state it, or raise ``_Diverged``."""
        if seq == 1:
            if not isinstance(event, MatchCreated):
                raise _Diverged("order", f"a stream starts with match_created, not {_name(event)}")
            return self.created(event)
        if isinstance(event, MatchCreated):
            raise _Diverged("order", "a match is created once, by its first event")
        if self.ended_at is not None:
            raise _Diverged(
                "extra", f"the match ended at seq {self.ended_at}; no event may follow its end"
            )
        if self.expected:
            wanted = self.expected.popleft()
            judged = self.compare(event, wanted)
        else:
            judged = self.answer(event)
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
                raise _Diverged("setup", "the match secret is not hexadecimal") from None
            if len(secret) != 32 or event.secret != secret.hex():
                raise _Diverged("setup", "the match secret is not 32 bytes in lowercase hex")
        self.seeded = secret is not None
        command = CreateMatch(
            match_id=event.match_id,
            ruleset=event.ruleset,
            seats=event.seats,
            secret=secret if secret is not None else _STAND_IN_KEY,
            target=event.target,
            bots=event.bots,
            bot_kind=event.bot_kind,
            client_seeds=event.client_seeds,
        )
        try:
            made = decide(INITIAL_STATE, command)
        except BasraError as error:
            raise _Diverged("setup", f"the table cannot be created: {error.message}") from None
        expected = made[0]
        assert isinstance(expected, MatchCreated)
        if expected.bots != event.bots:
            raise _Diverged("setup", "bot seats must be listed once each, in seat order")
        if secret is not None and event.commitment is not None:
            # FAIRNESS.md: C = SHA-256("basra-fair-v1/commit" ‖ lp(match_id) ‖ S), with the id
            # the match was created under (kept as ``origin`` by an import).
            created_as = event.origin if event.origin is not None else event.match_id
            if commitment(created_as, secret) != event.commitment:
                raise _Diverged(
                    "setup",
                    f"the commitment does not match the revealed secret for match {created_as}"
                    " (FAIRNESS.md)",
                )
        self.rules = RULESETS[expected.ruleset]
        self.expected.extend(made[1:])
        return event

    def answer(self, event: Event) -> Event:
        """An event that answers a request: re-decide the request from the position before it."""
        if isinstance(event, CardPlayed):
            self.check_bot_choice(event)
            command: PlayCard | TakeSeat | LeaveMatch = PlayCard(event.seat, event.card, event.auto)
            what = f"seat {event.seat} cannot play {_card(event.card)}"
        elif isinstance(event, SeatTaken):
            command = TakeSeat(event.seat, event.name, event.token_id, event.token_hash)
            what = f"{event.name!r} cannot take seat {event.seat}"
        elif isinstance(event, MatchEnded):
            if event.reason in _RESULT_REASONS:
                raise _Diverged(
                    "end",
                    f"a match ends by {event.reason} only right after a round is scored (R22)",
                )
            if event.seat is None:
                raise _Diverged("end", f"a match that ends by {event.reason} names the seat")
            command = LeaveMatch(event.seat, event.reason)
            what = f"seat {event.seat} cannot leave"
        else:
            raise _Diverged(
                "order", f"{_name(event)} does not follow from anything here: {self.awaiting()}"
            )
        try:
            made = decide(self._decidable(), command)
        except BasraError as error:
            raise _Diverged(_kind(event), f"{what}: {error.message}") from None
        self.expected.extend(made[1:])
        return self.compare(event, made[0])

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

    # --- bots --------------------------------------------------------------------------

    def check_bot_choice(self, event: CardPlayed) -> None:
        """A bot seat, and a seat played for when its clock ran out, play what the bot picks."""
        state = self.state
        seat = event.seat
        count = self.plays_by_seat.get(seat, 0)
        self.plays_by_seat[seat] = count + 1
        if not self.check_bots or state.setup is None or state.turn != seat:
            return
        if seat >= len(state.hands) or event.card not in state.hands[seat]:
            return  # decide names the fault
        kind: str | None = None
        if state.is_bot(seat):
            kind = state.setup.bot_kind
        elif event.auto:
            kind = "easy"  # R25: the easy bot plays for a seat whose clock ran out
        if kind is None:
            return
        if kind == "random":
            if state.setup.key is None:
                return  # without the secret the random bot's draws are unknown
            bot = self.bots.get(seat)
            if bot is None:
                rules = RULESETS[state.setup.ruleset]
                bot = RandomBot.resume(state.setup.key, seat, rules.hand_size, count)
                self.bots[seat] = bot
            choice = bot.choose_from(state.hands[seat])
            source = f"seat {seat} is a random bot: its stream bot/{seat} picks"
        else:
            choice = EasyBot().choose(seat_view(state, seat))
            source = (
                f"seat {seat} was played for by the easy bot (R25), which picks"
                if event.auto and not state.is_bot(seat)
                else f"seat {seat} is an easy bot, which picks"
            )
        if choice != event.card:
            raise _Diverged("bot", f"{source} {_card(choice)}, not {_card(event.card)}")

    # --- comparing -----------------------------------------------------------------------

    def compare(self, event: Event, wanted: Event) -> Event:
        """``event`` if it is what the rules produce here (``wanted``); else raise."""
        if type(event) is not type(wanted):
            raise _Diverged(
                "order",
                f"the rules produce {_name(wanted)} here ({_expected_text(wanted)}), not"
                f" {_name(event)}",
            )
        if isinstance(event, CardPlayed):
            assert isinstance(wanted, CardPlayed)
            return self.compare_play(event, wanted)
        if isinstance(event, RoundStarted):
            assert isinstance(wanted, RoundStarted)
            return self.compare_round_started(event, wanted)
        if isinstance(event, CardsDealt):
            assert isinstance(wanted, CardsDealt)
            return self.compare_deal(event, wanted)
        if isinstance(event, FloorDealt):
            assert isinstance(wanted, FloorDealt)
            return self.compare_floor(event, wanted)
        if isinstance(event, RoundScored):
            assert isinstance(wanted, RoundScored)
            return _compare_score(event, wanted)
        if isinstance(event, MatchEnded):
            assert isinstance(wanted, MatchEnded)
            return _compare_end(event, wanted)
        if event != wanted:
            raise _Diverged(_kind(event), f"{_name(event)} differs from what the rules give")
        return event

    def compare_play(self, event: CardPlayed, wanted: CardPlayed) -> CardPlayed:
        """R8-R18: what the card takes, by which groups, and its Basra."""
        rules = self.rules
        assert rules is not None
        head = f"seat {event.seat} plays {_card(event.card)}"
        if event.captured != wanted.captured:
            took = cards_text(event.captured) if event.captured else "nothing"
            should = cards_text(wanted.captured) if wanted.captured else "nothing (a trail, R12)"
            raise _Diverged(
                "play",
                f"{head} and the stream has it take {took}; the rules take {should} (R8-R11)",
            )
        if event.basra != wanted.basra:
            raise _Diverged(
                "play",
                f"{head} and the stream scores a Basra of {event.basra}; under {rules.name} rules"
                f" it scores {wanted.basra} ({BASRA_RULING[rules.name]})",
            )
        groups_given = bool(event.groups) or not self.lenient
        if groups_given and event.groups != wanted.groups:
            raise _Diverged(
                "play",
                f"{head} and the stream groups its haul as {_groups(event.groups)}; the rules"
                f" group it as {_groups(wanted.groups)} (R8)",
            )
        sweep_given = event.sweep or not self.lenient
        if sweep_given and event.sweep != wanted.sweep:
            raise _Diverged(
                "play",
                f"{head} and the stream marks it {'a' if event.sweep else 'no'} sweep; the rules"
                f" say {'a' if wanted.sweep else 'no'} sweep (R10, R11)",
            )
        if event.auto != wanted.auto or event.seat != wanted.seat or event.card != wanted.card:
            raise _Diverged("play", f"{head}: the recorded play differs from the rules' one")
        return wanted

    def compare_round_started(self, event: RoundStarted, wanted: RoundStarted) -> RoundStarted:
        """R3: rounds in order; the first dealer from the seed, then the deal passes on."""
        if event.round != wanted.round:
            raise _Diverged(
                "deal", f"round {event.round} starts where round {wanted.round} belongs"
            )
        seats = self.state.seat_count()
        if event.round == 1 and not self.seeded:
            if not 0 <= event.dealer < seats:
                raise _Diverged("deal", f"seat {event.dealer} is not a seat of this table")
            return event  # without the secret the first dealer is taken as recorded
        if event.dealer != wanted.dealer:
            why = "the seed draws" if event.round == 1 else "the deal passes to (R3)"
            raise _Diverged(
                "deal",
                f"round {event.round} is dealt by seat {event.dealer}; {why} seat {wanted.dealer}",
            )
        return event

    def compare_deal(self, event: CardsDealt, wanted: CardsDealt) -> CardsDealt:
        """R4-R6: the seed's deal exactly; without a seed, full hands of unseen cards."""
        where = f"deal {event.deal} of round {event.round}"
        if (event.round, event.deal) != (wanted.round, wanted.deal):
            raise _Diverged(
                "deal", f"{where} is where deal {wanted.deal} of round {wanted.round} belongs"
            )
        seats = self.state.seat_count()
        if len(event.hands) != seats:
            raise _Diverged("deal", f"{where} has {len(event.hands)} hands for {seats} seats")
        for seat, hand in enumerate(event.hands):
            if hand is None:
                raise _Diverged(
                    "deal", f"{where}: seat {seat}'s hand is hidden, so the deal cannot be checked"
                )
        if self.seeded:
            for seat, (hand, should) in enumerate(zip(event.hands, wanted.hands, strict=True)):
                if hand != should:
                    raise _Diverged(
                        "deal",
                        f"{where}: the stream deals seat {seat} {cards_text(hand or ())}; the seed"
                        f" deals {cards_text(should or ())} (R6, FAIRNESS.md)",
                    )
            return event
        rules = self.rules
        assert rules is not None
        dealt: list[Card] = []
        for seat, hand in enumerate(event.hands):
            assert hand is not None
            if len(hand) != rules.hand_size:
                raise _Diverged(
                    "deal",
                    f"{where}: seat {seat} gets {len(hand)} cards; a deal is {rules.hand_size}"
                    " each (R4, R5)",
                )
            dealt.extend(hand)
        self._unseen(where, dealt)
        return event

    def compare_floor(self, event: FloorDealt, wanted: FloorDealt) -> FloorDealt:
        """R4: the first floor turned from the stock, Jacks (and a powered 7♦) sent back."""
        where = f"the first floor of round {event.round}"
        if event.round != wanted.round:
            raise _Diverged("deal", f"{where} is where round {wanted.round}'s belongs")
        if self.seeded:
            if event.cards != wanted.cards:
                raise _Diverged(
                    "deal",
                    f"{where} is {cards_text(event.cards)}; the seed turns"
                    f" {cards_text(wanted.cards)} (R4, FAIRNESS.md)",
                )
            if event.reburied != wanted.reburied:
                raise _Diverged(
                    "deal",
                    f"{where} sends back {cards_text(event.reburied)}; the seed sends back"
                    f" {cards_text(wanted.reburied)} (R4)",
                )
            return event
        rules = self.rules
        assert rules is not None
        if len(event.cards) != 4:
            raise _Diverged("deal", f"{where} has {len(event.cards)} cards; it has 4 (R4)")
        for card in event.cards:
            if rules.sent_back_from_first_floor(card):
                raise _Diverged("deal", f"{where} holds {_card(card)}, which is sent back (R4)")
        for card in event.reburied:
            if not rules.sent_back_from_first_floor(card):
                raise _Diverged("deal", f"{where} sends back {_card(card)}, which stays (R4)")
        self._unseen(where, [*event.cards, *event.reburied])
        return event

    def _unseen(self, where: str, cards: list[Card]) -> None:
        """Cards dealt without a seed must be distinct cards still in the stock."""
        stock = set(self.state.stock)
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                raise _Diverged("deal", f"{where} deals {_card(card)} twice")
            if card not in stock:
                raise _Diverged("deal", f"{where} deals {_card(card)}, which is not in the stock")
            seen.add(card)


def _compare_score(event: RoundScored, wanted: RoundScored) -> RoundScored:
    """R19-R21: the last pickup, card counts, majority and carry, point cards, Basras, totals."""
    where = f"round {event.round}'s score"
    if event.round != wanted.round:
        raise _Diverged("score", f"{where} is where round {wanted.round}'s belongs")
    if event.last_pickup != wanted.last_pickup:
        raise _Diverged(
            "score",
            f"{where} gives the last floor {_pickup(event)}; the rules give it {_pickup(wanted)}"
            " (R19)",
        )
    if len(event.sides) != len(wanted.sides):
        raise _Diverged("score", f"{where} has {len(event.sides)} sides; a match has 2 (R2)")
    labels = (
        ("cards", "cards", "R19"),
        ("majority", "most-cards award", "R20"),
        ("points", "point cards", "R18a"),
        ("basra", "Basra points", "R14-R18"),
        ("total", "round total", "R21"),
    )
    for side, (got, should) in enumerate(zip(event.sides, wanted.sides, strict=True)):
        for field, label, ruling in labels:
            a, b = getattr(got, field), getattr(should, field)
            if a != b:
                raise _Diverged(
                    "score", f"{where}: side {side}'s {label} is {a}; the rules give {b} ({ruling})"
                )
    if event.carry != wanted.carry:
        raise _Diverged(
            "score", f"{where}: the carry is {event.carry}; the rules give {wanted.carry} (R20)"
        )
    if event.totals != wanted.totals:
        raise _Diverged(
            "score",
            f"{where}: the match totals are {_totals(event.totals)}; the rules give"
            f" {_totals(wanted.totals)} (R21)",
        )
    return event


def _compare_end(event: MatchEnded, wanted: MatchEnded) -> MatchEnded:
    """R22, R25, R26: who wins, why, the totals and the revealed secret."""
    if event.reason != wanted.reason:
        raise _Diverged(
            "end", f"the match ends by {event.reason}; the rules end it by {wanted.reason} (R22)"
        )
    if event.winner != wanted.winner:
        raise _Diverged(
            "end",
            f"the stream names {_winner(event.winner)} the winner; the rules name"
            f" {_winner(wanted.winner)} (R22, R26)",
        )
    if event.totals != wanted.totals:
        raise _Diverged(
            "end",
            f"the final totals are {_totals(event.totals)}; the rules give"
            f" {_totals(wanted.totals)}",
        )
    if event.seed != wanted.seed:
        raise _Diverged(
            "end", "the secret revealed at the end is not the match's secret (FAIRNESS.md)"
        )
    if event.seat != wanted.seat:
        raise _Diverged(
            "end", f"the end names seat {event.seat}; the rules name seat {wanted.seat}"
        )
    return event


def _kind(event: Event) -> str:
    if isinstance(event, CardPlayed):
        return "play"
    if isinstance(event, SeatTaken):
        return "seat"
    if isinstance(event, MatchEnded):
        return "end"
    if isinstance(event, RoundScored):
        return "score"
    return "deal"


def _name(event: Event) -> str:
    return event_tag(event)


def _card(card: Card) -> str:
    try:
        return display(card)
    except KeyError:
        return repr(card)


def _groups(groups: tuple[tuple[Card, ...], ...]) -> str:
    if not groups:
        return "nothing"
    return " / ".join("+".join(_card(c) for c in g) for g in groups)


def _totals(totals: tuple[int, ...]) -> str:
    return "–".join(str(t) for t in totals)


def _winner(winner: int | None) -> str:
    return "nobody (a draw)" if winner is None else f"side {winner}"


def _pickup(event: RoundScored) -> str:
    pickup = event.last_pickup
    if pickup is None:
        return "to nobody"
    return f"to side {pickup.side} ({cards_text(pickup.cards)})"


def _expected_text(event: Event) -> str:
    if isinstance(event, CardsDealt):
        return f"deal {event.deal} of round {event.round}"
    if isinstance(event, FloorDealt):
        return f"the first floor of round {event.round}"
    if isinstance(event, RoundStarted):
        return f"round {event.round}, dealt by seat {event.dealer}"
    if isinstance(event, RoundScored):
        return f"the score of round {event.round}"
    if isinstance(event, MatchEnded):
        return f"the end of the match, {_winner(event.winner)} winning by {event.reason}"
    return _name(event)
