"""A SIGKILL during the results projection loses and doubles nothing (R27, docs/ratings.md):
a real process applying the log in small batches is killed mid-batch, and the next catch-up
ends with exactly the rows a rebuild from the streams gives."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path

from app.readmodels.results import Results
from app.service import MatchService
from app.service.players import PlayerService
from app.store.match_store import MatchStore
from tests.app.results_helpers import finished_match, register

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from app.readmodels.results import Results
from app.store.match_store import MatchStore

store = MatchStore.sqlite(Path(sys.argv[2]))
results = Results(Path(sys.argv[3]), store, batch_size=5)

def slowly(entry):
    print(entry.position, flush=True)
    time.sleep(0.02)

results.catch_up(after_entry=slowly)
print("done", flush=True)
"""


def test_a_kill_mid_batch_loses_and_doubles_nothing(tmp_path: Path) -> None:
    # given a store with twelve finished matches between four players
    db = tmp_path / "basra.db"
    service = MatchService.open(db)
    players = PlayerService(service.store)
    ids = register(players, "A", "B", "C", "D")
    pairs = list(itertools.combinations(ids, 2)) * 2
    for n, (a, b) in enumerate(pairs):
        finished_match(service, f"m-{n:02d}", [a, b], "forfeit" if n % 3 == 0 else "target")
    service.close()
    path = tmp_path / "results.sqlite3"

    # when a process applying them in batches of five is killed in the middle of a batch
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(db), str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for seen, line in enumerate(process.stdout, start=1):
        assert line.strip() != "done", "the projection finished before it could be killed"
        if seen == 23:  # the third entry of the fifth batch
            os.kill(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL

    # then the file holds whole batches only, and catching up ends where a rebuild does
    store = MatchStore.sqlite(db)
    resumed = Results(path, store)
    position = resumed.position()
    assert 0 < position < store.max_position()
    resumed.catch_up()
    fresh = Results(tmp_path / "fresh.sqlite3", store)
    fresh.rebuild()
    assert resumed.all_rows() == fresh.all_rows()
    total = sum(resumed.profile(pid).wins + resumed.profile(pid).losses for pid in ids)
    assert total == 2 * len(pairs)
    resumed.close()
    fresh.close()
    store.close()
