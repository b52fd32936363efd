"""bench/web.py through the harness."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.web import CHROMIUM
from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no Chromium")
def test_pages_and_key_presses(bench: Bench) -> None:
    # Given one cold load of each page and six key presses in the replay viewer
    figures, text = bench("web", "--loads", "1", "--presses", "6")
    # Then each page has its time and bytes, and the presses their frames
    assert_sane(figures, positive=("median_ms", "_bytes", "presses", "events"))
    assert set(figures) == {"lobby", "table", "replay"}
    assert_old_script_reads("web", figures, text)
