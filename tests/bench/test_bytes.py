"""bench/bytes.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_sqlite_bytes_and_latencies(bench: Bench) -> None:
    # Given three matches on SQLite only
    figures, text = bench("bytes", "--matches", "3", "--loads", "2", "--stores", "sqlite")
    # Then the store has its bytes, events and latencies
    assert_sane(figures, positive=("_match", "_event", "_ms"))
    assert set(figures) == {"sqlite-3"}
    assert_old_script_reads("bytes", figures, text)


def test_postgres_bytes(bench: Bench, postgres: str) -> None:
    # Given three matches on PostgreSQL, in a schema of their own
    figures, _ = bench(
        "bytes", "--matches", "3", "--loads", "2", "--stores", "postgres", "--postgres", postgres
    )
    # Then the schema's bytes are counted
    assert_sane(figures, positive=("_match", "_event", "_ms"))
    assert set(figures) == {"postgres-3"}
