"""bench/games.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench, assert_sane


@pytest.mark.slow
def test_the_games_list_and_a_profile_on_a_small_store(bench: Bench) -> None:
    # Given the smallest run: 20 players, 5 with tokens, 5 requests a route, one repeat
    figures, text = bench(
        "games", "--players", "20", "--sample", "5", "--requests", "5", "--repeats", "1"
    )
    # Then both routes report latencies
    assert set(figures) == {"games", "profile", "players"}
    assert figures["games"]["requests"] == 5
    assert_sane(figures, positive=("_ms",))
    assert "p99" in text
