"""bench/strong.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_one_pair_of_each_setting(bench: Bench) -> None:
    # Given one seed of each setting (each played both ways)
    figures, text = bench("strong", "--scale", "0.001", "--workers", "1")
    # Then every setting reports its matches and win rate, the timed one its decisions
    found = assert_sane(figures, positive=("matches", "median_ms", "wall_seconds"))
    assert found["classic-2 vs easy/matches"] == 2
    assert 0 <= found["classic-2 vs easy/win_rate"] <= 1
    assert found["classic-2 vs easy/decisions_timed"] > 0
    assert_old_script_reads("strong", figures, text)
