"""bench/chain.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_each_timing_of_an_append(bench: Bench) -> None:
    # Given 20 appends on NORMAL, one repeat
    figures, text = bench("chain", "--appends", "20", "--repeats", "1", "--sync", "NORMAL")
    # Then the four timings are there, each above zero
    assert_sane(figures, positive=("_us", "appends", "events"))
    assert set(figures["NORMAL"]) == {"plain_us", "chained_us", "chain_us", "read_us"}
    assert_old_script_reads("chain", figures, text)
