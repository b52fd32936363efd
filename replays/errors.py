"""Errors of the replay tooling, each a BasraError with a stable ``code``."""

from __future__ import annotations

from domain.errors import BasraError


class ReplayFileError(BasraError):
    """A replay file is malformed or breaks the rules; names the line and the reason."""

    code = "invalid_replay"

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class StreamError(BasraError):
    """A sequence of recorded events is not a match stream (empty, gaps, no match_created)."""

    code = "invalid_stream"


class StepOutOfRangeError(BasraError):
    """A step asked for lies outside the match's stream (seq 1 to the last event)."""

    code = "step_out_of_range"

    def __init__(self, seq: int, last: int) -> None:
        super().__init__(f"step {seq} is outside this match: choose a seq from 1 to {last}")
        self.seq = seq
        self.last = last


class UnknownViewerError(BasraError):
    """The viewer is neither support nor a seat of this match."""

    code = "unknown_viewer"
