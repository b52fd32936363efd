"""The warning shown on a replay of a match that does not verify, from its first bad event on.

Support, and everyone once the match has ended, read why; a seat before the end reads only the
seq and the kind of fault, because the explanation may name cards it may not see (R23).
"""

from __future__ import annotations

import textwrap

from domain.redaction import SUPPORT
from replays.cursor import MatchCursor, Viewer
from replays.divergence import Divergence

BANNER_MARK = "!!"
"""The start of every banner line, so the warning stands out from the frame."""


def visible_divergence(
    divergence: Divergence | None, seq: int, last_seq: int, viewer: Viewer, *, ended: bool
) -> Divergence | None:
    """The divergence as ``viewer`` may read it at the position after ``seq``; None before it.

    A missing event lies after the last one, so its warning is on the last frame.
    """
    if divergence is None or seq < min(divergence.seq, last_seq):
        return None
    if viewer == SUPPORT or ended:
        return divergence
    return Divergence(
        seq=divergence.seq,
        kind=divergence.kind,
        explanation="the reason is shown to support, or to everyone once the match has ended",
    )


def banner(divergence: Divergence | None, width: int) -> list[str]:
    """The banner lines for a divergence the viewer may read (none when there is none)."""
    if divergence is None:
        return []
    text = (
        f"this match does not verify: seq {divergence.seq} does not follow from the rules"
        f" ({divergence.kind}): {divergence.explanation}"
    )
    return textwrap.wrap(
        text, width=width, initial_indent=f"{BANNER_MARK} ", subsequent_indent=f"{BANNER_MARK}   "
    )


def stream_divergence(cursor: MatchCursor) -> Divergence | None:
    """The first event of the cursor's stream that does not verify (``replays.audit``)."""
    from replays.audit import audit  # the rules engine, loaded only when a banner is asked for

    return audit(cursor.events()).divergence


def divergence_at(cursor: MatchCursor, seq: int, viewer: Viewer) -> Divergence | None:
    """What the banner says at the position after ``seq`` for ``viewer``; None for no banner."""
    return visible_divergence(
        stream_divergence(cursor), seq, cursor.last_seq, viewer, ended=cursor.ended
    )
