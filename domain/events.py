"""Events: the past-tense facts of a match, one per line of its stream (docs/replay-format.md).

Each is a frozen msgspec Struct with an explicit, stable ``type`` tag, so renaming a class never
breaks a stored stream. Cards travel in their text form (R1).
"""

from __future__ import annotations

from typing import TypeAlias, cast

import msgspec

from domain.cards import Card


class Event(msgspec.Struct, frozen=True, gc=False, tag_field="type", forbid_unknown_fields=False):
    """Base of every event of a match stream."""


class MatchCreated(Event, frozen=True, tag="match_created"):
    """A match was created. ``secret`` (the match secret S, hex) is hidden until the end (R23)."""

    match_id: str
    ruleset: str
    seats: int
    target: int
    secret: str | None
    client_seeds: tuple[str, ...]
    commitment: str | None
    bots: tuple[int, ...] = ()
    bot_kind: str = "easy"
    origin: str | None = None
    # Table settings (R25, docs/api.md): each left out of the line at its default, so lines
    # recorded before them read (and are written) unchanged. See MatchSetup for plain values.
    turn_seconds: int | msgspec.UnsetType = msgspec.UNSET  # absent: no clock
    private: bool | msgspec.UnsetType = msgspec.UNSET  # absent: listed in the lobby
    spectators: bool | msgspec.UnsetType = msgspec.UNSET  # absent: spectators welcome
    rematch_of: str | msgspec.UnsetType = msgspec.UNSET  # absent: not a rematch
    # Bots (docs/bots.md): a kind per bot seat where they differ ({"1": "strong"}, absent: every
    # bot is bot_kind), and the strong bot's budget in sampled deals (absent: no strong bot).
    bot_kinds: dict[str, str] | msgspec.UnsetType = msgspec.UNSET
    bot_budget: int | msgspec.UnsetType = msgspec.UNSET
    # How the strong bot decides (domain/bot_kinds.py LOGIC_VERSION), whenever one plays;
    # absent: 1, the way of every match recorded before the field.
    bot_logic: int | msgspec.UnsetType = msgspec.UNSET
    # A rematch's seats kept for the players who held them (player id by seat, None: open to
    # anyone); absent: no seat is kept.
    reserved: tuple[str | None, ...] | msgspec.UnsetType = msgspec.UNSET
    # The rated pool's pairing that made this table (its id); absent: not made by the pool.
    paired: str | msgspec.UnsetType = msgspec.UNSET


class SeatTaken(Event, frozen=True, tag="seat_taken"):
    """A person took a seat; ``token_hash`` (SHA-256 of its bearer token) is for the server only.

    ``player_id`` names the registered player who sat down (left out of the line for a seat
    taken by name only); views show that player's current name, not ``name`` as it was then.
    """

    seat: int
    name: str
    token_id: str | None = None
    token_hash: str | None = None
    player_id: str | msgspec.UnsetType = msgspec.UNSET  # absent from seats taken by name
    # The seat's client seed (docs/fairness.md): it enters the deal key in place of
    # match_created's entry for the seat. Absent when the seat gave none, as in older lines.
    client_seed: str | msgspec.UnsetType = msgspec.UNSET


class RoundStarted(Event, frozen=True, tag="round_started"):
    """A round began with this dealer (R3); its deck follows from the secret (R6)."""

    round: int
    dealer: int


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    """Every seat was dealt its hand, in the order dealt (R4, R5); redacted per viewer."""

    round: int
    deal: int
    hands: tuple[tuple[Card, ...] | None, ...]


class FloorDealt(Event, frozen=True, tag="floor_dealt"):
    """The first floor of a round was turned, with the cards sent back to the stock (R4)."""

    round: int
    cards: tuple[Card, ...]
    reburied: tuple[Card, ...]
    deadline: str | msgspec.UnsetType = msgspec.UNSET  # R25: the first seat's, when a person's


class CardPlayed(Event, frozen=True, tag="card_played"):
    """A seat played a card: what it took, in floor order, by group, and its Basra points."""

    seat: int
    card: Card
    captured: tuple[Card, ...]
    basra: int
    groups: tuple[tuple[Card, ...], ...] = ()
    sweep: bool = False
    auto: bool = False
    # R25: the next seat's deadline, when a person is on turn after this play (absent if none).
    deadline: str | msgspec.UnsetType = msgspec.UNSET


class LastPickup(msgspec.Struct, frozen=True, gc=False):
    """The floor's last cards, given to the side that captured last (R19)."""

    side: int
    cards: tuple[Card, ...]


class SideScore(msgspec.Struct, frozen=True, gc=False):
    """One side's round: card count, majority award, point cards, Basras and total (R21)."""

    cards: int
    majority: int
    points: int
    basra: int
    total: int


class RoundScored(Event, frozen=True, tag="round_scored"):
    """A round was counted (R19-R21); ``totals`` are the match totals after it."""

    round: int
    last_pickup: LastPickup | None
    sides: tuple[SideScore, ...]
    carry: int
    totals: tuple[int, ...]


class MatchEnded(Event, frozen=True, tag="match_ended"):
    """The match ended (R22, R25, R26); ``seed`` reveals the match secret S in hex."""

    winner: int | None
    reason: str
    totals: tuple[int, ...]
    seed: str | None = None
    seat: int | None = None


class RematchCreated(Event, frozen=True, tag="rematch_created"):
    """The ended match's rematch was created as match ``match_id``; the one event after the end."""

    match_id: str


AnyEvent: TypeAlias = (
    MatchCreated
    | SeatTaken
    | RoundStarted
    | CardsDealt
    | FloorDealt
    | CardPlayed
    | RoundScored
    | MatchEnded
    | RematchCreated
)
"""Every event type, as a tagged union."""

EVENT_TYPES: tuple[type[Event], ...] = (
    MatchCreated,
    SeatTaken,
    RoundStarted,
    CardsDealt,
    FloorDealt,
    CardPlayed,
    RoundScored,
    MatchEnded,
    RematchCreated,
)
"""Every event class, for registries and decoders."""

EVENT_DECODER = msgspec.json.Decoder(AnyEvent)
"""Decodes one JSON event object by its ``type`` tag."""

EVENT_ENCODER = msgspec.json.Encoder()
"""Encodes events as JSON objects with their ``type`` tag."""


def optional(value: str | msgspec.UnsetType) -> str | None:
    """A text field left out of the line (UNSET) as None: e.g. ``optional(played.deadline)``."""
    return None if isinstance(value, msgspec.UnsetType) else value


def event_tag(event: Event) -> str:
    """The stable tag of an event (its ``type`` in the replay file)."""
    tag = type(event).__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def tagged(event: Event) -> AnyEvent:
    """``event`` typed as one of the known event types, so that a ``match`` over it ending in
    ``assert_never`` is checked to name every type; TypeError for anything else."""
    if not isinstance(event, EVENT_TYPES):
        raise TypeError(f"{type(event).__name__} is not an event type of a match stream")
    return cast(AnyEvent, event)


class TableSettings(msgspec.Struct, frozen=True, gc=False):
    """The settings ``match_created`` leaves out of the line at their defaults, as plain values:
    what each absent field means (docs/replay-format.md)."""

    turn_seconds: int | None
    """R25: the table's turn time; None: no clock."""
    private: bool
    """Kept out of the lobby."""
    spectators: bool
    """False: only seated players see the table."""
    rematch_of: str | None
    """The match this one is the rematch of."""
    bot_kinds: tuple[tuple[int, str], ...]
    """(seat, kind) where a bot is not ``bot_kind``, by seat."""
    bot_budget: int | None
    """The strong bot's deals per decision, when one plays."""
    bot_logic: int
    """How the strong bot decides; 1 for matches recorded before the field."""
    reserved: tuple[str | None, ...]
    """The player id kept per seat of a rematch or a pairing; (): none kept."""
    paired: str | None = None
    """The rated pool's pairing that made the table; None: not made by the pool."""


def table_settings(created: MatchCreated) -> TableSettings:
    """The one reading of ``created``'s optional fields into values (absent: the default)."""
    kinds = created.bot_kinds
    return TableSettings(
        turn_seconds=created.turn_seconds if isinstance(created.turn_seconds, int) else None,
        private=created.private is True,
        spectators=created.spectators is not False,
        rematch_of=optional(created.rematch_of),
        bot_kinds=(
            ()
            if isinstance(kinds, msgspec.UnsetType)
            else tuple(sorted((int(seat), kind) for seat, kind in kinds.items()))
        ),
        bot_budget=created.bot_budget if isinstance(created.bot_budget, int) else None,
        bot_logic=created.bot_logic if isinstance(created.bot_logic, int) else 1,
        reserved=created.reserved if isinstance(created.reserved, tuple) else (),
        paired=optional(created.paired),
    )
