"""The stored form of a match event: a short topic and a MessagePack array.

Rows written in earlier builds' form (a JSON envelope under a ``basra:TAG`` topic) are rewritten
into this one by ``basra store migrate`` (app.store.migration). A row is:

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

Each kind's array is an array-like msgspec Struct (``Layout.stored``) built from the event's own
fields, their stored types chosen from the fields' types (a card field as a checked deck index,
an absent setting as nil); the few fields that differ are converted by plain functions chosen
the same way (``card_index``/``card_of_index`` for cards), a card tuple's through a memo of the
tuples seen before (a dict look-up in C). Nothing is generated or compiled.

Decoding gives back exactly the RecordedEvent that was encoded (tests/app/store/test_compact.py
checks every kind, and Hypothesis checks arbitrary ones), and today's encoder writes byte for
byte the rows stored before (tests/app/store/test_compact_golden.py, 900 golden rows).
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Final, Union

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
from domain.times import canonical_micros, utc_text_us

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
        "paired",
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

_UNSET: Final = msgspec.UNSET

Convert = Callable[[Any], Any]
"""One field's conversion between its value in the event and its value in the stored array."""

CardIndex = Annotated[int, msgspec.Meta(ge=0, le=len(DECK) - 1)]
"""A card as stored: its index in the deck (msgspec refuses any other value when reading)."""

card_index: Final[Convert] = INDEX.__getitem__
"""A card's stored value (its index in the deck): the encoding hook of card fields."""

card_of_index: Final[Convert] = DECK.__getitem__
"""The card of a stored index (msgspec has checked it is one): the decoding hook."""


_MEMO_LIMIT: Final = 1 << 16
"""Entries a conversion's memo keeps before it starts again (each a few hundred bytes)."""


class _Memo(dict[Any, Any]):
    """A conversion of hashable stored values (tuples of deck indexes, of such tuples), each
    computed once and then looked up: ``convert`` is then a dict look-up, in C, for every value
    seen before (a card tuple recurs across plays and matches). Safe under threads: at worst
    two threads compute the same value."""

    def __init__(self, convert: Convert) -> None:
        super().__init__()
        self.convert = convert

    def __missing__(self, key: Any) -> Any:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        value = self[key] = self.convert(key)
        return value


def _memo(convert: Convert) -> Convert:
    """``convert`` through a memo of its results."""
    lookup: Convert = _Memo(convert).__getitem__
    return lookup


def _each(convert: Convert) -> Convert:
    """The conversion of a tuple whose items ``convert`` converts, memoised."""
    return _memo(lambda value: tuple(map(convert, value)))


def _unless_none(convert: Convert) -> Convert:
    return lambda value: None if value is None else convert(value)


def _unset_as_none(value: Any) -> Any:
    return None if value is _UNSET else value


class _Absent(dict[Any, Any]):
    """nil read back as UNSET (an absent setting); any other value as it is."""

    def __missing__(self, key: Any) -> Any:
        return key


_absent_lookup: Final[Convert] = _Absent({None: _UNSET, _UNSET: _UNSET}).__getitem__


def _none_as_unset(value: Any) -> Any:
    """An absent setting's stored nil as UNSET: a look-up in C for hashable values (nil, text,
    numbers), a test for the rest (a dict of bot kinds)."""
    try:
        return _absent_lookup(value)
    except TypeError:  # unhashable: a value, not nil
        return value


def _is_card(annotation: Any) -> bool:
    """Whether a field's written annotation names the Card type (cards are stored by index)."""
    return "Card" in str(annotation)


def _stored(tp: Any, cards: bool) -> tuple[Any, Convert | None, Convert | None]:
    """(stored type, encode, decode) of a value of type ``tp``, the conversions None where the
    value is stored as it is; ``cards``: str values are cards."""
    origin = typing.get_origin(tp)
    if tp is str and cards:
        return CardIndex, card_index, card_of_index
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner, encode, decode = _stored(args[0], cards)
            if encode is None or decode is None:
                return tp, None, None
            return tuple[inner, ...], _each(encode), _each(decode)  # type: ignore[valid-type]
        return tp, None, None
    if origin in (Union, types.UnionType):
        members = typing.get_args(tp)
        if msgspec.UnsetType in members and type(None) in members:
            raise TypeError(f"{tp}: a field may be UNSET or None, not both")
        rest = [m for m in members if m is not msgspec.UnsetType and m is not type(None)]
        if len(rest) == 1:
            inner, encode, decode = _stored(rest[0], cards)
        else:
            inner, encode, decode = Union[tuple(rest)], None, None  # noqa: UP007
        if encode is not None and decode is not None:
            encode, decode = _unless_none(encode), _unless_none(decode)
        return inner | None, encode, decode
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        layout = Layout(tp, tuple(f.name for f in msgspec.structs.fields(tp)))
        return layout.stored, layout.encode, layout.decode
    return tp, None, None


def _is_unset_able(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    return origin in (Union, types.UnionType) and msgspec.UnsetType in typing.get_args(tp)


class Layout:
    """A struct's stored array: which field sits where, and how each field is stored and read.

    ``stored`` is an array-like msgspec struct of the fields in the stored order, with each
    field's stored type (cards as checked deck indexes, an absent setting as nil): msgspec reads
    a stored array into it and checks every value, then ``decode`` converts the few fields that
    differ (cards, absent settings, nested structs) with the functions chosen here from each
    field's type, and ``encode`` does the reverse.
    """

    def __init__(self, cls: type[msgspec.Struct], stored_names: tuple[str, ...]) -> None:
        infos = msgspec.structs.fields(cls)
        by_name = {f.name: f for f in infos}
        if stored_names != tuple(by_name):
            raise TypeError(f"{cls.__name__}: the stored layout {stored_names} is not its fields")
        written = {
            name: annotation
            for klass in reversed(cls.__mro__)
            for name, annotation in getattr(klass, "__annotations__", {}).items()
        }
        self.cls = cls
        encoders: list[tuple[int, Convert]] = []
        decoders: list[tuple[int, Convert]] = []
        self.defaults: list[tuple[bool, Any]] = []
        fields: list[Any] = []
        for i, name in enumerate(stored_names):
            info = by_name[name]
            stored, encode, decode = _stored(info.type, _is_card(written.get(name)))
            if _is_unset_able(info.type):  # absent is stored as nil: None is no value of it
                encode, decode = _unset_as_none, _none_as_unset
            if encode is not None and decode is not None:
                encoders.append((i, encode))
                decoders.append((i, decode))
            has_default = info.default is not msgspec.NODEFAULT
            default: Any = None
            if has_default and info.default is not _UNSET:
                default = encode(info.default) if encode is not None else info.default
            self.defaults.append((has_default, default))
            fields.append((name, stored, default) if has_default else (name, stored))
        self._encoders = tuple(encoders)
        self._decoders = tuple(decoders)
        self.stored: Any = msgspec.defstruct(
            f"Stored{cls.__name__}", fields, array_like=True, frozen=True, gc=False
        )

    def encode(self, value: Any) -> list[Any]:
        """The stored array of ``value``, trailing fields at their defaults left off."""
        values = list(msgspec.structs.astuple(value))
        for i, encode in self._encoders:
            values[i] = encode(values[i])
        defaults = self.defaults
        while values:
            has_default, default = defaults[len(values) - 1]
            last = values[-1]
            if not has_default or not (
                last is default or (type(last) is type(default) and last == default)
            ):
                break
            values.pop()
        return values

    def decode(self, stored: Any) -> Any:
        """The struct of a stored array as msgspec read it."""
        if not self._decoders:
            return self.cls(*msgspec.structs.astuple(stored))
        values = list(msgspec.structs.astuple(stored))
        for i, decode in self._decoders:
            values[i] = decode(values[i])
        return self.cls(*values)


class _Kind(msgspec.Struct, frozen=True):
    """Everything needed to store and read one event kind."""

    cls: type[Event]
    topic: str
    layout: Layout
    decoder: msgspec.msgpack.Decoder[Any]


def _kind(cls: type[Event]) -> _Kind:
    layout = Layout(cls, LAYOUTS[cls])
    row = msgspec.defstruct(
        f"Stored{cls.__name__}Row",
        [
            ("event", layout.stored),
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
    return _Kind(cls, COMPACT_TOPICS[cls], layout, msgspec.msgpack.Decoder(row))


_KINDS: Final[dict[type[Event], _Kind]] = {cls: _kind(cls) for cls in EVENT_TYPES}
_KIND_OF_TOPIC: Final[dict[str, _Kind]] = {kind.topic: kind for kind in _KINDS.values()}
_ENCODER: Final = msgspec.msgpack.Encoder()


@functools.lru_cache(maxsize=4096)
def _at_micros(at: str) -> int | str:
    """``at`` as microseconds since the epoch when it is canonical, else the text itself (the
    events of one command share their time: the cache, safe under threads, answers the rest)."""
    micros = canonical_micros(at)
    return at if micros is None else micros


@functools.lru_cache(maxsize=4096)
def _at_text(at: int | str) -> str:
    if isinstance(at, str):
        return at
    return utc_text_us(at)


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
    values = kind.layout.encode(event)
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
        event = kind.layout.decode(row.event)
    except (msgspec.DecodeError, TypeError, ValueError, OverflowError) as error:
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
