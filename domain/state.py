"""The folded state of a match: immutable, rebuilt from its events by ``evolve``."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

import msgspec

from domain.cards import CLASSIC_POINTS, Card

Status: TypeAlias = Literal["new", "waiting", "playing", "ended"]
"""``new`` before the match exists; then waiting for seats, playing, ended."""


SIDE_OF_SEAT: Final = (0, 1, 0, 1)
"""R2: seat ``s`` belongs to side ``s % 2`` (partners are 0+2 and 1+3), by seat; the rules'
hottest path (every play's pile) indexes it rather than call ``side_of``."""


def side_of(seat: int) -> int:
    """R2: the side seat ``seat`` plays for."""
    return SIDE_OF_SEAT[seat]


class MatchSetup(msgspec.Struct, frozen=True, gc=False):
    """What a match was created with; fixed for its whole life."""

    match_id: str
    ruleset: str
    seats: int
    target: int
    secret: bytes | None
    key: bytes | None
    client_seeds: tuple[str, ...]
    commitment: str | None
    bots: tuple[int, ...]
    bot_kind: str
    origin: str | None
    turn_seconds: int | None = None  # R25: None runs no clock
    private: bool = False  # kept out of the lobby
    spectators: bool = True  # False: only seated players see the table
    rematch_of: str | None = None  # the match this one is the rematch of
    bot_kinds: tuple[tuple[int, str], ...] = ()  # (seat, kind) where a bot is not bot_kind
    bot_budget: int | None = None  # the strong bot's deals per decision, when one plays
    bot_logic: int = 1  # how the strong bot decides (its LOGIC_VERSION when the match began)
    reserved: tuple[str | None, ...] = ()  # player id kept per seat of a rematch (): none

    def revealed_secret(self) -> str | None:
        """The secret as the match's end reveals it (hex, R23); None for an import without it."""
        return self.secret.hex() if self.secret is not None else None

    def kind_at(self, seat: int) -> str:
        """The kind of the bot at ``seat`` (easy, random or strong)."""
        for s, kind in self.bot_kinds:
            if s == seat:
                return kind
        return self.bot_kind


class MatchState(msgspec.Struct, frozen=True, gc=False):
    """A match at one position of its stream: table, hands, stock, piles and scores."""

    setup: MatchSetup | None = None
    status: Status = "new"
    names: tuple[str | None, ...] = ()
    player_ids: tuple[str | None, ...] = ()  # by seat, for seats a registered player took
    round: int = 0
    deal: int = 0
    dealer: int | None = None
    turn: int | None = None
    hands: tuple[tuple[Card, ...], ...] = ()
    in_hands: int = 0
    floor: tuple[Card, ...] = ()
    stock: tuple[Card, ...] = ()
    piles: tuple[tuple[Card, ...], ...] = ((), ())
    pile_basra: tuple[int, ...] = (0, 0)
    last_capturer: int | None = None
    trail_pair: tuple[Card, Card] | None = None
    reburied: tuple[Card, ...] = ()  # R4: this round's cards sent back to the stock's bottom
    totals: tuple[int, ...] = (0, 0)
    carry: int = 0
    plays: int = 0
    events: int = 0
    winner: int | None = None
    end_reason: str | None = None
    deadline: str | None = None  # R25: when the seat on turn runs out (None: no clock on it)
    timed_out: tuple[int, ...] = ()  # R25a: person seats whose latest turn ran out
    rematch: str | None = None  # the id of this ended match's rematch

    @property
    def pile_cards(self) -> tuple[int, ...]:
        """R19: how many cards each side has taken this round."""
        return tuple(len(pile) for pile in self.piles)

    @property
    def pile_points(self) -> tuple[int, ...]:
        """R18a: the Classic point cards in each side's pile this round."""
        return tuple([sum(map(CLASSIC_POINTS.__getitem__, pile)) for pile in self.piles])

    def is_bot(self, seat: int) -> bool:
        """True when a bot plays this seat."""
        return self.setup is not None and seat in self.setup.bots

    def seat_count(self) -> int:
        """How many seats the table has (0 before creation)."""
        return self.setup.seats if self.setup is not None else 0


INITIAL_STATE: Final = MatchState()
"""The state before a match's first event."""
