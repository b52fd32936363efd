"""Errors of the replay tooling, each with a stable ``code``, by cause.

A replay file or recorded stream that is not a readable match is a ``ReplayDataError`` (422,
exit 1: fix the file); a step or viewer that the match does not have is a ``RequestError``
(``DoesNotFitError``).
"""

from __future__ import annotations

from domain.errors import REFUSED, BasraError, DoesNotFitError


class ReplayDataError(BasraError):
    """Cause: a replay file or recorded stream is not a readable match; never raised itself."""

    code = "replay_data_error"
    http_status = 422
    exit_status = REFUSED


class ReplayFileError(ReplayDataError):
    """A replay file is malformed or breaks the rules; names the line and the reason."""

    code = "invalid_replay"

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class InvalidReceiptsError(ReplayDataError):
    """A receipts file or body is malformed or names another match; names the receipt line."""

    code = "invalid_receipts"

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"receipt line {line}: {reason}")
        self.line = line
        self.reason = reason


class StreamError(ReplayDataError):
    """A sequence of recorded events is not a match stream (empty, gaps, no match_created)."""

    code = "invalid_stream"


class StepOutOfRangeError(DoesNotFitError):
    """A step asked for lies outside the match's stream (seq 1 to the last event)."""

    code = "step_out_of_range"

    def __init__(self, seq: int, last: int) -> None:
        super().__init__(f"step {seq} is outside this match: choose a seq from 1 to {last}")
        self.seq = seq
        self.last = last


class UnknownViewerError(DoesNotFitError):
    """The viewer is neither support nor a seat of this match."""

    code = "unknown_viewer"
