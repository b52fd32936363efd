"""Server processes starting together on a fresh PostgreSQL schema all start: the store's
tables are created one process at a time (app/store/postgres.py ``creating_tables``)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.config import PostgresSettings

ROOT = Path(__file__).resolve().parents[3]

OPEN_AT = """
import sys, time
from app.config import PostgresSettings
from app.store.match_store import MatchStore, side_recorder
import msgspec
settings = msgspec.json.decode(sys.argv[1], type=PostgresSettings)
start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
store = MatchStore.postgres(settings)
side_recorder(store, "players")
side_recorder(store, "support")
store.close()
print("opened")
"""


@pytest.mark.postgres
def test_six_processes_opening_a_fresh_schema_at_one_moment_all_open(
    postgres_settings: PostgresSettings,
) -> None:
    # given six fresh interpreters, each to open the store on the same new schema at one moment
    import msgspec

    start = time.time() + 3.0
    encoded = msgspec.json.encode(postgres_settings).decode()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AT, encoded, str(start)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    # when they all open it (each creating the tables it finds missing)
    outcomes = [process.communicate(timeout=120) for process in processes]
    # then every one of them opened the store
    failures = [err for (out, err) in outcomes if out.strip() != "opened"]
    assert not failures, failures[0]
