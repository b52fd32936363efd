"""bench/scale.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_commits_appends_and_a_served_loop(bench: Bench, postgres: str) -> None:
    # Given each loop for a tenth of a second, one served case for half a second at two matches
    figures, text = bench(
        "scale",
        *("--postgres", postgres, "--seconds", "0.1", "--repeats", "1"),
        *("--serve-seconds", "0.5", "--loads", "2", "--cases", "sqlite-1"),
    )
    # Then the raw commits, the store's appends and the served plays have their medians
    assert set(figures["raw"]) == set(figures["store"]) == {"1", "4", "16"}
    assert_sane(figures["raw"] | figures["store"], positive=("1", "4", "16"))
    assert_sane(figures["serve"], positive=("plays_s", "p50", "p99", "server_cpu_ms_per_play"))
    assert set(figures["serve"]) == {"sqlite-1@2"}
    assert_old_script_reads("scale", figures, text)
