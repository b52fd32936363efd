"""Races: many identical plays on one turn at once, over real connections; exactly one applies."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.service import MatchService
from domain.events import CardPlayed
from tests.app.api.helpers import (
    HttpSteps,
    bearer,
    serving,
    timeless,
    two_servers_on_postgresql,
)

RACERS = 16
"""How many identical plays are sent at once."""


def _race(
    urls: Sequence[str], token: str, body: dict[str, object], key: str | None
) -> list[httpx.Response]:
    """Send the same play from RACERS threads at once (round-robin over ``urls``)."""
    barrier = threading.Barrier(RACERS)
    results: list[httpx.Response | BaseException] = [RuntimeError("no answer")] * RACERS
    headers = bearer(token) | ({"Idempotency-Key": key} if key else {})

    def racer(i: int) -> None:
        with httpx.Client(timeout=30) as http:
            http.get(f"{urls[i % len(urls)]}/health")  # connect before the start
            barrier.wait()
            try:
                results[i] = http.post(f"{urls[i % len(urls)]}/plays", json=body, headers=headers)
            except BaseException as error:
                results[i] = error

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(isinstance(r, httpx.Response) for r in results), results
    return [r for r in results if isinstance(r, httpx.Response)]


def _seat_plays(service: MatchService, match_id: str, seat: int) -> int:
    return sum(
        1
        for r in service.events(match_id)
        if isinstance(r.event, CardPlayed) and r.event.seat == seat
    )


def _match_urls(base_urls: Sequence[str], match_id: str) -> list[str]:
    return [f"{url}/matches/{match_id}" for url in base_urls]


@pytest.mark.parametrize("store_calls", ["inline", "threads"])
@pytest.mark.parametrize("mode", ["same_key", "same_seq", "bare"])
def test_many_identical_plays_at_once_apply_exactly_once(
    api_service: MatchService, api_settings: ApiSettings, mode: str, store_calls: str
) -> None:
    settings = replace(api_settings, store_calls=store_calls)
    with serving(create_app(api_service, settings=settings)) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id, token = steps.practice(seed=f"race-{mode}")
        view = steps.view(match_id, token)
        before = _seat_plays(api_service, match_id, 0)
        body: dict[str, object] = {"card": view["hand"][0]}
        if mode == "same_seq":
            body["seq"] = view["seq"]
        key = "race-key" if mode == "same_key" else None

        responses = _race(_match_urls([server.url], match_id), token, body, key)

    statuses = Counter(r.status_code for r in responses)
    assert _seat_plays(api_service, match_id, 0) == before + 1
    if mode == "same_key":
        assert statuses == {200: RACERS}
        # Every retry got the first result (its "now" is the time of asking).
        assert len({json.dumps(timeless(r.json())) for r in responses}) == 1
    else:
        assert statuses[200] == 1
        refused = [r.json()["error"]["code"] for r in responses if r.status_code != 200]
        allowed = {"conflict"} if mode == "same_seq" else {"not_your_turn", "card_not_in_hand"}
        assert set(refused) <= allowed, refused
        assert all(r.status_code in (409, 422) for r in responses if r.status_code != 200)


def test_identical_plays_through_two_api_processes_apply_once(
    api_service: MatchService, api_settings: ApiSettings, api_db: Path
) -> None:
    other = MatchService.open(api_db)  # a second process on the same SQLite file
    try:
        with (
            serving(create_app(api_service, settings=api_settings)) as a,
            serving(create_app(other, settings=api_settings)) as b,
            httpx.Client() as http,
        ):
            steps = HttpSteps(http, a.url)
            match_id, token = steps.practice(seed="race-two-processes")
            card = steps.view(match_id, token)["hand"][0]
            responses = _race(
                _match_urls([a.url, b.url], match_id), token, {"card": card}, "two-process-key"
            )
    finally:
        other.close()

    assert Counter(r.status_code for r in responses) == {200: RACERS}
    assert len({json.dumps(timeless(r.json())) for r in responses}) == 1
    assert _seat_plays(api_service, match_id, 0) == 1


@pytest.mark.postgres
def test_identical_plays_through_two_processes_on_postgresql_apply_once(
    pg_url: str, api_settings: ApiSettings
) -> None:
    with two_servers_on_postgresql(pg_url, api_settings) as (one, a, b), httpx.Client() as http:
        steps = HttpSteps(http, a.url)
        match_id, token = steps.practice(seed="race-postgres")
        view = steps.view(match_id, token)
        keyed = _race(
            _match_urls([a.url, b.url], match_id), token, {"card": view["hand"][0]}, "pg-key"
        )
        view = steps.view(match_id, token)
        seqd = _race(
            _match_urls([a.url, b.url], match_id),
            token,
            {"card": view["hand"][0], "seq": view["seq"]},
            None,
        )
        plays = _seat_plays(one, match_id, 0)

    assert Counter(r.status_code for r in keyed) == {200: RACERS}
    assert len({json.dumps(timeless(r.json())) for r in keyed}) == 1
    assert Counter(r.status_code for r in seqd)[200] == 1
    assert {r.json()["error"]["code"] for r in seqd if r.status_code != 200} == {"conflict"}
    assert plays == 2
