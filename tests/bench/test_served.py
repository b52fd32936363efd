"""bench/served.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench


def test_a_served_play_is_counted(bench: Bench) -> None:
    # Given one practice match
    # When it is played through the harness
    figures, text = bench("served", "--matches", "1")
    # Then the plays are printed first and the CPU per play is positive
    assert figures["plays"] > 0
    assert text.splitlines()[0] == str(figures["plays"])
    assert figures["cpu_us_per_play"] > 0
