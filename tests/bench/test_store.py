"""bench/store.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_appends_loads_and_rebuild(bench: Bench) -> None:
    # Given 20 appends a loop, five matches to rebuild, one repeat
    figures, text = bench(
        "store", "--plays", "20", "--matches", "5", "--repeats", "1", "--sync", "NORMAL"
    )
    # Then every section has its figures
    assert_sane(figures, positive=("_per_s", "_ms"))
    assert set(figures["NORMAL"]) == {"raw_per_s", "store_per_s", "one_per_s", "rr200_per_s"}
    assert figures["sqlite"]["events"] >= 300
    assert_old_script_reads("store", figures, text)
