"""Re-adjudicating the dispute trail: who each event names as its cause, and when it was recorded.

A support export says, for every event, who caused it (``caused_by``) and when (``at``); a
dispute is settled with them, so they are checked like the rules: a seat's cause names a seat
that was taken, through the token it was taken with; a play or a leave caused by a seat is that
seat's own; a bot's cause names a bot seat, and its play is its own seat's; the server, the
clock and an import may cause anything the rules allow; and times never go backwards.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Final

import msgspec

from domain.events import CardPlayed, Event, MatchEnded, SeatTaken
from domain.state import MatchState
from replays.audit_clock import at_us
from replays.audit_text import Diverged

_SEAT_CAUSE: Final = re.compile(r"seat:(\d+)(?:/token:(.+))?")
_PLAYER_CAUSE: Final = re.compile(r"seat:(\d+)/player:(.+)")
"""A registered player acting on the seat they took, with their player token."""
_BOT_CAUSE: Final = re.compile(r"bot:(\d+)")
_SUPPORT_CAUSE: Final = re.compile(r"support(?::([a-z][a-z0-9_-]{0,31}))?")
"""Support, or a named support agent (``support:NAME``; ``support:env`` for the environment's
token): support watches a match and never acts in it (docs/api.md, "Support agents")."""
_FREE_CAUSES: Final = frozenset({"server", "clock", "import"})
"""Causes that are not a seat: they may cause any event the rules allow at that point."""

SYNTHESISED_CAUSE: Final = "import:synthesised"
"""The cause of an event an import added because its file left it out (docs/replay-format.md)."""


RACE_WINDOW: Final = timedelta(seconds=1)
"""How far back a record time inside an intact chain may fall and still be the known race fault
(the steps back measured were at most a few milliseconds); farther is a divergence."""


_RACE_WINDOW_US: Final = RACE_WINDOW // timedelta(microseconds=1)


class TimeInversion(msgspec.Struct, frozen=True, kw_only=True):
    """An event recorded at an earlier time than an event before it, inside an intact chain.

    Earlier builds of this server recorded a play that lost a race to another process (two
    plays at once on several server processes) and was decided again at the time it had first
    read, so its ``at`` falls a little before the event that won (under a second; at most
    ``RACE_WINDOW``). The chain covers every ``at``, so such a stream cannot be rewritten; an
    intact chain shows the times are the ones the server recorded, not changed since. It is
    reported, and it is not a divergence (docs/replay-format.md, "Record times").
    """

    seq: int
    at: str
    earlier_seq: int
    earlier_at: str

    @property
    def explanation(self) -> str:
        """The finding in words, for ``basra verify`` and the API."""
        return (
            f"seq {self.seq} is recorded at {self.at}, before seq {self.earlier_seq}"
            f" ({self.earlier_at}), inside an intact chain: a play that lost a race between"
            " server processes, recorded with the time it first read by a build before the fix"
            ' (docs/replay-format.md, "Record times"); not a change to the stream'
        )


class TrailReferee:
    """Follows the tokens each seat was taken with and the last record time, event by event.

    ``chain_intact``: the stream's hash chain was recomputed and holds (replays.verification),
    so a time that goes back by at most ``RACE_WINDOW`` is kept as a ``TimeInversion`` instead
    of a divergence.
    """

    def __init__(self, *, chain_intact: bool = False) -> None:
        self.tokens: dict[int, str | None] = {}
        self.players: dict[int, str | None] = {}
        self.last_at: tuple[int, str, int] | None = None
        self.chain_intact = chain_intact
        self.inversions: list[TimeInversion] = []
        self.previous_at: str | None = None  # the record time of the event just before

    def check_time(self, seq: int, at: str) -> None:
        """Raise when ``at`` is earlier than the time of the event before it (outside an
        intact chain; inside one, note it)."""
        when = at_us(at)
        if when is None:
            return  # a stored time that cannot be read is no evidence either way
        last = self.last_at
        if last is not None and when < last[2]:
            if not self.chain_intact or last[2] - when > _RACE_WINDOW_US:
                raise Diverged(
                    "trail",
                    f"recorded at {at}, before seq {last[0]} ({last[1]}): a stream is recorded"
                    " in order, so its times never go backwards",
                )
            if self.inversions and self.inversions[-1].at == at and self.previous_at == at:
                return  # the rest of the same command, recorded at the same time
            self.inversions.append(
                TimeInversion(seq=seq, at=at, earlier_seq=last[0], earlier_at=last[1])
            )
            self.previous_at = at
            return  # later events are compared with the latest time seen
        self.last_at = (seq, at, when)
        self.previous_at = at

    def check_cause(self, event: Event, caused_by: str | None, state: MatchState) -> None:
        """Raise when ``caused_by`` cannot have caused ``event`` at ``state`` (the one before)."""
        if caused_by is None or caused_by in _FREE_CAUSES or caused_by == SYNTHESISED_CAUSE:
            self._remember(event)
            return
        player_cause = _PLAYER_CAUSE.fullmatch(caused_by)
        seat_cause = _SEAT_CAUSE.fullmatch(caused_by)
        bot_cause = _BOT_CAUSE.fullmatch(caused_by)
        if player_cause is not None:
            self._player(event, int(player_cause.group(1)), player_cause.group(2), caused_by)
            self._seat(event, int(player_cause.group(1)), None, caused_by)
        elif seat_cause is not None:
            self._seat(event, int(seat_cause.group(1)), seat_cause.group(2), caused_by)
        elif bot_cause is not None:
            self._bot(event, int(bot_cause.group(1)), caused_by, state)
        elif _SUPPORT_CAUSE.fullmatch(caused_by) is not None:
            raise Diverged(
                "trail",
                f"the cause is {caused_by}: support (every agent) watches a match but never acts"
                " in it, so no event of a match is support's",
            )
        else:
            raise Diverged(
                "trail",
                f"caused_by {caused_by!r} is not a cause: one of seat:N/token:ID,"
                " seat:N/player:ID, bot:N, server,"
                " clock or import",
            )
        self._remember(event)

    def _remember(self, event: Event) -> None:
        if isinstance(event, SeatTaken):
            self.tokens[event.seat] = event.token_id
            self.players[event.seat] = event.player_id if isinstance(event.player_id, str) else None

    def _player(self, event: Event, seat: int, player_id: str, cause: str) -> None:
        """A player's cause is legitimate only on the seat that player took, after taking it."""
        if isinstance(event, SeatTaken):
            return  # refused by _seat: a seat is taken through the seat token it is given
        held = self.players.get(seat)
        if held != player_id:
            who = f"player {held}" if held else "no registered player"
            raise Diverged(
                "trail",
                f"the cause is player {player_id} at seat {seat} ({cause}), but seat {seat} was"
                f" taken by {who}",
            )

    def _seat(self, event: Event, seat: int, token: str | None, cause: str) -> None:
        if isinstance(event, SeatTaken):
            if seat != event.seat:
                raise Diverged(
                    "trail", f"seat {event.seat} is taken, but the cause is seat {seat} ({cause})"
                )
            if "/player:" in cause:
                raise Diverged(
                    "trail", f"seat {seat} is taken with a seat token, not a player's ({cause})"
                )
            if token is not None and event.token_id is not None and token != event.token_id:
                raise Diverged(
                    "trail",
                    f"seat {seat} is taken through token {event.token_id}, but the cause names"
                    f" token {token}",
                )
            return
        if seat not in self.tokens:
            raise Diverged(
                "trail", f"the cause is seat {seat} ({cause}), but nobody has taken seat {seat}"
            )
        held = self.tokens[seat]
        if token is not None and held is not None and token != held:
            raise Diverged(
                "trail",
                f"the cause is seat {seat} through token {token}, a token seat {seat} never held"
                f" (it was taken through token {held})",
            )
        if isinstance(event, CardPlayed) and not event.auto and seat != event.seat:
            raise Diverged(
                "trail",
                f"seat {event.seat}'s play is recorded as caused by seat {seat}: a seat plays"
                " only its own cards",
            )
        if (
            isinstance(event, MatchEnded)
            and event.reason == "forfeit"
            and event.seat is not None
            and seat != event.seat
        ):
            raise Diverged(
                "trail",
                f"seat {event.seat} leaves, but the cause is seat {seat}: a seat leaves only"
                " for itself (R26)",
            )

    def _bot(self, event: Event, seat: int, cause: str, state: MatchState) -> None:
        if state.setup is None or not state.is_bot(seat):
            raise Diverged("trail", f"the cause is {cause}, but no bot sits at seat {seat}")
        if isinstance(event, SeatTaken):
            raise Diverged(
                "trail", f"a seat taken is caused by {cause}: bots never take a seat, they are set"
            )
        if isinstance(event, CardPlayed) and seat != event.seat:
            raise Diverged(
                "trail",
                f"seat {event.seat}'s play is recorded as caused by the bot at seat {seat}: a bot"
                " plays only its own seat's cards",
            )
        if isinstance(event, MatchEnded) and event.reason == "forfeit":
            raise Diverged("trail", f"a forfeit is caused by {cause}: a bot never leaves")
