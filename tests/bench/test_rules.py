"""bench/rules.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_sane


def test_self_play_beside_the_mutable_loop(bench: Bench) -> None:
    # Given the smallest run: two matches a rule set, one repeat
    # When it runs through the harness
    figures, _ = bench("rules", "--matches", "2", "--repeats", "1")
    # Then both tables report plays, rates and a finite ratio to the baseline
    assert set(figures) == {"2 seats", "4 seats"}
    assert_sane(figures, positive=("plays_last_repeat", "_per_s", "_per_cpu_s", "_baseline"))


def test_a_fixed_workload_only_counts_plays(bench: Bench) -> None:
    # Given the instruction-counting workload of one match
    figures, text = bench("rules", "--workload", "engine", "--matches", "1")
    # Then it prints and returns the plays alone
    assert figures["plays"] > 0
    assert str(figures["plays"]) in text
