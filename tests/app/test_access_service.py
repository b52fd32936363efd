"""Support agents, the access trail and tickets against real stores (SQLite files, memory)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.errors import (
    AgentExistsError,
    InvalidAgentNameError,
    TicketExpiredError,
    TicketUsedError,
    TicketWrongMatchError,
    UnknownAgentError,
    UnknownTicketError,
)
from app.service.access import TICKET_SECONDS, AccessService
from app.store.match_store import MatchStore
from domain.access import ENV_AGENT, is_agent_name


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    """A store on a fresh SQLite file."""
    opened = MatchStore.sqlite(tmp_path / "basra.db")
    yield opened
    opened.close()


def test_an_agent_revoked_here_reads_revoked_in_another_process(
    store: MatchStore,
) -> None:
    here = AccessService(store)
    elsewhere = AccessService(store.reopen())
    here.add_agent("nadia", "hash-n")
    seen = elsewhere.agent_of("hash-n")
    assert seen is not None and seen.active

    here.revoke_agent("nadia")

    found = elsewhere.agent_of("hash-n")
    assert found is not None and not found.active
    assert elsewhere.agent_of("hash-other") is None


def test_agent_names_are_bounded_unique_and_env_is_reserved(store: MatchStore) -> None:
    access = AccessService(store)
    access.add_agent("omar", "h1")
    with pytest.raises(AgentExistsError):
        access.add_agent("omar", "h2")
    for bad in (ENV_AGENT, "", "Omar", "9lives", "a" * 33, "o mar", "omar\n", "ömer"):
        with pytest.raises(InvalidAgentNameError):
            access.add_agent(bad, "h3")
    with pytest.raises(UnknownAgentError):
        access.revoke_agent("nobody")
    access.revoke_agent("omar")
    with pytest.raises(UnknownAgentError):
        access.revoke_agent("omar")
    with pytest.raises(AgentExistsError):
        access.add_agent("omar", "h4")  # a revoked name is not reused


@given(st.text(max_size=40))
def test_an_agent_name_is_ascii_lower_case_and_never_env(name: str) -> None:
    if is_agent_name(name):
        assert name != ENV_AGENT and name.isascii() and 1 <= len(name) <= 32
        assert name[0].isalpha() and name == name.lower() and name.isprintable()


def test_the_access_log_is_newest_first_and_filters_by_agent_and_match(store: MatchStore) -> None:
    clock = FakeClock()
    access = AccessService(store, clock)
    access.add_agent("nadia", "h")
    for agent, match_id, what in [
        ("nadia", "m1", "view"),
        (ENV_AGENT, "m1", "replay"),
        ("nadia", "m2", "events"),
    ]:
        clock.now += timedelta(seconds=1)
        access.record_access(agent, match_id, what, f"req-{what}")

    assert [r.what for r in access.access_log()] == ["events", "replay", "view"]
    assert [r.what for r in access.access_log(agent="nadia")] == ["events", "view"]
    assert [(r.agent, r.what) for r in access.access_log(match_id="m1")] == [
        (ENV_AGENT, "replay"),
        ("nadia", "view"),
    ]


def test_a_ticket_opens_one_feed_of_its_match_within_60_seconds(store: MatchStore) -> None:
    clock = FakeClock()
    access = AccessService(store, clock)
    access.issue_ticket("t1", "m1", 0, "seat:0/token:abc", None)
    access.issue_ticket("t2", "m1", 1, "seat:1/token:def", None)
    access.issue_ticket("t3", "m1", 0, "seat:0/token:abc", None)

    with pytest.raises(TicketWrongMatchError):
        access.redeem_ticket("t1", "m2", "r0")
    grant = access.redeem_ticket("t1", "m1", "r1")
    assert (grant.match_id, grant.seat, grant.agent) == ("m1", 0, None)
    with pytest.raises(TicketUsedError):
        access.redeem_ticket("t1", "m1", "r2")
    with pytest.raises(UnknownTicketError):
        access.redeem_ticket("never-issued", "m1", "r3")

    clock.now += timedelta(seconds=TICKET_SECONDS - 1)
    assert access.redeem_ticket("t2", "m1", "r4").seat == 1
    clock.now += timedelta(seconds=1)
    with pytest.raises(TicketExpiredError):
        access.redeem_ticket("t3", "m1", "r5")


def test_two_processes_racing_one_ticket_never_both_open_a_feed(store: MatchStore) -> None:
    issuer = AccessService(store)
    rounds = 20
    for n in range(rounds):
        issuer.issue_ticket(f"race-{n}", "m1", 0, "seat:0/token:abc", None)
    processes = [AccessService(store.reopen()), AccessService(store.reopen())]
    outcomes: list[list[str]] = [[], []]
    barrier = threading.Barrier(2)

    def redeem(index: int) -> None:
        for n in range(rounds):
            barrier.wait()
            try:
                processes[index].redeem_ticket(f"race-{n}", "m1", f"r{index}-{n}")
                outcomes[index].append("opened")
            except TicketUsedError:
                outcomes[index].append("used")

    threads = [threading.Thread(target=redeem, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    for n in range(rounds):
        assert sorted([outcomes[0][n], outcomes[1][n]]) == ["opened", "used"]
