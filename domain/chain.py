"""``basra-chain-v1``: the hash chain over a match stream (docs/fairness.md, "The chain").

Every event carries ``chain``, a SHA-256 over the previous event's ``chain``, a blinding value
drawn from the match secret, and the event's canonical record: its seq, record time, type and
fields as first recorded. The fields a public file does not show as recorded (who caused the
event, through which request and token; a registered player's seat name, which files show as
it is when written) enter through their hash, ``sealed``, which every file line carries. The
blinding keeps a seat from testing guesses of cards it cannot see against a chain head: only
the secret, revealed at the end, makes a link recomputable.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from domain.events import MatchCreated, SeatTaken
from domain.fairness import keyed

if TYPE_CHECKING:  # domain.recorded writes file lines with the links of this module
    from domain.recorded import RecordedEvent

CHAIN_LABEL = b"basra-chain-v1"
"""Prefixes every link's hash input."""

BLIND_LABEL = b"basra-chain-v1/blind"
"""Prefixes the message of every link's blinding value."""

SEALED_LABEL = b"basra-chain-v1/sealed"
"""Prefixes the hash input of the sealed fields."""

START = "0" * 64
"""The link before seq 1: 32 zero bytes."""

_SEQ = struct.Struct(">Q")
_LENGTH = struct.Struct(">I")


def canonical(value: Any) -> bytes:
    """JSON with sorted keys, no spaces, UTF-8 unescaped: RFC 8785 for the values events hold
    (the same bytes as Python's ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``)."""
    return msgspec.json.encode(value, order="sorted")


def _player_seat(recorded: RecordedEvent) -> bool:
    """A seat taken by a registered player, whose name files show as it is when written."""
    event = recorded.event
    return isinstance(event, SeatTaken) and isinstance(event.player_id, str)


def sealed_fields(recorded: RecordedEvent) -> dict[str, Any]:
    """The fields that enter the chain through their hash: the dispute trail and the token."""
    event = recorded.event
    fields: dict[str, Any] = {
        "caused_by": recorded.caused_by,
        "request_id": recorded.request_id,
        "token_id": event.token_id if isinstance(event, SeatTaken) else None,
        "token_hash": event.token_hash if isinstance(event, SeatTaken) else None,
    }
    if isinstance(event, SeatTaken) and _player_seat(recorded):
        fields["name"] = event.name
    return fields


def sealed_hash(recorded: RecordedEvent) -> str:
    """``SHA-256("basra-chain-v1/sealed" ‖ canonical(sealed fields))`` in hex."""
    return hashlib.sha256(SEALED_LABEL + canonical(sealed_fields(recorded))).hexdigest()


def record(recorded: RecordedEvent, sealed: str) -> dict[str, Any]:
    """The canonical record of an event: seq, at, type, its fields and ``sealed``.

    Left out: the sealed fields themselves, and what an import rewrites (``match_created``'s
    ``match_id`` and ``origin``), so an imported match keeps the chain of its file.
    """
    body: dict[str, Any] = msgspec.to_builtins(recorded.event)
    event = recorded.event
    if isinstance(event, MatchCreated):
        body.pop("match_id", None)
        body.pop("origin", None)
    elif isinstance(event, SeatTaken):
        body.pop("token_id", None)
        body.pop("token_hash", None)
        if _player_seat(recorded):
            body.pop("name", None)
    return {**body, "seq": recorded.seq, "at": recorded.at, "sealed": sealed}


def blind(secret: bytes, seq: int) -> bytes:
    """``HMAC-SHA256(key=S, "basra-chain-v1/blind" ‖ u64be(seq))``: seq's blinding value."""
    return keyed(secret).digest(BLIND_LABEL + _SEQ.pack(seq))


def link(previous: str, secret: bytes, seq: int, record_bytes: bytes) -> str:
    """``SHA-256("basra-chain-v1" ‖ previous ‖ blind(S, seq) ‖ lp(record))`` in hex."""
    data = b"".join(
        (
            CHAIN_LABEL,
            bytes.fromhex(previous),
            blind(secret, seq),
            _LENGTH.pack(len(record_bytes)),
            record_bytes,
        )
    )
    return hashlib.sha256(data).hexdigest()


def chain_of(
    recorded: RecordedEvent, previous: str, secret: bytes, sealed: str | None = None
) -> str:
    """The ``chain`` of ``recorded`` after the link ``previous`` (``sealed`` as given, or its
    hash from the event's own fields)."""
    seal = sealed if sealed is not None else sealed_hash(recorded)
    return link(previous, secret, recorded.seq, canonical(record(recorded, seal)))


def chained(
    entries: Sequence[RecordedEvent], previous: str | None, secret: bytes | None
) -> list[RecordedEvent]:
    """``entries`` (appended after the link ``previous``) each with its ``chain``.

    A stream is chained from its first event or not at all: after an unchained event
    (``previous`` None past seq 1), or in a match without a secret, the entries stay as given.
    """
    if secret is None or not entries:
        return list(entries)
    if previous is None:
        if entries[0].seq != 1:
            return list(entries)
        previous = START
    out: list[RecordedEvent] = []
    for entry in entries:
        previous = chain_of(entry, previous, secret, entry.sealed)
        out.append(msgspec.structs.replace(entry, chain=previous))
    return out


class ChainBreak(msgspec.Struct, frozen=True):
    """Where a stored chain stops holding: the seq and why."""

    seq: int
    reason: str


def chain_status(events: Sequence[RecordedEvent]) -> str:
    """``chained``, ``unchained`` (no event carries a link) or ``unchecked`` (no secret)."""
    if not events or events[0].chain is None:
        return "unchained"
    created = events[0].event
    if not isinstance(created, MatchCreated) or created.secret is None:
        return "unchecked"
    return "chained"


def first_break(events: Iterable[RecordedEvent], secret: bytes) -> ChainBreak | None:
    """The first event whose ``chain`` is not the link its content gives, or None.

    An event's ``sealed`` hash is recomputed from its stored fields, so a changed cause,
    request, token or player seat name breaks the chain at its seq; an imported event keeps the
    hash its file gave (what the import adds, such as its own cause, is outside the chain).
    """
    previous = START
    for entry in events:
        if entry.chain is None:
            return ChainBreak(entry.seq, "the event has no chain link, but the stream is chained")
        expected = chain_of(entry, previous, secret, entry.sealed)
        if expected != entry.chain:
            return ChainBreak(
                entry.seq,
                f"its chain link is {entry.chain[:16]}…, but the event as stored gives "
                f"{expected[:16]}…: this event was changed after it was recorded, "
                "or one before it was",
            )
        previous = entry.chain
    return None
