"""What one command did, as the service's pipeline hands it back to its caller and observers.

Every command (create, seat, play, leave, an expiry, a closure, a rematch link, an import) runs
through one pipeline: load → decide (with the bots' replies) → chain → append → cache → notify.
Its ``Outcome`` carries what the pipeline already had, so no caller folds or reads the stream
again to answer: the state the command was decided on, the state after it, the events stored,
and, for a command that was not stored, what refused it and why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from domain.commands import AnyCommand
from domain.recorded import RecordedEvent
from domain.state import MatchState

CommandKind: TypeAlias = Literal[
    "create", "seat", "play", "leave", "expire", "abandon", "rematch", "import"
]
"""The kinds of command the service runs, as operators count them (docs/deploy.md)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One command's result: the states around it, its stored events, or its refusal."""

    kind: CommandKind
    match_id: str
    before: MatchState
    after: MatchState
    recorded: tuple[RecordedEvent, ...] = ()
    command: AnyCommand | None = None  # None for an import, which stores a stream as given
    refused: Exception | None = None  # what stopped the command; nothing was stored

    @property
    def events(self) -> list[RecordedEvent]:
        """The events stored, in stream order (empty when refused)."""
        return list(self.recorded)

    @property
    def seq(self) -> int:
        """The match's last seq after the command (``before``'s when refused)."""
        return self.recorded[-1].seq if self.recorded else self.before.events

    @property
    def code(self) -> str:
        """``ok``, or the refusal's stable error code (``error`` for a fault without one)."""
        if self.refused is None:
            return "ok"
        code = getattr(self.refused, "code", None)
        return code if isinstance(code, str) else "error"


Observer = Callable[[Outcome], None]
"""Called with every command's outcome, stored or refused (the server's metrics)."""
