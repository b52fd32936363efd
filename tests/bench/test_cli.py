"""bench/cli.py through the harness."""

from __future__ import annotations

from tests.bench.conftest import Bench, assert_old_script_reads, assert_sane


def test_every_command_beside_a_bare_interpreter(bench: Bench) -> None:
    # Given one round of each process
    figures, text = bench("cli", "--repeats", "1")
    # Then every read command has its time and its ratio to the bare interpreter
    assert_sane(figures, positive=("_ms", "_x_bare"))
    assert figures["bare_x_bare"] == 1
    assert {f"{key}_ms" for key in ("bare", "replay", "export", "verify", "matches")} <= set(
        figures
    )
    assert_old_script_reads("cli", figures, text)
