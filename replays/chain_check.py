"""The hash chain of a replay file, checked line by line before its rules (docs/fairness.md).

A file is chained on every event line or on none: a file with no ``chain`` at all (an older
export, another system's) is imported as unchained. A chained file whose secret is not revealed
(``seed`` null, a support export before the end) cannot have its links recomputed; it is kept
as given, and ``basra verify`` says its chain is unchecked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.chain import chain_status, first_break
from domain.events import MatchCreated
from replays.errors import ReplayFileError

if TYPE_CHECKING:
    from replays.replay_reader import ReplayFile


def check_file_chain(replay: ReplayFile) -> str:
    """``chained``, ``unchained`` or ``unchecked``; ReplayFileError at the first bad link."""
    events = replay.events
    linked = [item for item in events if item.chain is not None]
    if not linked:
        return "unchained"
    if replay.synthesised:
        first = linked[0]
        raise ReplayFileError(
            replay.line_of(first.seq),
            "a chained file starts with its own match_created and seat_taken lines, "
            "the first links of its chain",
        )
    status = chain_status(events)
    if status == "unchained":
        raise ReplayFileError(
            replay.line_of(linked[0].seq),
            f"seq {linked[0].seq} has a chain link, but seq 1 has none: "
            "a file is chained on every line or on none",
        )
    if status == "unchecked":
        return status
    created = events[0].event
    assert isinstance(created, MatchCreated) and created.secret is not None
    broken = first_break(events, bytes.fromhex(created.secret))
    if broken is not None:
        raise ReplayFileError(
            replay.line_of(broken.seq), f"seq {broken.seq}: the chain breaks: {broken.reason}"
        )
    return status
