"""The first event of a stream that does not follow from the rules, as an audit reports it.

Apart from ``replays.audit`` so that what only shows a divergence (a replay's banner, a verify
line) need not load the rules engine that finds one.
"""

from __future__ import annotations

import msgspec


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    """The first event that does not follow from the rules: its seq, a kind and why."""

    seq: int
    kind: str
    explanation: str
