"""Plays racing across two `basra serve` processes on one PostgreSQL database.

Two processes append to one match when a seat's plays reach both at once (a client that sends a
play twice without ``seq``, or a retry through another route). The play that loses the race is
decided again on the stream the winner moved on; every match must still verify (record times
never go backwards), and one ``Idempotency-Key`` never lands twice, whatever the bodies.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.app.api.helpers import HttpSteps, bearer
from tests.e2e.test_serve import SUPPORT, basra_serve

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

MATCHES = 4
"""Matches raced to the end in the verification test (a round each: target 1)."""


@contextmanager
def two_processes(tmp_path: Path, pg_url: str) -> Iterator[tuple[str, str]]:
    """Two `basra serve` processes on one PostgreSQL database: their URLs."""
    with ExitStack() as stack:
        urls = []
        for name in ("a", "b"):
            folder = tmp_path / name
            folder.mkdir()
            urls.append(stack.enter_context(basra_serve(folder, "--database-url", pg_url)))
        yield urls[0], urls[1]


def _at_once(calls: list[tuple[str, dict[str, Any], dict[str, str]]]) -> list[httpx.Response]:
    """POST each (url, body, headers) from its own thread, released together."""
    barrier = threading.Barrier(len(calls))
    answers: list[httpx.Response | BaseException] = [RuntimeError("no answer")] * len(calls)

    def send(i: int) -> None:
        url, body, headers = calls[i]
        with httpx.Client(timeout=30) as http:
            http.get(url.split("/matches")[0] + "/health")  # connected before the start
            barrier.wait()
            try:
                answers[i] = http.post(url, json=body, headers=headers)
            except BaseException as error:
                answers[i] = error

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(isinstance(a, httpx.Response) for a in answers), answers
    return [a for a in answers if isinstance(a, httpx.Response)]


def _practice(steps: HttpSteps, seed: str) -> tuple[str, str]:
    """Seat 0 a person, seat 1 an easy bot, one round to play: (match id, seat 0's token)."""
    match_id = str(steps.create(bots=[1], seed=seed, target=1)["match_id"])
    return match_id, steps.sit(match_id, 0)


def test_plays_raced_across_two_processes_on_postgresql_always_verify(
    tmp_path: Path, pg_url: str
) -> None:
    with two_processes(tmp_path, pg_url) as (a, b), httpx.Client(timeout=30) as http:
        steps = HttpSteps(http, a)
        raced = 0
        matches = []
        for n in range(MATCHES):
            # given a match whose person sends every play twice at once, once to each process
            match_id, token = _practice(steps, f"race-verify-{n}")
            matches.append(match_id)
            view = steps.view(match_id, token)
            while view["status"] == "playing":
                hand = view["hand"]
                plays = [
                    (f"{a}/matches/{match_id}/plays", {"card": hand[0]}, bearer(token)),
                    (f"{b}/matches/{match_id}/plays", {"card": hand[-1]}, bearer(token)),
                ]
                answers = _at_once(plays)
                assert all(r.status_code in (200, 409, 422) for r in answers), [
                    r.text for r in answers
                ]
                # both landing means one lost the race and was decided again after the other
                raced += all(r.status_code == 200 for r in answers) and len(hand) > 1
                view = steps.view(match_id, token)
        # when every match is verified, through either process
        for match_id in matches:
            for url in (a, b):
                result = http.get(f"{url}/matches/{match_id}/verification").json()
                # then each is clean, with no record time stepping back
                assert result["ok"], result
                assert result["inverted_times"] == [], result
    assert raced > 0, "no play was decided again after losing a race: nothing was tested"


def _seat_plays(http: httpx.Client, url: str, match_id: str) -> list[dict[str, Any]]:
    """Seat 0's plays in the support export, with their request ids."""
    replay = http.get(f"{url}/matches/{match_id}/replay", headers=bearer(SUPPORT))
    assert replay.status_code == 200, replay.text
    lines = [json.loads(line) for line in replay.content.splitlines()]
    return [line for line in lines[1:] if line["type"] == "card_played" and line["seat"] == 0]


def test_one_key_sent_with_two_bodies_to_two_processes_lands_once(
    tmp_path: Path, pg_url: str
) -> None:
    with two_processes(tmp_path, pg_url) as (a, b), httpx.Client(timeout=30) as http:
        steps = HttpSteps(http, a)
        match_id = str(steps.create(bots=[1], seed="race-key")["match_id"])
        token = steps.sit(match_id, 0)
        trials = 0
        view = steps.view(match_id, token)
        while view["status"] == "playing" and trials < 12:
            hand = view["hand"]
            if len(hand) == 1:  # one card left: played plainly, the next deal follows
                assert steps.play(match_id, token, hand[0]).status_code == 200
                view = steps.view(match_id, token)
                continue
            # given one key sent at once with two different cards, one to each process
            key = {"Idempotency-Key": f"k-{trials}"}
            answers = _at_once(
                [
                    (f"{a}/matches/{match_id}/plays", {"card": hand[0]}, bearer(token) | key),
                    (f"{b}/matches/{match_id}/plays", {"card": hand[-1]}, bearer(token) | key),
                ]
            )
            trials += 1
            # then exactly one card is stored under the key; the other answer is the first
            # answer (same card) or 422 idempotency_key_reused
            keyed = [
                line
                for line in _seat_plays(http, a, match_id)
                if line.get("request_id", "").startswith("idem-")
            ]
            assert len(keyed) == trials, keyed
            landed = keyed[-1]["card"]
            for answer in answers:
                if answer.status_code == 200:
                    assert answer.json()["card"] == landed
                else:
                    assert answer.status_code == 422, answer.text
                    assert answer.json()["error"]["code"] == "idempotency_key_reused"
            view = steps.view(match_id, token)
        assert trials == 12
