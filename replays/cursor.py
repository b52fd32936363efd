"""A cursor over a recorded match: the position after any event, as a seat or support sees it."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from enum import StrEnum
from typing import TypeAlias, assert_never

import msgspec

from domain.events import (
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
    tagged,
)
from domain.evolve import evolve
from domain.recorded import RecordedEvent, misnumbered
from domain.redaction import EVERYONE, SUPPORT, redact_event
from domain.state import INITIAL_STATE, MatchSetup, MatchState
from domain.views import SeatView, SupportView, TableView, seat_view, support_view, table_view
from replays.errors import StepOutOfRangeError, StreamError, UnknownViewerError

Viewer: TypeAlias = int
"""Who looks: a seat number, ``SUPPORT`` (-1, every hand) or ``EVERYONE`` (-2, no hand)."""


class Step(StrEnum):
    """How far one step moves: one event, one play, one deal or one round."""

    EVENT = "event"
    PLAY = "play"
    DEAL = "deal"
    ROUND = "round"


class Position(msgspec.Struct, frozen=True, kw_only=True):
    """The match after event ``seq`` as ``viewer`` may see it (R23): nothing more is inside.

    ``caused_by`` and ``request_id`` are filled for support only (the dispute view).
    """

    seq: int
    last_seq: int
    viewer: Viewer
    view: TableView
    event: Event
    at: str
    caused_by: str | None
    request_id: str | None


def viewer_name(viewer: Viewer) -> str:
    """``support``, ``everyone`` or ``seat N``."""
    if viewer == SUPPORT:
        return "support"
    if viewer == EVERYONE:
        return "everyone"
    return f"seat {viewer}"


class MatchCursor:
    """Positions of one match stream, folded once and kept, and the landmarks to step between.

    The stream is the server's own (unredacted); every ``Position`` handed out is redacted for
    its viewer, so a seat's position never holds another seat's cards (R23).
    """

    def __init__(self, recorded: Sequence[RecordedEvent]) -> None:
        if not recorded:
            raise StreamError("the match has no events")
        wrong = misnumbered(item.seq for item in recorded)
        if wrong is not None:
            raise StreamError(
                f"seq {wrong[0]} where seq {wrong[1]} belongs: a stream is numbered 1, 2, 3… "
                "without gaps"
            )
        first = recorded[0].event
        if not isinstance(first, MatchCreated):
            raise StreamError("a match stream starts with match_created")
        self._recorded: tuple[RecordedEvent, ...] = tuple(recorded)
        self._states: list[MatchState] = [INITIAL_STATE]
        plays: list[int] = []
        deals: list[int] = []
        rounds: list[int] = []
        ended: int | None = None
        for item in self._recorded:
            match tagged(item.event):
                case CardPlayed():
                    plays.append(item.seq)
                case FloorDealt():
                    # A round is open once its first floor lies (R4); so is its first deal.
                    rounds.append(item.seq)
                    deals.append(item.seq)
                case CardsDealt(deal=deal):
                    if deal > 1:
                        deals.append(item.seq)  # R5: a later deal gives hands, no floor
                case MatchEnded():
                    ended = item.seq
                case (
                    MatchCreated() | SeatTaken() | RoundStarted() | RoundScored() | RematchCreated()
                ):
                    pass
                case unknown:
                    assert_never(unknown)
        self._landmarks: dict[Step, tuple[int, ...]] = {
            Step.EVENT: (),
            Step.PLAY: tuple(plays),
            Step.DEAL: tuple(deals),
            Step.ROUND: tuple(rounds),
        }
        self._created = first
        self._ended_at = ended

    @property
    def last_seq(self) -> int:
        """The seq of the stream's last event."""
        return len(self._recorded)

    @property
    def created(self) -> MatchCreated:
        """The match's first event (server side: it holds the secret)."""
        return self._created

    @property
    def seats(self) -> int:
        """How many seats the match has."""
        return self._created.seats

    @property
    def ended(self) -> bool:
        """True when the stream holds the end of the match."""
        return self._ended_at is not None

    def recorded(self, seq: int) -> RecordedEvent:
        """The stored event at ``seq``, unredacted: for the server's own use."""
        self._check(seq)
        return self._recorded[seq - 1]

    def events(self) -> tuple[RecordedEvent, ...]:
        """The whole stream, unredacted: for the server's own use."""
        return self._recorded

    def state(self, seq: int) -> MatchState:
        """The full state after ``seq`` (every hand and the stock): for the server's own use."""
        self._check(seq)
        states = self._states
        while len(states) <= seq:
            index = len(states)
            try:
                states.append(evolve(states[-1], self._recorded[index - 1].event))
            except (ValueError, IndexError, KeyError, AssertionError, TypeError) as error:
                raise StreamError(
                    f"seq {index} cannot be replayed ({error or type(error).__name__}); "
                    "the stream does not follow the rules: run `basra verify`"
                ) from None
        return states[seq]

    def setup(self) -> MatchSetup:
        """What the match was created with."""
        setup = self.state(1).setup
        assert setup is not None
        return setup

    def check_viewer(self, viewer: Viewer) -> Viewer:
        """``viewer`` if it is support, everyone or a seat of this match; else raise."""
        if viewer in (SUPPORT, EVERYONE) or 0 <= viewer < self.seats:
            return viewer
        raise UnknownViewerError(
            f"seat {viewer} is not a seat of this match (seats 0 to {self.seats - 1})"
        )

    def position(self, seq: int, viewer: Viewer = SUPPORT) -> Position:
        """The match after event ``seq`` as ``viewer`` sees it (R23)."""
        self.check_viewer(viewer)
        state = self.state(seq)
        item = self._recorded[seq - 1]
        # R23: a seat sees what it saw then; everything opens only at the end of the match.
        revealed = state.status == "ended"
        view: TableView
        if viewer == SUPPORT:
            view = support_view(state, seq)
        elif viewer == EVERYONE:
            view = table_view(state, seq)
        else:
            view = seat_view(state, viewer, seq)
        dispute = viewer == SUPPORT
        return Position(
            seq=seq,
            last_seq=self.last_seq,
            viewer=viewer,
            view=view,
            event=redact_event(item.event, viewer, revealed),
            at=item.at,
            caused_by=item.caused_by if dispute else None,
            request_id=item.request_id if dispute else None,
        )

    def landmarks(self, step: Step) -> tuple[int, ...]:
        """The seqs a step of this kind stops at (every seq for ``Step.EVENT``)."""
        if step is Step.EVENT:
            return tuple(range(1, self.last_seq + 1))
        return self._landmarks[step]

    def next(self, seq: int, step: Step = Step.EVENT) -> int:
        """The next stop after ``seq``: the next event, play, deal or round; else the last event."""
        self._check(seq)
        if step is Step.EVENT:
            return min(seq + 1, self.last_seq)
        stops = self._landmarks[step]
        i = bisect_right(stops, seq)
        return stops[i] if i < len(stops) else self.last_seq

    def previous(self, seq: int, step: Step = Step.EVENT) -> int:
        """The stop before ``seq``: the previous event, play, deal or round; else the first."""
        self._check(seq)
        if step is Step.EVENT:
            return max(seq - 1, 1)
        stops = self._landmarks[step]
        i = bisect_left(stops, seq)
        return stops[i - 1] if i > 0 else 1

    def _check(self, seq: int) -> None:
        if not 1 <= seq <= len(self._recorded):
            raise StepOutOfRangeError(seq, len(self._recorded))


def hands_of(view: TableView) -> tuple[tuple[str, ...] | None, ...]:
    """The hands a view shows, by seat; ``None`` for a hand its viewer may not see (R23)."""
    if isinstance(view, SupportView):
        return view.hands
    if isinstance(view, SeatView):
        return tuple(view.hand if s == view.seat else None for s in range(view.seats))
    return (None,) * view.seats
