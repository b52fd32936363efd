"""bench/capture.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_sane


def test_every_kind_of_floor_is_timed(bench: Bench) -> None:
    # Given four random adversarial floors, each timed once
    figures, text = bench("capture", "--floors", "4", "--repeats", "1")
    # Then the adversarial, full and typical floors all have figures
    found = assert_sane(figures, positive=("_ms", "_per_s", "_per_call"))
    assert figures["adversarial"]["floors"] >= 4
    assert len(figures["full_floors"]) == 10
    assert found["typical/warm_calls_per_s"] > 0
    assert "slowest adversarial floor" in text
