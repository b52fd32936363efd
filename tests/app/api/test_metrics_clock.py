"""/metrics for the turn clock's batches: expiries fired together in one store call are
counted one by one, as a single expiry is, and so is their lateness (docs/deploy.md)."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import REGISTRY

from app.api.edges.metrics import instrument
from app.service import MatchService
from app.service.deadlines import fire, fire_many
from app.store.match_store import MatchStore
from tests.app.test_deadlines import DrivenClock, due_now, seated


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_expiries_fired_together_are_counted_each_with_its_lateness(tmp_path: Path) -> None:
    # given four tables whose turns ran out together 250 ms ago, one already fired by another
    # process, and this process's service instrumented
    clock = DrivenClock()
    db = tmp_path / "metrics.db"
    service = MatchService(MatchStore.sqlite(db), clock=clock)
    other = MatchService(MatchStore.sqlite(db), clock=clock)
    dues = [due_now(service, seated(service, f"m-{n}")) for n in range(4)]
    clock.ms = dues[0].due_ms + 250
    assert fire(other, dues[0]) == "fired"
    instrument(service)
    ok = _sample("basra_commands_total", kind="expire", outcome="ok")
    late = _sample("basra_clock_expiry_lateness_seconds_count")
    late_sum = _sample("basra_clock_expiry_lateness_seconds_sum")
    appends = _sample("basra_store_seconds_count", operation="append")

    # when this process fires the four in one call
    outcomes = fire_many(service, dues)

    # then the three it fired are counted ok, each with its 250 ms of lateness, in one append
    # call; the one another process fired is counted under its refusal, not ok
    assert outcomes.count("fired") == 3
    assert _sample("basra_commands_total", kind="expire", outcome="ok") == ok + 3
    assert _sample("basra_clock_expiry_lateness_seconds_count") == late + 3
    assert round(_sample("basra_clock_expiry_lateness_seconds_sum") - late_sum, 3) == 0.75
    assert _sample("basra_store_seconds_count", operation="append") == appends + 1
    service.close()
    other.close()
