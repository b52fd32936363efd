"""A real ``basra serve`` process admits new tables at the rate it can take, and never sheds a
play, a view or a seated player's feed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.api.edges.admission import MAX_RATE
from tests.app.api.helpers import HttpSteps, SseReader, bearer
from tests.e2e.test_serve import basra_serve

pytestmark = pytest.mark.e2e

FULL_AT_ANY_CPU = {
    # Any share of a core counts as full: what many tables at once do to a process, done here
    # by a few clients asking for views without a pause.
    "BASRA_SHED_CPU": "0.001",
    "BASRA_RATE_LIMITS": "matches=off players=off feeds=off",
}


def _metric(url: str, name: str, labels: dict[str, str] | None = None) -> float | None:
    text = httpx.get(f"{url}/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and (labels is None or sample.labels == labels):
                return float(sample.value)
    return None


FULL_AT_ANY_LATENCY = {
    # Any median request time counts as full, the CPU and the store's queue never do: the
    # latency target alone refuses tables.
    "BASRA_SHED_CPU": "0",
    "BASRA_SHED_WAIT_MS": "0",
    "BASRA_SHED_LATENCY_MS": "0.001",
    "BASRA_RATE_LIMITS": "matches=off players=off feeds=off",
}


@pytest.mark.parametrize("full_at", [FULL_AT_ANY_CPU, FULL_AT_ANY_LATENCY], ids=["cpu", "latency"])
def test_a_full_process_refuses_new_tables_but_never_a_play_view_or_seat_feed(
    tmp_path: Path, full_at: dict[str, str]
) -> None:
    with basra_serve(tmp_path, env=full_at) as url, httpx.Client() as http:
        steps = HttpSteps(http, url)
        # given a table in play, its seat's feed open
        match_id, token = steps.practice(seed="admission")
        feed = SseReader(f"{url}/matches/{match_id}/events", bearer(token)).start()
        # and eight clients asking for views without a pause: the process serves several
        # requests at a time
        stop = threading.Event()
        statuses: list[int] = []

        def ask_views() -> None:
            with httpx.Client() as own:
                while not stop.is_set():
                    path = f"{url}/matches/{match_id}/view"
                    statuses.append(own.get(path, headers=bearer(token)).status_code)

        clients = [threading.Thread(target=ask_views) for _ in range(8)]
        for client in clients:
            client.start()
        try:
            # when new tables keep being asked for
            created, refused = 0, None
            deadline = time.monotonic() + 30
            while refused is None and time.monotonic() < deadline:
                answer = http.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2})
                if answer.status_code == 503:
                    refused = answer
                else:
                    assert answer.status_code == 201, answer.text
                    created += 1
            # ... and the seat plays meanwhile
            played = steps.play_first_card(match_id, token)
            rate = _metric(url, "basra_table_admission_rate")
            median = _metric(url, "basra_request_median_seconds")
        finally:
            stop.set()
            for client in clients:
                client.join(30)

        # then a new table is refused, early and cheaply, with a Retry-After
        assert refused is not None, "no table was refused while the process was full"
        assert refused.headers["retry-after"] == "5"
        assert refused.json()["error"]["code"] == "overloaded"
        assert rate is not None and rate < MAX_RATE
        assert median is not None and median > 0  # the admission timed the views it judged
        assert (_metric(url, "basra_shed_total", {"kind": "table"}) or 0) >= 1
        # and nothing was recorded for it: only the admitted tables were created
        assert _metric(url, "basra_commands_total", {"kind": "create", "outcome": "ok"}) == (
            created + 1
        )
        # and no view, no play and not the seat's feed was refused
        assert statuses and set(statuses) == {200}
        feed.wait_for(played["seq"])
        assert feed.status == 200
        # and once the clients stop, new tables are admitted again
        deadline = time.monotonic() + 20
        while True:
            answer = http.post(f"{url}/matches", json={"ruleset": "classic", "seats": 2})
            if answer.status_code == 201:
                break
            assert answer.status_code == 503 and time.monotonic() < deadline
            time.sleep(0.5)
        feed.close()
