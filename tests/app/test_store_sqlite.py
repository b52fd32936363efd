"""The embedded SQLite store: created on first use, WAL with the chosen synchronous, shared by
processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.service import MatchService
from app.store.match_store import MatchStore

SYNCHRONOUS = {"FULL": 2, "NORMAL": 1}


@pytest.mark.parametrize("mode", ["FULL", "NORMAL"])
def test_a_new_file_is_wal_with_the_chosen_synchronous(tmp_path: Path, mode: str) -> None:
    # when a store is opened on a path in a folder that does not exist yet
    path = tmp_path / "new" / "folder" / "basra.db"
    store = MatchStore.sqlite(path, mode)
    MatchService(store).create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-1")

    # then the file exists, in WAL mode, and the store's connections use the chosen mode
    assert path.exists()
    with store.recorder.datastore.transaction(commit=False) as cursor:  # type: ignore[attr-defined]
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone()[0] == SYNCHRONOUS[mode]
    store.close()
    # and the events are in the file for anyone who opens it
    plain = sqlite3.connect(path)
    assert plain.execute("SELECT count(*) FROM stored_events").fetchone()[0] == 1
    plain.close()


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from app.service import MatchService

    path, name = sys.argv[1:]
    service = MatchService.open(Path(path))
    for k in range(15):
        service.create_match(ruleset="classic", seats=2, bots=(1,), match_id=f"{name}-{k}")
        service.take_seat(f"{name}-{k}", 0, name)
    service.close()
    """
)


def test_two_processes_start_on_one_new_file_and_both_write(tmp_path: Path) -> None:
    # when two processes open the same new file at once and record matches side by side
    path = tmp_path / "shared.db"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name], stderr=subprocess.PIPE)
        for name in ("ann", "bob")
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]

    # then neither fails and every match of both is whole
    assert [p.returncode for p in procs] == [0, 0], errors
    service = MatchService.open(path)
    ids = service.match_ids()
    assert sorted(ids) == sorted(f"{n}-{k}" for n in ("ann", "bob") for k in range(15))
    for match_id in ids:
        assert service.load(match_id).status == "playing"
    service.close()
