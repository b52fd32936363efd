"""bench/tables.py through the harness."""

from __future__ import annotations

from pathlib import Path

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
    # and the run is read against the capacity goals: one step has no twice-the-capacity step
    assert row["run"] == 1
    assert "- after (run 1): " in text
    assert "no step at 6 tables measured" in text or "no capacity" in text


@pytest.mark.slow
def test_tables_that_arrive_over_time_all_play_when_the_server_has_room(bench: Bench) -> None:
    # Given four tables arriving over two seconds, a server far from its capacity
    figures, _ = bench(
        "tables", "--tables", "4", "--think", "uniform:0.05-0.15", "--arrive-over", "2",
        "--warmup", "1", "--seconds", "2",
    )  # fmt: skip
    # Then every one was admitted before the window and played through it, none refused
    (row,) = figures["sqlite-1"]
    assert row["playing"] == "4-4"
    assert row["refused"] == 0 and row["errors"] == 0
    assert row["done_s"] > 0 and row["missing"] == 0


@pytest.mark.slow
def test_setups_report_the_servers_cpu_per_table_set_up(bench: Bench) -> None:
    # Given twenty tables set up one after another on a quiet server
    figures, text = bench("tables", "--setups", "20")
    # Then the server's CPU per table set up is reported, and it is more than nothing
    (row,) = figures["setups"]
    assert row["side"] == "after" and row["tables"] == 20
    assert row["cpu_ms_per_setup"] > 0
    assert "CPU ms per table set up" in text


@pytest.mark.slow
def test_the_collector_option_reports_the_servers_collections_in_the_window(bench: Bench) -> None:
    # Given three tables on a server whose collections are recorded
    figures, text = bench(
        "tables", "--tables", "3", "--think", "uniform:0.05-0.15", "--warmup", "1",
        "--seconds", "3", "--collector",
    )  # fmt: skip
    # Then the window's collections are counted by generation: the serving process's clock
    # collects the young generation every 0.1 s, so a 3 s window holds well over ten of them
    (row,) = figures["sqlite-1"]
    young, middle, full = (int(n) for n in row["gc_collections"].split("/"))
    assert young >= 10 and middle >= 1 and full >= 0
    assert 0 < row["gc_longest_ms"] <= row["gc_ms"]
    assert "longest pause, ms" in text and "window" not in row


@pytest.mark.slow
def test_code_also_serves_one_more_checkout_in_every_step_labelled(bench: Bench) -> None:
    # Given this checkout served again as a third side, labelled "again"
    root = Path(__file__).resolve().parents[2]
    figures, text = bench(
        "tables", "--tables", "2", "--think", "uniform:0.05-0.15", "--warmup", "1",
        "--seconds", "2", "--code-also", f"again={root}",
    )  # fmt: skip
    # Then the step has a row for each side, in order, each of them playing
    rows = figures["sqlite-1"]
    assert [row["side"] for row in rows] == ["after", "again"]
    assert all(row["done_s"] > 0 and row["errors"] == 0 for row in rows)
    assert "| again | 2 |" in text


def test_code_also_without_a_label_is_refused(bench: Bench) -> None:
    # Given a --code-also that names no label
    # When the benchmark starts, then it stops at once, saying what it takes
    with pytest.raises(SystemExit, match="LABEL=DIR"):
        bench("tables", "--tables", "2", "--code-also", "/tmp")
