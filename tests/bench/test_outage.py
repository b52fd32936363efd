"""bench/outage.py through the harness."""

from __future__ import annotations

import shutil

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("initdb") is None, reason="no initdb for a private cluster")
def test_calls_through_a_short_outage(bench: Bench) -> None:
    # Given the breaker's store and a private cluster down for half a second
    figures, text = bench("outage", "--seconds", "0.5", "--threads", "2", "--modes", "breaker")
    # Then calls were refused while it was down and answered after
    assert_sane(figures["breaker"], positive=("refused", "first_answer_s", "longest_s"))
    assert_old_script_reads("outage", figures, text)
