"""The garbage collector of a serving process: start-up objects frozen, thresholds raised,
garbage made later still freed. Each case runs in a fresh interpreter, since freezing is for
the whole process and would change the test process itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.api.edges.collector import (
    COLLECTOR_VARIABLE,
    SERVING_THRESHOLDS,
    CollectorSettingError,
    collector_mode,
)
from app.api.server import ServeError, ServeOptions, check_options
from cli.main import app

ROOT = Path(__file__).resolve().parents[3]

runner = CliRunner()


def run_fresh(script: str, env: dict[str, str] | None = None) -> dict[str, object]:
    """Run ``script`` in a new interpreter at the repository's root; its last line as JSON."""
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=os.environ | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def test_an_unset_variable_means_tuned() -> None:
    assert collector_mode({}) == "tuned"
    assert collector_mode({COLLECTOR_VARIABLE: ""}) == "tuned"
    assert collector_mode({COLLECTOR_VARIABLE: "default"}) == "default"


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(CollectorSettingError, match="tuned, default"):
        collector_mode({COLLECTOR_VARIABLE: "off"})


def test_basra_serve_refuses_an_unknown_mode_before_the_store_opens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # given an unknown collector mode
    monkeypatch.setenv(COLLECTOR_VARIABLE, "off")

    # then the options are refused, and on the command line in one line
    with pytest.raises(ServeError, match=COLLECTOR_VARIABLE):
        check_options(ServeOptions())
    db = tmp_path / "never.db"
    result = runner.invoke(app, ["serve", "--port", "0", "--db", str(db)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: {COLLECTOR_VARIABLE} must be one of tuned, default, not 'off'"
    ]
    assert not db.exists()


SERVING_PROCESS = """
import gc, json
from app.api.server import app_from_env
app_from_env()
print(json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects()),
                  "thresholds": list(gc.get_threshold())}))
"""


def test_a_serving_process_freezes_its_start_up_objects(tmp_path: Path) -> None:
    # given a worker process building its app as basra serve does
    result = run_fresh(SERVING_PROCESS, {"BASRA_DB": str(tmp_path / "a.db")})

    # then what it held at start-up is frozen and the thresholds are the serving ones
    assert isinstance(result["frozen"], int) and result["frozen"] > 10_000
    assert isinstance(result["tracked"], int) and result["tracked"] < 1_000
    assert result["thresholds"] == list(SERVING_THRESHOLDS)


def test_the_one_process_server_builds_its_app_tuned_too(tmp_path: Path) -> None:
    # given basra serve with one process, which builds its app with serving_app directly
    db = str(tmp_path / "one.db")
    script = SERVING_PROCESS.replace(
        "from app.api.server import app_from_env",
        "from pathlib import Path\nfrom app.api.server import serving_app",
    ).replace("app_from_env()", f"serving_app(Path({db!r}))")

    result = run_fresh(script)

    assert isinstance(result["frozen"], int) and result["frozen"] > 10_000
    assert result["thresholds"] == list(SERVING_THRESHOLDS)


def test_the_default_mode_leaves_the_collector_alone(tmp_path: Path) -> None:
    result = run_fresh(
        SERVING_PROCESS, {"BASRA_DB": str(tmp_path / "a.db"), COLLECTOR_VARIABLE: "default"}
    )

    assert result["frozen"] == 0
    assert result["thresholds"] == [700, 10, 10]


GARBAGE_AFTER_START = """
import gc, json, weakref
from app.api.edges.collector import tune_collector
tune_collector()

class Node:
    pass

freed = []
for _ in range(200):
    a, b = Node(), Node()
    a.other, b.other = b, a          # a cycle: reference counting alone never frees it
    weakref.finalize(a, freed.append, 1)
    del a, b
# allocations enough for the raised young threshold to run the collector on its own
churn = [[i] for i in range(3 * 50_000)]
del churn
print(json.dumps({"freed_without_asking": len(freed), "frozen": gc.get_freeze_count()}))
"""


def test_cycles_made_after_start_up_are_still_freed_by_the_collector_on_its_own() -> None:
    # given a tuned process, when it makes garbage cycles and goes on allocating
    result = run_fresh(GARBAGE_AFTER_START)

    # then the collector frees them without being asked
    assert result["freed_without_asking"] == 200
    assert isinstance(result["frozen"], int) and result["frozen"] > 0


CHURN_THEN_WAIT = """
import gc, json, threading, time, weakref
from app.api.edges.collector import CLOCK_THREAD_NAME, YOUNG_SECONDS, tune_collector
clock = tune_collector()

class Node:
    pass

# a busy server's churn: old objects replaced by new ones, so allocations never outnumber
# deallocations by the threshold
held = [[i] for i in range(200_000)]
gc.collect()
for i in range(len(held)):
    held[i] = [i]
young_after_churn = len(gc.get_objects(0)) + len(gc.get_objects(1))
freed = []
for _ in range(50):
    a, b = Node(), Node()
    a.other, b.other = b, a
    weakref.finalize(a, freed.append, 1)
    del a, b
time.sleep(YOUNG_SECONDS * 20)  # no allocation at all meanwhile
print(json.dumps({
    "young_after_churn": young_after_churn,
    "young_after_wait": len(gc.get_objects(0)) + len(gc.get_objects(1)),
    "freed": len(freed),
    "clock_alive": any(t.name == CLOCK_THREAD_NAME for t in threading.enumerate()),
}))
"""


def test_the_clock_collects_what_churn_leaves_young_and_frees_cycles_without_allocations() -> None:
    # given a tuned process whose churn left its young generations large, then made cycles
    result = run_fresh(CHURN_THEN_WAIT)

    # then the clock's thread runs, and within twenty ticks, with nothing allocated, the young
    # generations are emptied and the cycles freed
    assert result["clock_alive"] is True
    assert isinstance(result["young_after_churn"], int) and result["young_after_churn"] > 150_000
    assert isinstance(result["young_after_wait"], int) and result["young_after_wait"] < 1_000
    assert result["freed"] == 50


def test_the_default_mode_starts_no_clock() -> None:
    script = CHURN_THEN_WAIT.replace("tune_collector()", "tune_collector('default')")

    result = run_fresh(script)

    assert result["clock_alive"] is False


CLOCK_THREADS = """
import gc, json, threading
from app.api.edges.collector import CollectorClock
clocks = [CollectorClock(young_seconds=0.001, middle_every=3) for _ in range(4)]
done = []
def churn():
    for _ in range(200):
        x = [[] for _ in range(500)]
        x.append(x)  # a cycle for the clocks to free
    done.append(1)
workers = [threading.Thread(target=churn) for _ in range(4)]
for c in clocks: c.start()
for w in workers: w.start()
for w in workers: w.join()
for c in clocks: c.stop()
others = [t for t in threading.enumerate() if t is not threading.main_thread()]
print(json.dumps({"done": len(done), "alive": len(others)}))
"""


def test_clocks_collecting_while_several_threads_allocate_all_finish_and_stop() -> None:
    # given four clocks collecting every millisecond while four threads make cycles
    result = run_fresh(CLOCK_THREADS)

    # then every thread finishes and every clock stops
    assert result == {"done": 4, "alive": 0}
