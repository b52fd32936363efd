"""bench/clock.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
def test_deadlines_fire_on_sqlite(bench: Bench) -> None:
    # Given two tables whose turns start two seconds after the recording, played at the deadline
    figures, text = bench(
        "clock", "--matches", "2", "--only", "sqlite", "--lead", "2", "--workloads", "plays"
    )
    # Then every match ended by timeout, and every play was answered
    plays = figures["sqlite"]["plays"]["here"]
    assert plays["timeouts"] == 2 and plays["not_ended"] == 0
    assert plays["landed"] + plays["refused"] + plays["other"] == 2
    assert_sane(figures, positive=("most_at_once", "lateness_max_ms"), signed=("lateness",))
    assert_old_script_reads("clock", figures, text)
