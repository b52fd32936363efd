"""The one quantile every benchmark reports its percentiles with."""

from __future__ import annotations

from collections.abc import Iterable


def quantile(values: Iterable[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` by nearest rank: the value at index ``int(q * n)``
    of the ascending order, the largest for ``q`` = 1 (0.0 when there are none)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
