"""Reading a replay file (``basra-replay`` version 1): every line checked, then every rule.

``parse_replay`` checks the shape (JSON, fields, types, cards, gapless ``seq``) and names the
line of the first fault; ``load_replay`` also re-adjudicates the stream (``replays.audit``) and
names the line of the first event that breaks the rules. Nothing is stored here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final, assert_never

import msgspec

from domain.cards import INDEX, Card
from domain.events import (
    EVENT_DECODER,
    EVENT_TYPES,
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
    event_tag,
    tagged,
)
from domain.evolve import fold
from domain.recorded import RecordedEvent
from domain.rulesets import RULESETS
from domain.times import canonical_micros
from replays.audit import audit_events
from replays.audit_trail import SYNTHESISED_CAUSE
from replays.chain_check import check_file_chain
from replays.errors import ReplayFileError
from replays.replay_file import FORMAT, VERSION, ReplayHeader

KNOWN_TYPES: Final = frozenset(str(cls.__struct_config__.tag) for cls in EVENT_TYPES)
"""The event types this reader knows; a file with any other cannot be judged, so it is refused."""

_AT: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d{1,6}))?Z")
_HEX64: Final = re.compile(r"[0-9a-f]{64}")

# The header fields a match_created line may leave out: they are taken from the header.
_FROM_HEADER: Final = (
    "match_id",
    "ruleset",
    "seats",
    "target",
    "client_seeds",
    "commitment",
    "bots",
    "origin",
)


class ReplayFile(msgspec.Struct, frozen=True, kw_only=True):
    """A replay file read into its header and its recorded events, in stream order.

    ``lines`` gives each event's line in the file, or 0 for an event the file left out and the
    reader added from the header (a file written elsewhere may start at the first round).
    """

    header: ReplayHeader
    events: tuple[RecordedEvent, ...]
    lines: tuple[int, ...] = ()

    def line_of(self, seq: int) -> int:
        """The file line of the event at ``seq``; the header's (1) for an added event."""
        if 1 <= seq <= len(self.lines):
            return self.lines[seq - 1] or 1
        return seq + 1

    @property
    def last_line(self) -> int:
        """The file's last line (the header is line 1)."""
        return max(self.lines, default=len(self.events) + 1) or 1

    @property
    def synthesised(self) -> tuple[str, ...]:
        """The types of the events the reader added because the file left them out, in order."""
        return tuple(
            event_tag(item.event)
            for item, line in zip(self.events, self.lines, strict=True)
            if line == 0
        )


class _LineHead(msgspec.Struct, frozen=True):
    """The parts of an event line that are not the event itself."""

    seq: int
    at: str
    type: str
    caused_by: str | None = None
    request_id: str | None = None
    chain: str | None = None
    sealed: str | None = None


_HEAD_DECODER: Final = msgspec.json.Decoder(_LineHead)
_RAW_DECODER: Final = msgspec.json.Decoder(dict[str, Any])


def _split(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last line
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def _reason(error: Exception) -> str:
    text = str(error)
    if isinstance(error, msgspec.DecodeError) and not isinstance(error, msgspec.ValidationError):
        return f"not valid JSON ({text})"
    return text[:1].lower() + text[1:]


def parse_header(line: bytes) -> tuple[ReplayHeader, dict[str, Any]]:
    """The header (line 1) and its raw fields; raise ReplayFileError naming line 1."""
    try:
        raw = _RAW_DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise ReplayFileError(1, f"the header is {_reason(error)}") from None
    if raw.get("format") != FORMAT:
        raise ReplayFileError(1, f'not a replay file: the header\'s "format" is not "{FORMAT}"')
    version = raw.get("version")
    if version != VERSION:
        raise ReplayFileError(
            1, f"version {version!r} is not supported; this reader reads version {VERSION}"
        )
    for optional in ("players", "client_seeds"):
        if raw.get(optional) is None:
            raw.pop(optional, None)  # a file written elsewhere may leave these out
    try:
        header = msgspec.convert(raw, ReplayHeader)
    except msgspec.ValidationError as error:
        raise ReplayFileError(1, f"the header is invalid: {_reason(error)}") from None
    if header.ruleset not in RULESETS:
        raise ReplayFileError(
            1, f"unknown rule set {header.ruleset!r}; one of {', '.join(RULESETS)}"
        )
    if header.seats not in (2, 4):
        raise ReplayFileError(1, f"a table has 2 or 4 seats, not {header.seats} (R2)")
    if header.seed is not None and not _HEX64.fullmatch(header.seed):
        raise ReplayFileError(1, "the seed is the 32-byte match secret in lowercase hex")
    for name, values in (("client_seeds", header.client_seeds), ("players", header.players)):
        if values and len(values) != header.seats:
            raise ReplayFileError(1, f"{name} has {len(values)} entries for {header.seats} seats")
    return header, raw


def _at(number: int, text: str) -> str:
    """``at`` in the form of docs/replay-format.md, ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (padded)."""
    found = _AT.fullmatch(text)
    if found is None:
        raise ReplayFileError(
            number, f'"at" {text!r} is not a UTC time like 2026-11-29T21:44:08.123456Z'
        )
    fraction = (found.group(1) or "").ljust(6, "0")
    whole = text[:19]
    if canonical_micros(f"{whole}.000000Z") is None:
        raise ReplayFileError(number, f'"at" {text!r} is not a real date and time')
    return f"{whole}.{fraction}Z"


def _created(number: int, line: bytes, header: ReplayHeader, raw_header: dict[str, Any]) -> Event:
    """The match_created line, with what it leaves out taken from the header."""
    raw = _RAW_DECODER.decode(line)
    for name in _FROM_HEADER:
        if name not in raw and name in raw_header:
            raw[name] = raw_header[name]
    if raw.get("secret") is None:
        raw["secret"] = header.seed
    try:
        created = msgspec.convert(raw, MatchCreated)
    except msgspec.ValidationError as error:
        raise ReplayFileError(number, f"match_created is invalid: {_reason(error)}") from None
    if header.seed is not None and created.secret != header.seed:
        raise ReplayFileError(number, "the match secret differs from the header's seed")
    # The header's client seeds are the seats' (each seat may give its own when taken): they
    # are compared with the seats' once every seat_taken is read (load_replay).
    mismatched = [
        name
        for name in _FROM_HEADER
        if name in raw_header
        and name != "client_seeds"
        and getattr(header, name) != getattr(created, name)
    ]
    if mismatched:
        raise ReplayFileError(
            number, f"match_created differs from the header in {', '.join(mismatched)}"
        )
    return created


def _cards(event: Event) -> Iterable[Card]:
    """Every card an event names."""
    match tagged(event):
        case CardPlayed(card=card, captured=captured, groups=groups):
            yield card
            yield from captured
            for group in groups:
                yield from group
        case CardsDealt(hands=hands):
            for hand in hands:
                yield from hand or ()
        case FloorDealt(cards=cards, reburied=reburied):
            yield from cards
            yield from reburied
        case RoundScored(last_pickup=pickup):
            if pickup is not None:
                yield from pickup.cards
        case MatchCreated() | SeatTaken() | RoundStarted() | MatchEnded() | RematchCreated():
            pass
        case unknown:
            assert_never(unknown)


def _event(number: int, line: bytes, seq: int) -> Event:
    try:
        event = EVENT_DECODER.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise ReplayFileError(number, f"seq {seq}: {_reason(error)}") from None
    for card in _cards(event):
        if card not in INDEX:
            raise ReplayFileError(
                number, f"seq {seq}: {card!r} is not a card; write rank then suit, e.g. 10D (R1)"
            )
    if (
        isinstance(event, MatchEnded)
        and event.seed is not None
        and not _HEX64.fullmatch(event.seed)
    ):
        raise ReplayFileError(number, f"seq {seq}: the revealed seed is not 32 bytes of hex")
    return event


def _link(number: int, name: str, value: str | None) -> str | None:
    """A ``chain`` or ``sealed`` hash of an event line: 64 lowercase hex digits, when given."""
    if value is not None and not _HEX64.fullmatch(value):
        raise ReplayFileError(number, f'"{name}" is a SHA-256 in 64 lowercase hex digits')
    return value


def parse_replay(data: bytes) -> ReplayFile:
    """Read a replay file's lines; raise ReplayFileError at the first malformed line.

    A file that starts without ``match_created`` (or without any ``seat_taken``), as one written
    elsewhere may, gets them from its header; they are marked as added (``ReplayFile.lines``).
    """
    lines = _split(data)
    if not lines or not lines[0].strip():
        raise ReplayFileError(1, "the file is empty; its first line is the header")
    header, raw_header = parse_header(lines[0])
    events: list[RecordedEvent] = []
    numbers: list[int] = []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            raise ReplayFileError(number, "an empty line; every line after the header is an event")
        try:
            head = _HEAD_DECODER.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise ReplayFileError(number, f"not an event line: {_reason(error)}") from None
        seq = len(numbers) + 1
        if head.seq != seq:
            raise ReplayFileError(
                number,
                f"seq {head.seq} where seq {seq} belongs: events are numbered 1, 2, 3… with no"
                " gap, one line each, in stream order",
            )
        if head.type not in KNOWN_TYPES:
            raise ReplayFileError(
                number,
                f"seq {seq}: unknown event type {head.type!r}; this reader cannot judge it",
            )
        at = _at(number, head.at)
        if seq == 1 and head.type == "match_created":
            event = _created(number, line, header, raw_header)
        else:
            event = _event(number, line, seq)
        events.append(
            RecordedEvent(
                seq=seq,
                at=at,
                event=event,
                caused_by=head.caused_by,
                request_id=head.request_id,
                chain=_link(number, "chain", head.chain),
                sealed=_link(number, "sealed", head.sealed),
            )
        )
        numbers.append(number)
    if not events:
        raise ReplayFileError(2, "the file ends after its header; the first event is match_created")
    return _completed(header, events, numbers)


def _completed(header: ReplayHeader, events: list[RecordedEvent], numbers: list[int]) -> ReplayFile:
    """The stream with the table and its seats added from the header where the file has none."""
    first = events[0].event
    table: list[tuple[Event | RecordedEvent, int]]
    if isinstance(first, MatchCreated):
        created = first
        table = [(events[0], numbers[0])]
        later = list(zip(events[1:], numbers[1:], strict=True))
    else:
        created = _created_from_header(header)
        table = [(created, 0)]
        later = list(zip(events, numbers, strict=True))
    if later and not any(isinstance(item.event, SeatTaken) for item, _ in later):
        for seat in range(created.seats):
            if seat not in created.bots:
                given = header.players[seat] if header.players else None
                table.append((SeatTaken(seat=seat, name=given or f"player {seat}"), 0))
    stream: list[RecordedEvent] = []
    lines: list[int] = []
    for seq, (item, number) in enumerate([*table, *later], 1):
        if isinstance(item, RecordedEvent):
            stream.append(item if item.seq == seq else msgspec.structs.replace(item, seq=seq))
        else:
            # Added from the header: recorded when the file's first event was, by the import.
            stream.append(
                RecordedEvent(seq=seq, at=events[0].at, event=item, caused_by=SYNTHESISED_CAUSE)
            )
        lines.append(number)
    return ReplayFile(header=header, events=tuple(stream), lines=tuple(lines))


def _created_from_header(header: ReplayHeader) -> MatchCreated:
    """The table a file without ``match_created`` describes in its header."""
    return MatchCreated(
        match_id=header.match_id,
        ruleset=header.ruleset,
        seats=header.seats,
        target=header.target,
        secret=header.seed,
        client_seeds=header.client_seeds or ("",) * header.seats,
        commitment=header.commitment,
        bots=header.bots,
        origin=header.origin,
    )


def load_replay(data: bytes, *, bots: bool = True) -> ReplayFile:
    """Read and re-adjudicate a replay file; raise ReplayFileError naming the first bad line.

    Deals must be the seed's when the file has one, and are taken as recorded when ``seed`` is
    null; every play and score must follow the rules either way, and so must the dispute trail
    (who caused each event, and times that never go backwards, except inside a chain whose
    every link holds: audit_trail.TimeInversion). A hand hidden as ``null`` (a
    seat's export) cannot be checked, so such a file is refused, and so is a file cut short: a
    revealed seed, or a table of bots only, with no ``match_ended``.
    """
    replay = parse_replay(data)
    chain = check_file_chain(replay)  # the first changed line, before the rules
    result = audit_events(replay.events, bots=bots, lenient=True, chain_intact=chain == "chained")
    divergence = result.report.divergence
    if divergence is not None:
        if divergence.seq > len(replay.events):
            raise ReplayFileError(
                replay.last_line, f"the file ends too soon: {divergence.explanation}"
            )
        line = replay.line_of(divergence.seq)
        where = f"seq {line - 1}: " if replay.lines[divergence.seq - 1] else "the header: "
        raise ReplayFileError(line, where + divergence.explanation)
    _check_ended(replay)
    final = fold(result.events)
    names = final.names
    seeds = replay.header.client_seeds
    if seeds and final.setup is not None and tuple(seeds) != final.setup.client_seeds:
        raise ReplayFileError(
            1,
            f"client_seeds {list(seeds)} differ from the seats' client seeds"
            f" {list(final.setup.client_seeds)}",
        )
    players = replay.header.players
    if players and tuple(players) != names:
        raise ReplayFileError(
            1, f"players {list(players)} differ from the seats taken {list(names)}"
        )
    events = tuple(
        msgspec.structs.replace(item, event=event)
        for item, event in zip(replay.events, result.events, strict=True)
    )
    return ReplayFile(header=replay.header, events=events, lines=replay.lines)


def _check_ended(replay: ReplayFile) -> None:
    """Refuse a file that stops where its match cannot have stopped."""
    if any(isinstance(item.event, MatchEnded) for item in replay.events):
        return
    created = replay.events[0].event
    assert isinstance(created, MatchCreated)
    last = replay.last_line - 1
    if created.secret is not None:
        raise ReplayFileError(
            replay.last_line,
            f"the file ends too soon: it reveals the match secret (seed), which is revealed only"
            f" at the end, but no match_ended follows seq {last}",
        )
    if created.seats and len(created.bots) == created.seats:
        raise ReplayFileError(
            replay.last_line,
            f"the file ends too soon: every seat is a bot, so the match is played to its end at"
            f" once, but no match_ended follows seq {last}",
        )
