"""What each route does, as blocking functions over the service (docs/architecture.md L6).

The runtime runs them on the event loop (short calls on a SQLite store) or on a worker
thread (long reads, and every call on PostgreSQL): ``ApiRuntime.call`` and ``offload``.

Handlers authenticate and hand over here; everything that reaches a seat is built from
``seat_view``, ``preview_play`` and ``event_line`` with that seat as the viewer (R23).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence, Set

import msgspec

from app.api.edges.errors import IdempotencyKeyReusedError, MissingTokenError
from app.api.edges.tokens import issue_token, new_request_id
from app.api.matches.schemas import (
    LeaveResponse,
    MatchCreatedResponse,
    PlayResponse,
    PreviewResponse,
    SeatTokenResponse,
)
from app.api.table.after import after_of, with_after
from app.api.table.schemas import SeatViewResponse
from app.runtime.facts import (
    IDEMPOTENT_PREFIX,
    FactsCache,
    RequestRecord,
    request_scope,
)
from app.service import MatchService
from app.service.players import PlayerService
from domain.cards import parse_card
from domain.errors import MatchEndedError
from domain.events import (
    CardPlayed,
    MatchEnded,
    SeatTaken,
)
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.players import resolve_names
from domain.recorded import RecordedEvent, event_line
from domain.redaction import EVERYONE, SUPPORT
from domain.state import MatchState
from domain.views import SeatView, SupportView, TableView, preview_play, seat_view, support_view
from domain.views import table_view as public_view
from replays.replay_file import write_replay


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


def lines_with_after(
    recorded: Sequence[RecordedEvent],
    viewer: int,
    before: MatchState,
    now: str,
    connected: Set[int] = frozenset(),
) -> list[msgspec.Raw]:
    """The lines of ``recorded`` for ``viewer``, each with ``after`` (the table right after it),
    exactly as the feed sends them: a client folds an answer's events as it folds its feed's."""
    revealed = any(isinstance(r.event, MatchEnded) for r in recorded)
    state = before
    lines = []
    for r in recorded:
        state = evolve(state, r.event)
        after = after_of(state, now, r.chain, connected)
        lines.append(msgspec.Raw(with_after(event_line(r, viewer, revealed), after)))
    return lines


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
    outcome = service.create_match(
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
    after = outcome.after
    setup = after.setup
    if setup is None:
        # Not a refusal: the service broke its own promise, a fault of the server (500).
        raise TypeError("a new match has no setup")
    # Nobody has sat down yet: every seat that is not a bot's is open while the table waits.
    waiting = after.status == "waiting"
    return MatchCreatedResponse(
        match_id=outcome.match_id,
        ruleset=setup.ruleset,
        seats=setup.seats,
        target=setup.target,
        bots=setup.bots,
        bot_kind=setup.bot_kind,
        status=after.status,
        open_seats=tuple(s for s in range(setup.seats) if waiting and s not in setup.bots),
        commitment=setup.commitment,
        seq=outcome.seq,
        turn_seconds=setup.turn_seconds,
        private=setup.private,
        spectators=setup.spectators,
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
    outcome = service.take_seat(
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
    return SeatTokenResponse(
        match_id=match_id,
        seat=seat,
        name=outcome.after.names[seat] or name,
        token=issued.token,
        token_id=issued.token_id,
        status=outcome.after.status,
        seq=outcome.seq,
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
    connected: Set[int] = frozenset(),
) -> PlayResponse:
    """Play a card (then the bots' replies); a retried idempotent play returns the first result.

    A play sent with an ``Idempotency-Key`` carries a check the service runs on the very state
    it decides the play on, before anything else (``_key_unused``): a key already used there
    answers with the first result, so the check and the append are one optimistic step, and a
    repeat is recognised however the stream moved on since (docs/api.md, "Idempotent plays").
    ``connected``: the seats connected now, for the view's flags.
    """
    card = parse_card(card_text)
    guard: Callable[[MatchState], None] | None = None
    if idempotency_key is None:
        request_id = new_request_id()
    else:
        request_id = idempotent_request_id(match_id, seat, idempotency_key, card, expected_seq)
        guard = _key_unused(facts, match_id, request_id)
    try:
        outcome = service.play_card(
            match_id,
            seat,
            card,
            expected_seq=expected_seq,
            caused_by=caused_by,
            request_id=request_id,
            guard=guard,
        )
    except _KeyAlreadyUsed as used:
        return _replayed(service, match_id, seat, used.record, connected)
    return _result(
        service, match_id, seat, outcome.events, outcome.before, outcome.after, connected
    )


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
        record = facts.get(match_id, known_seq=before.events).requests.get(
            request_scope(request_id)
        )
        if record is None:
            return
        if record.request_id != request_id:
            raise IdempotencyKeyReusedError(
                "this Idempotency-Key was already used with a different body"
            )
        raise _KeyAlreadyUsed(record)

    return check


def _replayed(
    service: MatchService,
    match_id: str,
    seat: int,
    record: RequestRecord,
    connected: Set[int] = frozenset(),
) -> PlayResponse:
    """The first result of an idempotent play, from the events it appended."""
    recorded = service.events(match_id, record.first_seq - 1)
    recorded = [r for r in recorded if r.seq <= record.last_seq]
    before = service.state_at(match_id, record.first_seq - 1)
    after = before
    for r in recorded:
        after = evolve(after, r.event)
    return _result(service, match_id, seat, recorded, before, after, connected)


def _result(
    service: MatchService,
    match_id: str,
    seat: int,
    recorded: list[RecordedEvent],
    before: MatchState,
    after: MatchState,
    connected: Set[int] = frozenset(),
) -> PlayResponse:
    """A play's answer: what it took, its events as ``seat`` sees them (each with the table
    right after it, as in the feed), and the seat's view right after them (``after``), with
    its live turn and the receipt chain of its last seq."""
    played = recorded[0].event
    if not isinstance(played, CardPlayed):
        # Not a refusal: the stream itself is wrong, a fault of the server (500).
        raise TypeError("the first event of a play is not card_played")
    view = seat_view(after, seat)
    now = service.clock()
    live = after_of(after, now, recorded[-1].chain, connected)
    return PlayResponse(
        match_id=match_id,
        seat=seat,
        card=played.card,
        captured=played.captured,
        basra=played.basra,
        seq=recorded[-1].seq,
        events=lines_with_after(recorded, seat, before, now, connected),
        view=SeatViewResponse(**msgspec.structs.asdict(view), after=live, connected=live.connected),
    )


def leave(
    service: MatchService, match_id: str, seat: int, caused_by: str, request_id: str
) -> LeaveResponse:
    """The seat leaves, forfeiting for its side (R26); the events as the seat sees them."""
    outcome = service.leave(match_id, seat, caused_by=caused_by, request_id=request_id)
    lines = lines_with_after(outcome.events, seat, outcome.before, service.clock())
    return LeaveResponse(match_id=match_id, seat=seat, seq=outcome.seq, events=lines)


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
