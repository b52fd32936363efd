"""bench/api.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_sane


@pytest.mark.slow
def test_throughput_beside_the_baseline(bench: Bench) -> None:
    # Given two matches playing for half a second against each server, one round
    figures, _ = bench(
        "api", "--only", "throughput", "--seconds", "0.5", "--repeats", "1", "--concurrency", "2"
    )
    # Then both rates and their ratio are there
    throughput = figures["uvicorn"]["throughput"]
    assert_sane(throughput, positive=("_median", "ratio_of_medians"))
    assert len(throughput["api_plays_per_s"]) == 1


@pytest.mark.slow
def test_paced_latencies(bench: Bench) -> None:
    # Given two matches each playing every 0.2 s for half a second
    figures, _ = bench(
        "api",
        *("--only", "paced", "--paced-matches", "2", "--interval", "0.2"),
        *("--paced-duration", "0.5", "--paced-rounds", "1"),
    )
    # Then each run has its latencies on both servers
    (run,) = figures["uvicorn"]["paced"]["runs"]
    for side in ("api", "baseline"):
        assert_sane(run[side], positive=("count", "p50", "p99", "max"))
