"""The in-memory store's record of each player's last seq, under threads in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys, threading
sys.path.insert(0, sys.argv[1])
sys.setswitchinterval(1e-6)
from app.config import StoreConfig
from app.store.match_store import MatchStore
from app.store.player_store import PlayerStore
from domain.players import PlayerRenamed

store = MatchStore.open(StoreConfig(kind="memory"))
errors = []

def write(thread):
    # each thread has a store handle of its own and writes streams of its own
    players = PlayerStore(store)
    try:
        for k in range(20):
            pid = f"p-{thread}-{k}"
            for seq in range(thread % 3 + 1):
                players.append(pid, seq, [PlayerRenamed(name=f"n{seq}")])
    except Exception as error:
        errors.append(repr(error))

threads = [threading.Thread(target=write, args=(t,)) for t in range(6)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"errors": errors, "versions": PlayerStore(store).versions()}))
"""


def test_six_threads_appending_player_streams_in_memory_leave_every_last_seq() -> None:
    # given six threads appending to 20 player streams each of one in-memory store, switching
    # threads every microsecond, in a fresh interpreter
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # then no append failed and every stream's last seq is known, from any handle
    assert result["errors"] == []
    expected = {f"p-{t}-{k}": t % 3 + 1 for t in range(6) for k in range(20)}
    assert result["versions"] == expected
