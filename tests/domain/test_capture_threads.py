"""R8 under threads: the capture solver shares its memos between threads, and every thread
still gets the one right haul (the server judges plays on worker threads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from domain.capture import best_haul, clear_caches

ROOT = Path(__file__).resolve().parents[2]

# Floors that send the solver down each of its ways: a few cards left behind, many left
# behind (the search), and full floors of repeated values.
FLOORS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (10, ("9C", "9D", "9H", "9S", "8C", "8D", "8H", "8S", "7C", "7D", "7H", "7S", "AC")),
    (10, ("AC", "AD", "2C", "2D", "3C", "3D", "4C", "4D", "5C", "5D", "6C", "6D", "7C", "8C")),
    (9, ("8C", "8D", "8H", "8S", "7C", "7D", "7H", "7S", "6C", "6D", "AC", "AD", "2H", "3S")),
    (10, ("AC", "AD", "AH", "AS", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "9C")),
    (8, ("7C", "7D", "7H", "7S", "6C", "6D", "6H", "5C", "5D", "3C", "3D", "AC", "2S")),
    (10, ("4C", "4D", "4H", "4S", "3C", "3D", "3H", "2C", "2D", "9S", "9H", "8D", "5S", "6S")),
)

SCRIPT = """
import json, sys, threading
sys.path.insert(0, sys.argv[1])
sys.setswitchinterval(1e-6)
from domain.capture import best_haul, clear_caches
floors = json.loads(sys.argv[2])
rounds = []
for _ in range(int(sys.argv[3])):
    clear_caches()
    barrier = threading.Barrier(6)
    answers = {}
    def run(i):
        barrier.wait()
        try:
            answers[i] = [best_haul(value, floor) for value, floor in floors]
        except Exception as exc:
            answers[i] = type(exc).__name__
    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rounds.append([answers[i] for i in range(6)])
print(json.dumps(rounds))
"""


def test_r8_six_threads_in_a_fresh_process_all_get_the_single_threaded_haul() -> None:
    # Given the hauls of one thread alone, from empty memos
    clear_caches()
    alone = [[list(group) for group in best_haul(value, floor)] for value, floor in FLOORS]
    # When six threads ask for the same floors at once, from empty memos, switching threads
    # every microsecond, in a fresh interpreter (where nothing has been remembered yet)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), json.dumps(FLOORS), "4"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    # Then every thread of every round got exactly those hauls, and no error
    for answers in json.loads(done.stdout):
        for answer in answers:
            assert answer == alone
