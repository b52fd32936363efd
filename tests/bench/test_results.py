"""bench/results.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_applying_and_serving_the_results(bench: Bench) -> None:
    # Given 40 matches, one application, two clients and an open loop for half a second
    figures, text = bench(
        "results", "--matches", "40", "--plays", "4", "--repeats", "1", "--seconds", "0.5",
        "--concurrency", "2", "--rates", "20",
    )  # fmt: skip
    # Then the log was applied and both routes answered under both loops
    assert figures["apply"]["needed"]["entries"] > 0
    assert set(figures["load"]["2"]) == {"profile", "ladder"}
    assert set(figures["load"]["open"]["20"]) == {"profile", "ladder"}
    assert_sane(figures, positive=("requests", "p50_ms", "matches_per_s", "rated"))
    assert_old_script_reads("results", figures, text)
