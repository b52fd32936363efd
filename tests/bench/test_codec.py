"""bench/codec.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_both_forms_are_timed(bench: Bench) -> None:
    # Given two matches and one pass
    figures, text = bench("codec", "--matches", "2", "--repeats", "1")
    # Then each form has its bytes and times, the compact form the smaller
    assert_sane(figures, positive=("_event", "_us", "events"))
    assert figures["compact"]["state_bytes_per_event"] < figures["json"]["state_bytes_per_event"]
    assert_old_script_reads("codec", figures, text)
