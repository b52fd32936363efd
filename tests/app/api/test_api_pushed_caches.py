"""Two API processes on PostgreSQL: a play made through one moves the other's caches on with the
rows the database pushes, so a play through the other next reads nothing before its append."""

from __future__ import annotations

import time

import httpx
import pytest

from app.api.settings import ApiSettings
from tests.app.api.helpers import HttpSteps, two_servers_on_postgresql
from tests.app.reads import counting_reads

pytestmark = pytest.mark.postgres


def test_a_play_after_one_made_through_another_process_reads_nothing_first(
    pg_url: str, api_settings: ApiSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with two_servers_on_postgresql(pg_url, api_settings) as (one, a, b), httpx.Client() as http:
        # given a practice table set up through the first process, and a play (with the bot's
        # reply) made through the second
        here, there = HttpSteps(http, a.url), HttpSteps(http, b.url)
        match_id, token = here.practice(seed="pushed-caches")
        view = here.view(match_id, token)
        answer = there.play(match_id, token, view["hand"][0], seq=view["seq"])
        assert answer.status_code == 200, answer.text
        after = answer.json()["view"]
        # when the first process has been pushed those rows (its cached state reaches them)
        deadline = time.monotonic() + 15
        while (cached := one.cache.get(match_id)) is None or cached.events < after["seq"]:
            assert time.monotonic() < deadline, "the first process never heard of the play"
            time.sleep(0.01)
        reads = counting_reads(one, monkeypatch)
        # then the next play through it is decided and stored without reading the stream first
        answer = here.play(match_id, token, after["hand"][0], seq=after["seq"])
        assert answer.status_code == 200, answer.text
        assert reads == []
        # and the stream is the one both processes fold to
        monkeypatch.undo()
        assert one.cache.get(match_id) == one.load_from_stream(match_id)
