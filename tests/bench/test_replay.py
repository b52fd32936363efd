"""bench/replay.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_sane


def test_jumps_and_verify_all(bench: Bench) -> None:
    # Given a dozen matches (one of 300 events or more), a few jumps, one verify --all
    figures, _ = bench(
        "replay", "--matches", "12", "--jumps", "3", "--cli-jumps", "1", "--repeats", "1"
    )
    # Then every kind of jump and of verification has its figures
    assert_sane(figures, positive=("median_ms", "/n", "median", "events", "matches"))
    assert figures["match_events"] >= 300
    assert set(figures["jumps"]) == {"cold", "warm", "jump", "cli"}
    assert set(figures["verify_per_s"]) == {"audit", "no_bots", "store", "cli"}
