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


Convert = Callable[[Any], Any]
_CARD_INDEX: Final = Annotated[int, msgspec.Meta(ge=0, le=len(DECK) - 1)]
_UNSET: Final = msgspec.UNSET


def _card_type(annotation: Any) -> bool:
    """Whether a field's written annotation names the Card type (cards are stored by index)."""
    return "Card" in str(annotation)


Expression = Callable[[str], str]
"""Python source converting the value of the expression given (the stored form is compiled)."""


class _Names:
    """The names the compiled conversions refer to, and fresh names for their loop variables."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {
            "I": INDEX,
            "D": DECK,
            "U": _UNSET,
            "astuple": msgspec.structs.astuple,
        }
        self.count = 0

    def add(self, value: Any) -> str:
        self.count += 1
        name = f"n{self.count}"
        self.values[name] = value
        return name

    def variable(self) -> str:
        self.count += 1
        return f"x{self.count}"


def _convert(
    tp: Any, cards: bool, names: _Names
) -> tuple[Any, Expression | None, Expression | None]:
    """(stored type, encode, decode) of a value of type ``tp`` that is not None or UNSET, the
    conversions None where the value is stored as it is; ``cards``: str values are cards."""
    origin = typing.get_origin(tp)
    if tp is str and cards:
        return _CARD_INDEX, lambda x: f"I[{x}]", lambda x: f"D[{x}]"
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            inner, enc, dec = _convert(args[0], cards, names)
            if enc is None or dec is None:
                return tp, None, None
            y = names.variable()
            return (
                tuple[inner, ...],  # type: ignore[valid-type]
                lambda x: f"tuple([{enc(y)} for {y} in {x}])",
                lambda x: f"tuple([{dec(y)} for {y} in {x}])",
            )
        return tp, None, None
    if origin in (Union, types.UnionType):
        members = typing.get_args(tp)
        if msgspec.UnsetType in members and type(None) in members:
            raise TypeError(f"{tp}: a field may be UNSET or None, not both")
        rest = [m for m in members if m is not msgspec.UnsetType and m is not type(None)]
        if len(rest) == 1:
            inner, enc, dec = _convert(rest[0], cards, names)
        else:
            inner, enc, dec = Union[tuple(rest)], None, None  # noqa: UP007
        if enc is not None and dec is not None:
            ienc, idec = enc, dec
            enc = lambda x: f"(None if {x} is None else {ienc(x)})"  # noqa: E731
            dec = lambda x: f"(None if {x} is None else {idec(x)})"  # noqa: E731
        return inner | None, enc, dec
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        layout = _Layout(tp, tuple(f.name for f in msgspec.structs.fields(tp)))
        encode, decode = names.add(layout.encode), names.add(layout.decode)
        return layout.shadow, lambda x: f"{encode}({x})", lambda x: f"{decode}({x})"
    return tp, None, None


def _is_unset_able(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    return origin in (Union, types.UnionType) and msgspec.UnsetType in typing.get_args(tp)


class _Layout:
    """A struct's stored array: which field sits where, converted by compiled functions (a
    row is decoded once per event read: this is the store's hottest Python)."""

    def __init__(self, cls: type[msgspec.Struct], stored_names: tuple[str, ...]) -> None:
        infos = msgspec.structs.fields(cls)
        by_name = {f.name: f for f in infos}
        if sorted(stored_names) != sorted(by_name):
            raise TypeError(f"{cls.__name__}: the stored layout {stored_names} is not its fields")
        written = {
            name: annotation
            for klass in reversed(cls.__mro__)
            for name, annotation in getattr(klass, "__annotations__", {}).items()
        }
        class_index = {f.name: i for i, f in enumerate(infos)}
        stored_index = {name: i for i, name in enumerate(stored_names)}
        names = _Names()
        names.values["cls"] = cls
        encoded: list[str] = []
        decoded: dict[str, str] = {}
        self.defaults: list[tuple[bool, Any]] = []
        shadow_fields: list[Any] = []
        for name in stored_names:
            info = by_name[name]
            stored, encode, decode = _convert(info.type, _card_type(written.get(name)), names)
            source, target = f"v[{class_index[name]}]", f"v[{stored_index[name]}]"
            enc = encode(source) if encode is not None else source
            dec = decode(target) if decode is not None else target
            if _is_unset_able(info.type):  # absent is stored as nil: None is no value of it
                enc = f"(None if {source} is U else {enc})"
                dec = f"(U if {target} is None else {dec})"
            encoded.append(enc)
            decoded[name] = dec
            has_default = info.default is not msgspec.NODEFAULT
            default: Any = None
            if has_default and info.default is not _UNSET:
                default = info.default
                if encode is not None:
                    default = eval(  # source built above from the field type, not from data
                        encode("value"), dict(names.values), {"value": info.default}
                    )
            self.defaults.append((has_default, default))
            shadow_fields.append((name, stored, default) if has_default else (name, stored))
        self.shadow: Any = msgspec.defstruct(
            f"Stored{cls.__name__}", shadow_fields, array_like=True, frozen=True, gc=False
        )
        source = (
            "def encode(value):\n"
            "    v = astuple(value)\n"
            f"    return [{', '.join(encoded)}]\n"
            "def decode(stored):\n"
            "    v = astuple(stored)\n"
            f"    return cls({', '.join(decoded[f.name] for f in infos)})\n"
        )
        compiled: dict[str, Any] = dict(names.values)
        exec(compile(source, f"<stored {cls.__name__}>", "exec"), compiled)
        self._encode: Callable[[Any], list[Any]] = compiled["encode"]
        self.decode: Callable[[Any], Any] = compiled["decode"]

    def encode(self, value: Any) -> list[Any]:
        """The stored array of ``value``, trailing fields at their defaults left off."""
        values = self._encode(value)
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


class _Kind(msgspec.Struct, frozen=True):
    """Everything needed to store and read one event kind."""

    cls: type[Event]
    topic: str
    layout: _Layout
    decoder: msgspec.msgpack.Decoder[Any]


def _kind(cls: type[Event]) -> _Kind:
    layout = _Layout(cls, LAYOUTS[cls])
    row = msgspec.defstruct(
        f"Stored{cls.__name__}Row",
        [
            ("event", layout.shadow),
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
