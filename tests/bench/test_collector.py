"""bench/collector.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_both_modes_under_a_short_load(bench: Bench) -> None:
    # Given two matches for half a second in each mode
    figures, text = bench("collector", "--seconds", "0.5", "--repeats", "1", "--matches", "2")
    # Then each mode has its loop figures, its collections and its memory
    for mode in ("default", "tuned"):
        assert_sane(figures[mode], positive=("plays_s", "p99_ms", "rss_before_mb"))
    assert_old_script_reads("collector", figures, text)
