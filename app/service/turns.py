"""What one command does to a match, before anything is stored: its events and the bots' replies.

A command is decided on the state the service loaded; every bot then on turn plays (R13) until a
person is on turn or the match ends. Each event is kept with its cause (the caller's, or
``bot:N`` for a bot's play), and ``recorded`` numbers them after the stream's last seq. Nothing
here reads or writes the store.
"""

from __future__ import annotations

from domain.autoplay import judge, play_bot_turns
from domain.commands import AnyCommand
from domain.events import Event
from domain.evolve import evolve
from domain.recorded import RecordedEvent
from domain.state import MatchState

Steps = list[tuple[Event, str]]
"""The events a command produced so far, each with who caused it, in stream order."""


def apply(state: MatchState, command: AnyCommand, cause: str, steps: Steps) -> MatchState:
    """Decide ``command`` on ``state``; its events join ``steps`` as caused by ``cause``."""
    for event in judge(state, command):
        state = evolve(state, event)
        steps.append((event, cause))
    return state


def bot_turns(state: MatchState, steps: Steps, now_us: int | None = None) -> MatchState:
    """Every bot on turn plays until a person is on turn or the match ends.

    ``now_us`` is the command's time: a bot's play that passes the turn to a person sets that
    person's deadline from it (R25).
    """

    def caused(event: Event, seat: int) -> None:
        steps.append((event, f"bot:{seat}"))

    return play_bot_turns(state, now_us=now_us, on_event=caused)


def recorded(steps: Steps, after_seq: int, at: str, request_id: str | None) -> list[RecordedEvent]:
    """The steps as stream entries numbered after ``after_seq``, all recorded at ``at``."""
    return [
        RecordedEvent(seq=after_seq + i, at=at, event=event, caused_by=cause, request_id=request_id)
        for i, (event, cause) in enumerate(steps, 1)
    ]
