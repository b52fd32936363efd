"""bench/pool.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_sane


def test_time_to_pair_at_a_small_pool(bench: Bench) -> None:
    # Given the smallest run: 5 waiting, 3 pairings, one repeat, SQLite only
    figures, text = bench(
        "pool", "--waiting", "5", "--pairs", "3", "--repeats", "1", "--postgres", ""
    )
    # Then the table reports the pairing times of that size, by a join and by the sweep
    assert set(figures["sqlite"]) == {"5 waiting", "5 waiting, sweep"}
    assert figures["sqlite"]["5 waiting"]["pairs"] == 3
    assert figures["sqlite"]["5 waiting, sweep"]["pairs"] == 3
    assert_sane(figures, positive=("_ms",))
    assert "time to pair" in text
