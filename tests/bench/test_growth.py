"""bench/growth.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_two_small_sizes_on_sqlite(bench: Bench) -> None:
    # Given stores of 10 and 50 matches, ten plays each
    figures, text = bench("growth", "--sizes", "10,50", "--plays", "10", "--round", "5")
    # Then each size has its latencies and its ratio to the smallest
    sqlite = figures["sqlite"]
    assert set(sqlite) == {"10", "50"}
    assert sqlite["10"]["p50_ratio"] == 1
    assert_sane(sqlite, positive=("_ms", "_ratio"))
    assert_old_script_reads("growth", figures, text)


def test_postgres_too(bench: Bench, postgres: str) -> None:
    # Given one small size on PostgreSQL as well
    figures, _ = bench("growth", "--sizes", "10", "--plays", "5", "--postgres", postgres)
    # Then both stores report it
    assert set(figures) == {"sqlite", "postgres"}
    assert_sane(figures, positive=("_ms",))
