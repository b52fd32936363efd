"""bench/live.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_plays_reach_the_other_process(bench: Bench, postgres: str) -> None:
    # Given two matches playing ten times a second for half a second
    figures, text = bench(
        "live", "--postgres", postgres, "--matches", "2", "--rate", "10",
        "--seconds", "0.5", "--repeats", "1",
    )  # fmt: skip
    # Then the plays reached the feed and their spreads are there
    assert figures["now"]["plays"] > 0
    assert_sane(figures, positive=("after_request/p50",), signed=("after_answer", "answer_ms"))
    assert_old_script_reads("live", figures, text)
