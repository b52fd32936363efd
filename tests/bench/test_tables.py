"""bench/tables.py through the harness."""

from __future__ import annotations

import pytest

from tests.bench.conftest import Bench


@pytest.mark.slow
def test_live_tables_play_and_every_feed_gets_their_pushes(bench: Bench) -> None:
    # Given three 2-seat tables with a spectator each, thinking a tenth of a second
    figures, text = bench(
        "tables", "--tables", "3", "--think", "uniform:0.05-0.15", "--warmup", "1",
        "--seconds", "3",
    )  # fmt: skip
    # Then plays were made and pushed to every other feed, in order, none missing
    (row,) = figures["sqlite-1"]
    assert row["side"] == "after" and row["feeds"] == 9
    assert row["done_s"] > 0 and row["play_p50"] > 0 and row["push_p50"] > 0
    assert row["out_of_order"] == 0 and row["missing"] == 0 and row["errors"] == 0
    assert "per-address limits off" in text
