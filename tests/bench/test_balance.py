"""bench/balance.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_a_process_on_postgres(bench: Bench, postgres: str) -> None:
    # Given a PostgreSQL-served process under two matches for half a second
    figures, text = bench(
        "balance", "--postgres", postgres, "--cases", "pg-1", "--matches", "2",
        "--seconds", "0.5", "--repeats", "1",
    )  # fmt: skip
    # Then the loop's rate, latencies and CPU shares are there, and the process's share
    assert_sane(figures["pg-1"], positive=("plays_s", "p50", "p99", "little_mean_ms"))
    (run,) = figures["runs"]["pg-1"]
    assert sum(p["connections"] for p in run["processes"].values()) == 2
    assert run["play_requests_within"]["count"] > 0
    assert_old_script_reads("balance", figures, text)
