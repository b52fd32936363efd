"""What each route does, as blocking functions over the service (docs/architecture.md L6).

The runtime runs them on the event loop (short calls on a SQLite store) or on a worker
thread (long reads, and every call on PostgreSQL): ``ApiRuntime.call`` and ``offload``.

Handlers authenticate and hand over here; everything that reaches a seat is built from
``seat_view``, ``preview_play`` and ``event_line`` with that seat as the viewer (R23).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import assert_never

import msgspec

from app.api.after import after_of
from app.api.errors import IdempotencyKeyReusedError, MissingTokenError
from app.api.facts import (
    IDEMPOTENT_PREFIX,
    FactsCache,
    MatchFacts,
    RequestRecord,
    request_scope,
)
from app.api.schemas import (
    LeaveResponse,
    MatchCreatedResponse,
    PlayResponse,
    PreviewResponse,
    SeatTokenResponse,
)
from app.api.table_schemas import SeatViewResponse
from app.api.tokens import issue_token
from app.errors import ConflictError
from app.service import MatchService
from app.service.players import PlayerService
from domain.cards import parse_card
from domain.errors import CardNotInHandError, MatchEndedError, NotYourTurnError
from domain.events import (
    CardPlayed,
    CardsDealt,
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
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.players import resolve_names
from domain.recorded import RecordedEvent, event_line
from domain.redaction import EVERYONE, SUPPORT
from domain.state import MatchState
from domain.views import SeatView, SupportView, TableView, preview_play, seat_view, support_view
from domain.views import table_view as public_view
from replays.replay_file import write_replay

CONFLICT_RETRIES = 3
"""How often a play without ``seq`` is decided again after losing a race to another process."""


def new_request_id() -> str:
    """A fresh request id for a request without an ``Idempotency-Key``."""
    return f"req-{secrets.token_hex(8)}"


def idempotent_request_id(match_id: str, seat: int, key: str, card: str, seq: int | None) -> str:
    """The request id of a play sent with an ``Idempotency-Key``: the key (per seat) and body.

    ``idem-KEY-BODY``: the same key with the same body finds the first result; the same key
    with another body is refused.
    """
    scope = hashlib.sha256(f"{match_id}\n{seat}\n{key}".encode()).hexdigest()[:24]
    body = hashlib.sha256(f"{card}\n{seq}".encode()).hexdigest()[:8]
    return f"{IDEMPOTENT_PREFIX}{scope}-{body}"


def event_lines(recorded: Sequence[RecordedEvent], viewer: int) -> list[msgspec.Raw]:
    """Replay-file lines of ``recorded`` for ``viewer``; open only if they reach the end (R23)."""
    revealed = any(isinstance(r.event, MatchEnded) for r in recorded)
    return [msgspec.Raw(event_line(r, viewer, revealed)) for r in recorded]


def status_after(recorded: Sequence[RecordedEvent], before: str = "waiting") -> str:
    """The match's status after a command's ``recorded`` events, from the events themselves.

    A table deals its first round when its last seat is taken, and ends with ``match_ended``.
    """
    status = before
    for item in recorded:
        match tagged(item.event):
            case MatchEnded():
                return "ended"
            case RoundStarted():
                status = "playing"
            case (
                MatchCreated()
                | SeatTaken()
                | CardsDealt()
                | FloorDealt()
                | CardPlayed()
                | RoundScored()
                | RematchCreated()
            ):
                pass  # the status changes only when a round starts or the match ends
            case unreachable:
                assert_never(unreachable)
    return status


def create_match(
    service: MatchService,
    *,
    ruleset: str,
    seats: int,
    target: int | None,
    bots: Sequence[int],
    bot_kind: str,
    seed: str | None,
    bot_kinds: Mapping[int, str] | None = None,
    bot_budget: int | None = None,
    request_id: str,
    turn_seconds: int | None = None,
    private: bool = False,
    spectators: bool = True,
) -> MatchCreatedResponse:
    """A new match; a table of bots only is played through at once by the service.

    Without ``turn_seconds`` the server's turn time applies (``basra serve --turn-seconds``).
    """
    secret = secret_from_text_seed(seed) if seed is not None else None
    match_id, recorded = service.create_match(
        ruleset=ruleset,
        seats=seats,
        target=target,
        bots=bots,
        bot_kind=bot_kind,
        bot_kinds=dict(bot_kinds) if bot_kinds else None,
        bot_budget=bot_budget,
        secret=secret,
        caused_by="server",
        request_id=request_id,
        turn_seconds=turn_seconds,
        private=private,
        spectators=spectators,
    )
    created = recorded[0].event
    if not isinstance(created, MatchCreated):
        # Not a refusal: the service broke its own promise, a fault of the server (500).
        raise TypeError("the first event of a new match is not match_created")
    status = status_after(recorded)
    # Nobody has sat down yet: every seat that is not a bot's is open while the table waits.
    waiting = status == "waiting"
    settings = table_settings(created)
    return MatchCreatedResponse(
        match_id=match_id,
        ruleset=created.ruleset,
        seats=created.seats,
        target=created.target,
        bots=created.bots,
        bot_kind=created.bot_kind,
        status=status,
        open_seats=tuple(s for s in range(created.seats) if waiting and s not in created.bots),
        commitment=created.commitment,
        seq=recorded[-1].seq,
        turn_seconds=settings.turn_seconds,
        private=settings.private,
        spectators=settings.spectators,
    )


def take_seat(
    service: MatchService,
    match_id: str,
    seat: int,
    name: str,
    request_id: str,
    player_id: str | None = None,
    client_seed: str = "",
) -> SeatTokenResponse:
    """Seat a person (a registered player when ``player_id`` is given) and give them the seat's
    bearer token; only its hash is stored. ``client_seed`` enters the deal (docs/fairness.md)."""
    issued = issue_token(match_id, seat)
    recorded = service.take_seat(
        match_id,
        seat,
        name,
        token_id=issued.token_id,
        token_hash=issued.token_hash,
        caused_by=f"seat:{seat}/token:{issued.token_id}",
        request_id=request_id,
        player_id=player_id,
        client_seed=client_seed,
    )
    taken = recorded[0].event
    if not isinstance(taken, SeatTaken):
        raise TypeError("the first event of taking a seat is not seat_taken")
    return SeatTokenResponse(
        match_id=match_id,
        seat=seat,
        name=taken.name,
        token=issued.token,
        token_id=issued.token_id,
        status=status_after(recorded),
        seq=recorded[-1].seq,
    )


def named(service: MatchService, players: PlayerService | None, match_id: str) -> MatchState:
    """The match with each registered player's seat under the player's name now."""
    state = service.load(match_id)
    if players is None or not state.player_ids:
        return state
    return resolve_names(state, players.shown_names(state.player_ids))


def table(service: MatchService, match_id: str, players: PlayerService | None = None) -> TableView:
    """The public table: no hand at all (R23)."""
    return public_view(named(service, players, match_id))


def view(
    service: MatchService, match_id: str, seat: int, players: PlayerService | None = None
) -> SeatView | SupportView:
    """The table as ``seat`` sees it, or support's view for SUPPORT."""
    state = named(service, players, match_id)
    if seat == SUPPORT:
        return support_view(state)
    return seat_view(state, seat)


def preview(service: MatchService, match_id: str, seat: int, card_text: str) -> PreviewResponse:
    """R24: what the card would take; nothing is appended."""
    card = parse_card(card_text)
    state = service.load(match_id)
    if state.status == "ended":
        raise MatchEndedError("the match has ended")
    outcome = preview_play(state, seat, card)
    return PreviewResponse(
        match_id=match_id,
        seat=seat,
        seq=state.events,
        card=outcome.card,
        captured=outcome.captured,
        groups=outcome.groups,
        basra=outcome.basra,
        sweep=outcome.sweep,
    )


def play(
    service: MatchService,
    facts: FactsCache,
    *,
    match_id: str,
    seat: int,
    card_text: str,
    expected_seq: int | None,
    caused_by: str,
    idempotency_key: str | None,
) -> PlayResponse:
    """Play a card (then the bots' replies); a retried idempotent play returns the first result.

    An earlier play with the same key is looked for in this process's facts first. Without
    ``seq`` the store is read too, since a card can come back in a later round's hand; with
    ``seq`` a repeat can never be applied again (the stream has moved past it), so the store is
    read only if the play is refused.
    """
    card = parse_card(card_text)
    # R25: the play is judged at its arrival, however often it is decided again below.
    arrived = service.clock()
    guard: Callable[[MatchState], None] | None = None
    if idempotency_key is None:
        request_id = new_request_id()
    else:
        request_id = idempotent_request_id(match_id, seat, idempotency_key, card, expected_seq)
        first = _earlier(facts, match_id, request_id, fresh=expected_seq is None)
        if first is not None:
            return _replayed(service, match_id, seat, first)
        guard = _key_unused(facts, match_id, request_id)
    for attempt in range(CONFLICT_RETRIES):
        try:
            recorded = service.play_card(
                match_id,
                seat,
                card,
                expected_seq=expected_seq,
                caused_by=caused_by,
                request_id=request_id,
                arrived=arrived,
                guard=guard,
            )
            break
        except _KeyAlreadyUsed as used:
            return _replayed(service, match_id, seat, used.record)
        except (ConflictError, NotYourTurnError, CardNotInHandError, MatchEndedError):
            if idempotency_key is not None:
                # Another process may have applied this very request meanwhile.
                first = _earlier(facts, match_id, request_id, fresh=True)
                if first is not None:
                    return _replayed(service, match_id, seat, first)
            if expected_seq is not None or attempt == CONFLICT_RETRIES - 1:
                raise
            # A stale writer lost without a ``seq`` from the client: decide again on the new state
            # (which refuses it precisely if the play no longer makes sense).
    return _result(service, match_id, seat, recorded)


class _KeyAlreadyUsed(Exception):
    """The play's ``Idempotency-Key`` was used, with the same body, in the stream it follows."""

    def __init__(self, record: RequestRecord) -> None:
        super().__init__(record.request_id)
        self.record = record


def _key_unused(facts: FactsCache, match_id: str, request_id: str) -> Callable[[MatchState], None]:
    """The check, run on the very state a play is decided on, that its key is unused so far.

    The play is appended at the next seq after that state or not at all (another append in
    between makes it a conflict, and it is decided again), so a key found unused in the stream
    up to that seq cannot land twice, on any number of processes: the check and the append are
    one step of the store's optimistic append. A key found used answers with the first result
    (``_KeyAlreadyUsed``) or, used with another body, 422 ``idempotency_key_reused``.
    """

    def check(before: MatchState) -> None:
        first = _earlier_in(facts.get(match_id, known_seq=before.events), request_id)
        if first is not None:
            raise _KeyAlreadyUsed(first)

    return check


def _earlier(
    facts: FactsCache, match_id: str, request_id: str, *, fresh: bool
) -> RequestRecord | None:
    """The record of an earlier play with the same key, or None; 422 if its body differed."""
    match_facts = facts.refresh(match_id) if fresh else facts.cached(match_id)
    if match_facts is None:
        match_facts = facts.get(match_id)
    return _earlier_in(match_facts, request_id)


def _earlier_in(match_facts: MatchFacts, request_id: str) -> RequestRecord | None:
    """The record of a play with ``request_id``'s key in ``match_facts``; 422 if its body
    differed."""
    record = match_facts.requests.get(request_scope(request_id))
    if record is None:
        return None
    if record.request_id != request_id:
        raise IdempotencyKeyReusedError(
            "this Idempotency-Key was already used with a different body"
        )
    return record


def _replayed(
    service: MatchService, match_id: str, seat: int, record: RequestRecord
) -> PlayResponse:
    """The first result of an idempotent play, rebuilt from the events it appended."""
    recorded = service.events(match_id, record.first_seq - 1)
    recorded = [r for r in recorded if r.seq <= record.last_seq]
    return _result(service, match_id, seat, recorded)


def _result(
    service: MatchService, match_id: str, seat: int, recorded: list[RecordedEvent]
) -> PlayResponse:
    played = recorded[0].event
    if not isinstance(played, CardPlayed):
        # Not a refusal: the stream itself is wrong, a fault of the server (500).
        raise TypeError("the first event of a play is not card_played")
    last = recorded[-1].seq
    return PlayResponse(
        match_id=match_id,
        seat=seat,
        card=played.card,
        captured=played.captured,
        basra=played.basra,
        seq=last,
        events=event_lines(recorded, seat),
        view=_seat_view_at(service, match_id, seat, last, recorded[-1].chain),
    )


def _seat_view_at(
    service: MatchService, match_id: str, seat: int, seq: int, chain: str | None
) -> SeatViewResponse:
    """The seat's view right after ``seq`` (folded again only when the match has moved on),
    with its live turn and the receipt ``chain`` of ``seq``."""
    state = service.cache.get(match_id)  # the state the command just stored, if still current
    if state is None or state.events != seq:
        state = service.load(match_id)
    if state.events != seq:
        state = fold(r.event for r in service.events(match_id) if r.seq <= seq)
    view = seat_view(state, seat)
    after = after_of(state, service.clock(), chain)
    return SeatViewResponse(**msgspec.structs.asdict(view), after=after)


def leave(
    service: MatchService, match_id: str, seat: int, caused_by: str, request_id: str
) -> LeaveResponse:
    """The seat leaves, forfeiting for its side (R26); the events as the seat sees them."""
    recorded = service.leave(match_id, seat, caused_by=caused_by, request_id=request_id)
    return LeaveResponse(
        match_id=match_id, seat=seat, seq=recorded[-1].seq, events=event_lines(recorded, seat)
    )


def replay_file(
    service: MatchService,
    match_id: str,
    viewer: int | None,
    players: PlayerService | None = None,
) -> bytes:
    """The replay file: support's at any time, a seat's own before the end, anyone's after it.

    ``viewer`` is SUPPORT, a seat, or None for an anonymous caller. A registered player's seat
    carries the player's name now, in the header and in its ``seat_taken`` line (with its
    ``player_id``), so an erased name is in no export made after the erasure.
    """
    recorded = service.events(match_id)
    ended = any(isinstance(r.event, MatchEnded) for r in recorded)
    if viewer is None and not ended:
        raise MissingTokenError(
            "this route needs an 'Authorization: Bearer TOKEN' header until the match has ended"
        )
    state = named(service, players, match_id)
    if state.player_ids:
        shown = dict(zip(state.player_ids, state.names, strict=False))
        recorded = [_named_seat(r, shown) for r in recorded]
    if viewer is None:
        viewer = EVERYONE
    return write_replay(recorded, state.names, viewer)


def _named_seat(recorded: RecordedEvent, shown: dict[str | None, str | None]) -> RecordedEvent:
    """``recorded`` with a registered player's ``seat_taken`` under the name shown now."""
    event = recorded.event
    if not isinstance(event, SeatTaken) or not isinstance(event.player_id, str):
        return recorded
    name = shown.get(event.player_id) or event.name
    return msgspec.structs.replace(recorded, event=msgspec.structs.replace(event, name=name))
