"""The last chain links a process keeps (app.service.chain_heads): the newest seq wins, and
six threads playing matches through one service at once, in a fresh interpreter, leave every
stream's chain whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from app.service.chain_heads import ChainHeads

ROOT = Path(__file__).resolve().parents[2]


@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 20)), max_size=40))
def test_the_newest_seq_of_each_match_is_kept(puts: list[tuple[str, int]]) -> None:
    # given links put in any order
    heads = ChainHeads()
    for match_id, seq in puts:
        heads.put(match_id, seq, f"{match_id}{seq}")
    # then each match answers for its newest seq only, with that seq's link
    for match_id in "ab":
        seqs = [seq for m, seq in puts if m == match_id]
        for seq in range(21):
            head = heads.get(match_id, seq)
            if seqs and seq == max(seqs):
                assert head is not None and head.chain == f"{match_id}{seq}"
            else:
                assert head is None


def test_a_full_cache_forgets_the_least_recently_used() -> None:
    heads = ChainHeads(capacity=2)
    heads.put("a", 1, "x")
    heads.put("b", 1, "y")
    assert heads.get("a", 1) == ("x", None)  # a is now the more recent
    heads.put("c", 1, "z", "2026-01-01T00:00:00.000001Z")
    assert heads.get("b", 1) is None
    assert heads.get("a", 1) == ("x", None)
    assert heads.get("c", 1) == ("z", "2026-01-01T00:00:00.000001Z")


SCRIPT = """
import json, sys, threading
sys.path.insert(0, sys.argv[1])
sys.setswitchinterval(1e-6)
from pathlib import Path
from app.service import MatchService
from domain.chain import first_break
from domain.fairness import secret_from_text_seed
from domain.views import seat_view

service = MatchService.open(Path(sys.argv[2]))
barrier = threading.Barrier(6)
errors = []

def run(i):
    try:
        match_id = service.create_match(
            ruleset="classic", seats=2, bots=(1,), target=1,
            secret=secret_from_text_seed(f"threads/{i}"), match_id=f"m-{i}",
        ).match_id
        service.take_seat(match_id, 0, f"p{i}")
        barrier.wait()
        while (state := service.load(match_id)).status == "playing":
            service.play_card(match_id, 0, seat_view(state, 0).hand[0])
    except Exception as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
breaks = {}
for i in range(6):
    events = service.events(f"m-{i}")
    broken = first_break(events, secret_from_text_seed(f"threads/{i}"))
    breaks[i] = [len(events), None if broken is None else broken.seq]
service.close()
print(json.dumps({"errors": errors, "breaks": breaks}))
"""


def test_six_threads_in_a_fresh_process_each_leave_a_whole_chain(tmp_path: Path) -> None:
    # given six threads each playing its own match to the end through one service at once,
    # switching threads every microsecond, in a fresh interpreter
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path / "threads.db")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # then no thread failed, and every match's chain is whole from its first event
    assert result["errors"] == []
    for events, broken in result["breaks"].values():
        assert events > 10 and broken is None
