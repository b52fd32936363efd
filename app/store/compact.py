"""The compact stored form of a match event: a short topic and a MessagePack array.

Rows written before this form (docs/storage.md, "Stored rows") hold a JSON envelope under a
``basra:TAG`` topic and stay readable (app.store.decoding). A compact row is:

- topic: one letter per event kind (``COMPACT_TOPICS``), stable forever: a new stored form
  takes new letters, it never reuses these;
- state: a MessagePack array ``[event, at, caused_by, request_id, chain, sealed, chain_text,
  sealed_text]`` with trailing empty entries left off, where
  - ``event`` is the event's fields as an array in the order of ``LAYOUTS`` (no field names,
    no tag: the topic says the kind), trailing fields at their defaults left off, cards as their
    index in the deck (0-51, domain.cards.DECK) and absent table settings as nil;
  - ``at`` is the record time as integer microseconds since 1970-01-01 UTC, or the text itself
    when it is not in the canonical ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` form;
  - ``chain`` and ``sealed`` are the 32 raw bytes of their SHA-256 hex, or, for a value that
    is not 64 lowercase hex digits (an imported file's), nil there and the text in
    ``chain_text``/``sealed_text``.

Decoding gives back exactly the RecordedEvent that was encoded (tests/app/store/test_compact.py
checks every kind, and Hypothesis checks arbitrary ones), so the hash chain, replays and every
tool see the same events whichever form a row has.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Union

import msgspec

from app.errors import CorruptEventError
from domain.cards import DECK, INDEX
from domain.events import (
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
)
from domain.recorded import RecordedEvent

COMPACT_TOPICS: Final[dict[type[Event], str]] = {
    MatchCreated: "c",
    SeatTaken: "s",
    RoundStarted: "r",
    CardsDealt: "d",
    FloorDealt: "f",
    CardPlayed: "p",
    RoundScored: "o",
    MatchEnded: "e",
    RematchCreated: "m",
}
"""The stored topic of each event kind in the compact form (never reused, never changed)."""

EVENT_OF_COMPACT_TOPIC: Final[dict[str, type[Event]]] = {t: c for c, t in COMPACT_TOPICS.items()}
"""The event class stored under each compact topic."""

LAYOUTS: Final[dict[type[Event], tuple[str, ...]]] = {
    MatchCreated: (
        "match_id",
        "ruleset",
        "seats",
        "target",
        "secret",
        "client_seeds",
        "commitment",
        "bots",
        "bot_kind",
        "origin",
        "turn_seconds",
        "private",
        "spectators",
        "rematch_of",
        "bot_kinds",
        "bot_budget",
        "bot_logic",
        "reserved",
    ),
    SeatTaken: ("seat", "name", "token_id", "token_hash", "player_id", "client_seed"),
    RoundStarted: ("round", "dealer"),
    CardsDealt: ("round", "deal", "hands"),
    FloorDealt: ("round", "cards", "reburied", "deadline"),
    CardPlayed: ("seat", "card", "captured", "basra", "groups", "sweep", "auto", "deadline"),
    RoundScored: ("round", "last_pickup", "sides", "carry", "totals"),
    MatchEnded: ("winner", "reason", "totals", "seed", "seat"),
    RematchCreated: ("match_id",),
}
"""The stored order of each kind's fields. A field added to an event is added at the END of its
layout (rows written before it are shorter and read it at its default); nothing is ever
reordered or removed, or rows already stored would read wrong."""

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_AT_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"
_MICROSECOND: Final = timedelta(microseconds=1)

Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


class _Field(msgspec.Struct, frozen=True):
    """How one stored field of a kind is converted, and its default for trimming."""

    name: str
    encode: Convert
    decode: Convert
    default: Any
    has_default: bool


def _is_default(value: Any, field: _Field) -> bool:
    default = field.default
    return field.has_default and (
        value is default or (type(value) is type(default) and value == default)
    )


def _card_of_index(index: int) -> str:
    if not 0 <= index < len(DECK):
        raise ValueError(f"no card has index {index}")
    return DECK[index]


def _card_type(annotation: Any) -> bool:
    """Whether a field's written annotation names the Card type (cards are stored by index)."""
    return "Card" in str(annotation)


def _convert(tp: Any, cards: bool) -> tuple[Any, Convert, Convert]:
    """(stored type, encode, decode) of a value of type ``tp``; ``cards``: str values are cards."""
    origin = typing.get_origin(tp)
    if tp is str and cards:
        return int, INDEX.__getitem__, _card_of_index
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner, enc, dec = _convert(args[0], cards)
            if enc is _same:
                return tp, _same, _same
            return (
                tuple[inner, ...],  # type: ignore[valid-type]
                lambda v: tuple(map(enc, v)),
                lambda v: tuple(map(dec, v)),
            )
        return tp, _same, _same
    if origin in (Union, types.UnionType):
        members = typing.get_args(tp)
        unset = msgspec.UnsetType in members
        rest = [m for m in members if m is not msgspec.UnsetType and m is not type(None)]
        if unset and type(None) in members:
            raise TypeError(f"{tp}: a field may be UNSET or None, not both")
        if len(rest) == 1:
            inner, enc, dec = _convert(rest[0], cards)
        else:
            inner, enc, dec = Union[tuple(rest)], _same, _same  # noqa: UP007
        stored = inner | None
        if unset:  # absent is stored as nil: None is not a value of this field
            return (
                stored,
                lambda v: None if v is msgspec.UNSET else enc(v),
                lambda v: msgspec.UNSET if v is None else dec(v),
            )
        if enc is _same:
            return stored, _same, _same
        return (
            stored,
            lambda v: None if v is None else enc(v),
            lambda v: None if v is None else dec(v),
        )
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        shadow, fields = _shadow(tp, tuple(f.name for f in msgspec.structs.fields(tp)))
        return (
            shadow,
            lambda v: [f.encode(getattr(v, f.name)) for f in fields],
            lambda v: tp(*[f.decode(getattr(v, f.name)) for f in fields]),
        )
    return tp, _same, _same


def _shadow(cls: type[msgspec.Struct], layout: tuple[str, ...]) -> tuple[Any, tuple[_Field, ...]]:
    """The array-like struct a stored ``cls`` decodes into, and each field's conversions."""
    infos = {f.name: f for f in msgspec.structs.fields(cls)}
    written = {
        name: annotation
        for klass in reversed(cls.__mro__)
        for name, annotation in getattr(klass, "__annotations__", {}).items()
    }
    if set(layout) != set(infos) or len(layout) != len(infos):
        raise TypeError(f"{cls.__name__}: the stored layout {layout} is not its fields")
    shadow_fields: list[Any] = []
    fields: list[_Field] = []
    for name in layout:
        info = infos[name]
        stored, encode, decode = _convert(info.type, _card_type(written.get(name)))
        has_default = info.default is not msgspec.NODEFAULT
        default = encode(info.default) if has_default else None
        fields.append(_Field(name, encode, decode, default, has_default))
        shadow_fields.append((name, stored, default) if has_default else (name, stored))
    shadow = msgspec.defstruct(
        f"Stored{cls.__name__}", shadow_fields, array_like=True, frozen=True, gc=False
    )
    return shadow, tuple(fields)


class _Kind(msgspec.Struct, frozen=True):
    """Everything needed to store and read one event kind."""

    cls: type[Event]
    topic: str
    fields: tuple[_Field, ...]
    decoder: msgspec.msgpack.Decoder[Any]


def _kind(cls: type[Event]) -> _Kind:
    shadow, fields = _shadow(cls, LAYOUTS[cls])
    row = msgspec.defstruct(
        f"Stored{cls.__name__}Row",
        [
            ("event", shadow),
            ("at", int | str),
            ("caused_by", str | None, None),
            ("request_id", str | None, None),
            ("chain", bytes | None, None),
            ("sealed", bytes | None, None),
            ("chain_text", str | None, None),
            ("sealed_text", str | None, None),
        ],
        array_like=True,
        frozen=True,
        gc=False,
    )
    return _Kind(cls, COMPACT_TOPICS[cls], fields, msgspec.msgpack.Decoder(row))


_KINDS: Final[dict[type[Event], _Kind]] = {cls: _kind(cls) for cls in EVENT_TYPES}
_KIND_OF_TOPIC: Final[dict[str, _Kind]] = {kind.topic: kind for kind in _KINDS.values()}
_ENCODER: Final = msgspec.msgpack.Encoder()


def _at_micros(at: str) -> int | str:
    """``at`` as microseconds since the epoch when it is canonical, else the text itself."""
    if len(at) == 27 and at[-1] == "Z":
        try:
            micros = (datetime.fromisoformat(at[:-1]).replace(tzinfo=UTC) - _EPOCH) // _MICROSECOND
        except ValueError:
            return at
        if _at_text(micros) == at:
            return micros
    return at


def _at_text(at: int | str) -> str:
    if isinstance(at, str):
        return at
    return (_EPOCH + at * _MICROSECOND).strftime(_AT_FORMAT)


def _digest(value: str | None) -> tuple[bytes | None, str | None]:
    """A SHA-256 hex as its raw bytes; any other text kept as text."""
    if value is None:
        return None, None
    if len(value) == 64:
        try:
            raw = bytes.fromhex(value)
        except ValueError:
            return None, value
        if raw.hex() == value:
            return raw, None
    return None, value


def encode_compact(recorded: RecordedEvent) -> tuple[str, bytes]:
    """The compact (topic, state) of a recorded event."""
    event = recorded.event
    kind = _KINDS[type(event)]
    values = [f.encode(getattr(event, f.name)) for f in kind.fields]
    fields = kind.fields
    while values and _is_default(values[-1], fields[len(values) - 1]):
        values.pop()
    chain, chain_text = _digest(recorded.chain)
    sealed, sealed_text = _digest(recorded.sealed)
    row: list[Any] = [
        values,
        _at_micros(recorded.at),
        recorded.caused_by,
        recorded.request_id,
        chain,
        sealed,
        chain_text,
        sealed_text,
    ]
    while row[-1] is None:
        row.pop()
    return kind.topic, _ENCODER.encode(row)


def is_compact_topic(topic: str) -> bool:
    """Whether a stored topic is one of the compact form's."""
    return topic in _KIND_OF_TOPIC


def decode_compact(match_id: str, seq: int, topic: str, state: bytes) -> RecordedEvent:
    """The recorded event of a compact row, or CorruptEventError naming match and seq."""
    kind = _KIND_OF_TOPIC[topic]
    try:
        row = kind.decoder.decode(state)
        event = kind.cls(*[f.decode(getattr(row.event, f.name)) for f in kind.fields])
    except (msgspec.DecodeError, IndexError, TypeError, ValueError, OverflowError) as error:
        raise CorruptEventError(match_id, seq, str(error)) from None
    return RecordedEvent(
        seq=seq,
        at=_at_text(row.at),
        event=event,
        caused_by=row.caused_by,
        request_id=row.request_id,
        chain=row.chain.hex() if row.chain is not None else row.chain_text,
        sealed=row.sealed.hex() if row.sealed is not None else row.sealed_text,
    )
