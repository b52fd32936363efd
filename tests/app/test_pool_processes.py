"""Pairing exactly once with two real server processes on one PostgreSQL schema: two OS
processes, each with its own store handle and ``PoolService``, serve players joining, asking,
leaving and the pool's sweep at once, in orders Hypothesis draws; the pool stream pairs nobody
twice and every pairing is recorded once with its one match."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Barrier
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import PostgresSettings
from app.service import MatchService
from app.service.pool import PoolService, pool_stream
from domain.events import MatchCreated
from domain.pool import PoolPaired
from tests.app.conftest import postgres_url
from tests.app.test_pool import _check_stream

ACTIONS = st.lists(
    st.tuples(st.sampled_from(["join", "beat", "leave", "sweep"]), st.integers(0, 7)),
    min_size=1,
    max_size=14,
)
"""One process's requests in order: what, and for which of eight players."""


def _rating(k: int) -> float:
    """Players 40 points apart in turn: some within the ±100 window of each other, some not."""
    return 1500.0 + 40.0 * (k % 4)


def _serve(url: str, start: Barrier, orders: Connection) -> None:
    """One server process: its own store handle and pool, running each order it is sent as
    soon as both processes are ready."""
    service = MatchService.open(database_url=url)
    pool = PoolService(service)
    try:
        while True:
            order = orders.recv()
            if order is None:
                return
            tag, actions = order
            start.wait(30)
            for action, k in actions:
                player = f"p-{tag:03x}{k:02x}"
                if action == "join":
                    pool.join(player, "classic", _rating(k))
                elif action == "beat":
                    pool.heartbeat(player)
                elif action == "leave":
                    pool.leave(player)
                else:
                    pool.sweep("classic")
            orders.send("done")
    finally:
        service.close()


@pytest.fixture
def two_processes(postgres_settings: PostgresSettings) -> Iterator[tuple[str, list[Any]]]:
    """Two running server processes on one fresh PostgreSQL schema; the URL and their pipes."""
    url = postgres_url(postgres_settings)
    MatchService.open(database_url=url).close()  # the schema's tables, made once
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    pipes, processes = [], []
    for _ in range(2):
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(url, start, theirs), daemon=True)
        process.start()
        pipes.append(ours)
        processes.append(process)
    try:
        yield url, pipes
    finally:
        for pipe in pipes:
            pipe.send(None)
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()


def test_two_processes_pair_each_wait_exactly_once_whatever_the_order(
    two_processes: tuple[str, list[Any]],
) -> None:
    url, pipes = two_processes
    reader = MatchService.open(database_url=url)
    pool = PoolService(reader)
    rounds = iter(range(1000))
    pairings: list[PoolPaired] = []
    try:

        @settings(
            max_examples=8,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )
        @given(first=ACTIONS, second=ACTIONS)
        def run(first: list[tuple[str, int]], second: list[tuple[str, int]]) -> None:
            # given two processes serving these requests at once
            tag = next(rounds)
            for pipe, actions in zip(pipes, (first, second), strict=True):
                pipe.send((tag, actions))
            # when both have served them
            for pipe in pipes:
                assert pipe.poll(60), "a server process did not finish"
                assert pipe.recv() == "done"
            # then the pool stream pairs only players waiting then, each wait at most once
            events = [e for _, e in pool.streams.read_after(pool_stream("classic"), 0)]
            _check_stream(events)
            pairings[:] = [e for e in events if isinstance(e, PoolPaired)]

        run()
        join_all = [("join", k) for k in range(4)]
        run.hypothesis.inner_test(first=join_all, second=[("join", k) for k in range(4, 8)])  # type: ignore[attr-defined]
        # and every pairing is recorded once, with its pairing id on exactly one match
        assert pairings  # the checks above saw pairings, not only waits
        assert len({p.pairing_id for p in pairings}) == len(pairings)
        made = []
        for match_id in reader.match_ids():
            created = reader.events(match_id)[0].event
            assert isinstance(created, MatchCreated)
            if created.paired is not None:
                made.append((created.paired, match_id, created.reserved))
        assert sorted(made) == sorted((p.pairing_id, p.match_id, p.players) for p in pairings)
    finally:
        reader.close()
