"""bench/harness.py and bench/before.py: the listing, the options, and --before."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench.harness import BENCHMARKS, main

ROOT = Path(__file__).resolve().parents[2]


def test_every_benchmark_is_listed_with_its_description(capsys: pytest.CaptureFixture[str]) -> None:
    # When the harness runs without a name
    assert main([]) == 0
    listed = capsys.readouterr().out
    # Then every benchmark module is listed with its line, and nothing else is missing
    modules = {p.stem for p in (ROOT / "bench").glob("*.py")}
    shared = {"__init__", "__main__", "harness", "before", "options", "servers", "client"}
    shared |= {"stats", "baseline_mutable", "baseline_server", "compare_trees"}
    shared |= {"tables_client", "tables_goals"}
    assert modules - shared == set(BENCHMARKS)
    for name, summary in BENCHMARKS.items():
        assert f"  {name} " in listed and summary in listed


def test_an_unknown_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nosuch"]) == 2
    assert "no benchmark 'nosuch'" in capsys.readouterr().err


def test_a_benchmark_that_needs_postgres_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given no PostgreSQL server anywhere
    monkeypatch.delenv("BASRA_TEST_POSTGRES", raising=False)
    # When a benchmark that needs one runs, then it stops with a usage error
    with pytest.raises(SystemExit) as stopped:
        main(["race"])
    assert stopped.value.code == 2


def test_an_old_option_name_is_still_taken(capsys: pytest.CaptureFixture[str]) -> None:
    # Given the old script's name of the repeats (--rounds of bench_cli.py) in the help
    with pytest.raises(SystemExit):
        main(["cli", "--help"])
    # Then it is offered beside the shared name
    assert "--repeats REPEATS, --rounds REPEATS" in capsys.readouterr().out


def test_before_compares_two_checkouts() -> None:
    # Given this checkout as the other side too (it has the harness)
    command = [sys.executable, "-m", "bench", "codec", "--matches", "1", "--repeats", "1"]
    command += ["--before", str(ROOT), "--before-runs", "2", "--json"]
    # When the harness compares them
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    compared = json.loads(done.stdout)
    # Then each side ran twice and every figure has a finite median ratio
    assert len(compared["runs"]["here"]) == len(compared["runs"]["before"]) == 2
    rows = {row["figure"]: row for row in compared["rows"]}
    assert rows["compact/state_bytes_per_event"]["ratio"] == 1
    assert all(math.isfinite(row["ratio"]) for row in rows.values())
    assert "| figure | before, median |" in done.stderr
