"""Commands: requests to change a match, which ``decide`` accepts or refuses."""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from domain.cards import Card


class Command(msgspec.Struct, frozen=True, gc=False, tag_field="command"):
    """Base of every command."""


class CreateMatch(Command, frozen=True, tag="create_match"):
    """Open a table: rule set, seats, target (None for the rule set's), bot seats, secret."""

    match_id: str
    ruleset: str
    seats: int
    secret: bytes
    target: int | None = None
    bots: tuple[int, ...] = ()
    bot_kind: str = "easy"
    client_seeds: tuple[str, ...] | None = None
    turn_seconds: int | None = None  # R25: the table's own, 5-600; None: the server's
    private: bool = False
    spectators: bool = True
    rematch_of: str | None = None
    now_us: int | None = None
    bot_kinds: dict[int, str] | None = None  # a kind per bot seat, where it is not bot_kind
    bot_budget: int | None = None  # the strong bot's deals per decision (None: its default)
    # R25: the server's turn time (1-600) for a table that names none; None runs no clock
    # (bot-only tools). A rematch, an import and a verify pass the recorded one here.
    server_turn_seconds: int | None = None
    # A rematch's seats kept for the registered players (player id by seat, None: open).
    reserved: tuple[str | None, ...] | None = None
    # The pool's pairing that made this table (its id), keeping its two seats for the pair.
    paired: str | None = None


class TakeSeat(Command, frozen=True, tag="take_seat"):
    """A person asks for a seat; the server gives the hash of the seat's bearer token.

    ``player_id`` is set when a registered player sits down (one seat per match each).
    """

    seat: int
    name: str
    token_id: str | None = None
    token_hash: str | None = None
    player_id: str | None = None
    now_us: int | None = None
    client_seed: str = ""  # at most 64 bytes of UTF-8; "" for none (docs/fairness.md)
    # A seat already recorded, judged again (verify, import): its name is held to the rule it
    # was recorded under (names.recorded_seat_name), not to the rule for a name given now.
    recorded: bool = False


class PlayCard(Command, frozen=True, tag="play_card"):
    """The seat on turn plays a card from its hand (R13). ``auto`` marks a timed-out turn (R25).

    ``now_us`` is the play's record time (Unix epoch µs): the next turn's clock starts from it.
    ``arrived_us`` is when the play reached the server; a play that arrived at or after the
    deadline is refused (None: judged at ``now_us``). A play decided again after losing a race
    keeps its arrival, and is recorded no earlier than the event that won (R25).
    """

    seat: int
    card: Card
    auto: bool = False
    now_us: int | None = None
    arrived_us: int | None = None


class LeaveMatch(Command, frozen=True, tag="leave_match"):
    """A seat leaves, forfeiting the match for its side (R26); also the 2-seat clock loss (R25)."""

    seat: int
    reason: str = "forfeit"


class ExpireTurn(Command, frozen=True, tag="expire_turn"):
    """The clock: ``seat``'s turn ran out at ``deadline`` (R25); ``now_us`` is the server's now
    (Unix epoch µs).

    ``card`` is the card the clock plays for the seat at four seats: the easy bot's pick from
    that seat's view, chosen above the rules (domain/autoplay.py); two seats need none.
    """

    seat: int
    deadline: str
    now_us: int
    card: Card | None = None


class AbandonTable(Command, frozen=True, tag="abandon_table"):
    """The server closes a table still waiting for players past its waiting period."""

    now_us: int


class RecordRematch(Command, frozen=True, tag="record_rematch"):
    """An ended match links to its rematch, the match ``match_id``."""

    match_id: str


AnyCommand: TypeAlias = (
    CreateMatch | TakeSeat | PlayCard | LeaveMatch | ExpireTurn | AbandonTable | RecordRematch
)
"""Every command type."""
