"""bench/support.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_sane


def test_the_support_reads_are_measured(bench: Bench) -> None:
    # Given 30 matches and players, and 5 calls of each read
    figures, _ = bench("support", "--matches", "30", "--plays", "4", "--calls", "5")
    # Then each read was timed
    for name in ("search", "player_page", "match_page"):
        assert figures[name]["calls"] == 5
    assert_sane(figures, positive=("calls", "p50_ms", "p99_ms"))
