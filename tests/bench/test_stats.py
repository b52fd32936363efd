"""bench/stats.py: the one quantile."""

from __future__ import annotations

from bench.stats import quantile


def test_nearest_rank() -> None:
    # Given the values 1 to 100, in any order
    values = list(range(100, 0, -1))
    # Then the quantiles are the values at index int(q * n) of the ascending order
    assert quantile(values, 0.5) == 51
    assert quantile(values, 0.99) == 100
    assert quantile(values, 0.0) == 1
    assert quantile(values, 1.0) == 100


def test_no_values() -> None:
    assert quantile([], 0.99) == 0.0
