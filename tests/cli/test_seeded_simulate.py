"""A seeded simulation repeats byte for byte, across processes, and never records a match twice."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from cli.cmd_simulate import seeded_digest, seeded_id, seeded_time
from tests.stored_rows import recorded_rows

SIMULATE = ["simulate", "--ruleset", "classic", "--seats", "2", "--seed", "same", "--matches", "2"]


def basra(cwd: Path, *args: str, hash_seed: str) -> subprocess.CompletedProcess[bytes]:
    """``basra ARGS`` as a new process in ``cwd`` with its own PYTHONHASHSEED."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env.pop("BASRA_DB", None)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=cwd, env=env, capture_output=True
    )


def log_size(db: Path) -> int:
    """How many events the store holds."""
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM stored_events").fetchone()[0])


def test_two_processes_give_the_same_ids_files_and_exports(tmp_path: Path) -> None:
    runs = []
    for name, hash_seed in (("a", "1"), ("b", "2")):
        where = tmp_path / name
        where.mkdir()
        simulated = basra(where, *SIMULATE, "--export", "out", "--json", hash_seed=hash_seed)
        assert simulated.returncode == 0, simulated.stderr
        first = simulated.stdout.split(b'"match_id":"')[1].split(b'"')[0].decode()
        exported = basra(where, "export", first, hash_seed=hash_seed)
        files = {p.name: p.read_bytes() for p in sorted((where / "out").iterdir())}
        runs.append((simulated.stdout, exported.stdout, files))
    assert runs[0] == runs[1]
    assert len(runs[0][2]) == 2 and runs[0][1] in runs[0][2].values()


def test_the_same_seeded_run_again_writes_nothing_twice(tmp_path: Path) -> None:
    first = basra(tmp_path, *SIMULATE, hash_seed="3")
    events = log_size(tmp_path / "basra.db")
    again = basra(tmp_path, *SIMULATE, hash_seed="4")
    assert again.returncode == 0 and again.stdout == first.stdout
    assert b"2 already recorded" in again.stderr
    assert log_size(tmp_path / "basra.db") == events


def test_ids_and_times_follow_the_documented_derivation(tmp_path: Path) -> None:
    out = basra(tmp_path, *SIMULATE, hash_seed="5").stdout.decode().split()
    for k, seed in enumerate(("same", "same/1")):
        digest = seeded_digest(seed, "classic", 2, "easy", None)
        assert out[k] == seeded_id(k, "classic", 2, digest)
    with sqlite3.connect(tmp_path / "basra.db") as connection:
        times = {r.at for r in recorded_rows(connection, out[0])}
    at = seeded_time(seeded_digest("same", "classic", 2, "easy", None))
    assert at.startswith("2000-") and at in times


def test_without_a_seed_every_run_is_new(tmp_path: Path) -> None:
    args = ["simulate", "--ruleset", "classic", "--seats", "2"]
    one = basra(tmp_path, *args, hash_seed="6").stdout
    two = basra(tmp_path, *args, hash_seed="6").stdout
    assert one != two and log_size(tmp_path / "basra.db") > 0
