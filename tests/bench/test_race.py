"""bench/race.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_raced_matches_verify(bench: Bench, postgres: str) -> None:
    # Given one match raced across two processes, verified here too
    figures, text = bench(
        "race", "--postgres", postgres, "--matches", "1", "--parallel", "1", "--verify-here"
    )
    # Then every match verifies, and its pairs are counted
    assert figures["matches"] == figures["verifying"] == figures["here_ok"] == 1
    assert_sane(figures, positive=("pairs", "seconds"))
    assert len(figures["races"]) == 1
    assert_old_script_reads("race", figures, text)
