"""Invariants of the lobby and of rematch chains, over random mixes of tables (Hypothesis).

Each example runs a fresh server (its own SQLite file) through the HTTP API: tables created
public or private, left waiting, played, or ended; then the lobby is read page by page with
random filters and page sizes. Whatever the mix: every public table that fits the filters is
listed exactly once, newest first; every listed table fits the filters; a private table never
appears; the cursors lead through to a last page (``next`` null). A rematch chain links both
ways at every step and asking again gives the same rematch.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from app.api.app import create_app
from app.api.edges.limits_config import NO_LIMITS
from app.api.settings import ApiSettings
from app.service import MatchService
from domain.rulesets import RULESETS
from tests.app.api.conftest import Api
from tests.app.api.helpers import bearer

RULESET_NAMES = tuple(RULESETS)
FATES = ("waiting", "playing", "ended")


@dataclass(frozen=True)
class Table:
    """One table of a mix: its rule set, seats, privacy, and how far it gets."""

    ruleset: str
    seats: int
    private: bool
    fate: str


tables = st.builds(
    Table,
    ruleset=st.sampled_from(RULESET_NAMES),
    seats=st.sampled_from((2, 4)),
    private=st.booleans(),
    fate=st.sampled_from(FATES),
)
filters = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(FATES),
        "ruleset": st.sampled_from(RULESET_NAMES),
        "seats": st.sampled_from(("2", "4")),
    },
)


@contextmanager
def fresh_api() -> Iterator[tuple[Api, MatchService]]:
    """A server on its own SQLite file, for one example."""
    with tempfile.TemporaryDirectory() as tmp:
        service = MatchService.open(Path(tmp) / "lobby.db")
        app = create_app(service, settings=ApiSettings(test_mode=True, limits=NO_LIMITS))
        try:
            with TestClient(app) as client:
                yield Api(client), service
        finally:
            service.close()


def _open(api: Api, table: Table) -> str:
    """Bring a table as far as its fate: seat 0 a person, the others bots (or empty)."""
    body: dict[str, Any] = {"ruleset": table.ruleset, "seats": table.seats}
    if table.private:
        body["private"] = True
    if table.fate == "waiting":
        match_id = str(api.create(**body)["match_id"])  # nobody seated, no bot: it waits
        return match_id
    match_id = str(api.create(bots=list(range(1, table.seats)), **body)["match_id"])
    token = api.sit(match_id, 0)
    if table.fate == "ended":
        left = api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))
        assert left.status_code == 200, left.text
    return match_id


def _fits(table: Table, wanted: dict[str, str]) -> bool:
    return (
        wanted.get("status", table.fate) == table.fate
        and wanted.get("ruleset", table.ruleset) == table.ruleset
        and wanted.get("seats", str(table.seats)) == str(table.seats)
    )


def _pages(api: Api, wanted: dict[str, str], limit: int) -> list[list[dict[str, Any]]]:
    """Every page of the lobby for these filters, following ``next`` to the end."""
    pages: list[list[dict[str, Any]]] = []
    params: dict[str, str] = {**wanted, "limit": str(limit)}
    while True:
        response = api.client.get("/matches", params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        pages.append(body["matches"])
        assert len(pages) <= 60, "the cursors do not lead to a last page"
        if body["next"] is None:
            return pages
        params = {**params, "cursor": body["next"]}


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    mix=st.lists(tables, min_size=0, max_size=8),
    wanted=st.lists(filters, min_size=1, max_size=3),
    limit=st.integers(1, 4),
)
def test_the_lobby_lists_each_public_table_once_newest_first_and_never_a_private_one(
    mix: list[Table], wanted: list[dict[str, str]], limit: int
) -> None:
    with fresh_api() as (api, service):
        # given a random mix of public and private tables, waiting, playing and ended
        made = {_open(api, table): table for table in mix}
        created = {m: service.events(m)[0].at for m in made}
        for one in [{}, *wanted]:
            # when the lobby is read page by page with these filters
            pages = _pages(api, one, limit)
            listed = [row for page in pages for row in page]
            ids = [row["match_id"] for row in listed]

            # then each public table that fits is listed exactly once, and nothing else
            expected = {m for m, t in made.items() if not t.private and _fits(t, one)}
            assert len(ids) == len(set(ids))
            assert set(ids) == expected
            assert not any(made[m].private for m in ids)
            # newest first (creation time, then id, both descending); every page full but the last
            keys = [(created[m], m) for m in ids]
            assert keys == sorted(keys, reverse=True)
            assert all(len(page) == limit for page in pages[:-1])
            # and each row says what the filters asked for
            for row in listed:
                table = made[row["match_id"]]
                assert (row["status"], row["ruleset"], row["seats"]) == (
                    table.fate,
                    table.ruleset,
                    table.seats,
                )


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    length=st.integers(1, 4),
    ask_twice=st.lists(st.booleans(), min_size=4, max_size=4),
    seats=st.sampled_from((2, 4)),
)
def test_a_rematch_chain_links_both_ways_and_asking_again_changes_nothing(
    length: int, ask_twice: list[bool], seats: int
) -> None:
    with fresh_api() as (api, service):
        # given a practice match, ended, and a chain of rematches, each played and ended
        match_id, token = api.practice(seed="chain", seats=seats)
        chain = [match_id]
        for step in range(length):
            left = api.client.post(f"/matches/{chain[-1]}/leave", headers=bearer(token))
            assert left.status_code == 200, left.text
            # when a seat asks for the rematch (sometimes twice)
            made = api.client.post(f"/matches/{chain[-1]}/rematch", headers=bearer(token))
            assert made.status_code == 200, made.text
            if ask_twice[step]:
                again = api.client.post(f"/matches/{chain[-1]}/rematch", headers=bearer(token))
                assert again.json() == made.json() | {"created": False}
            chain.append(made.json()["match_id"])
            token = api.sit(chain[-1], 0)  # bots sit again; seat 0 was taken by name

        # then every link holds both ways, in the store and in the public tables
        for old, new in itertools.pairwise(chain):
            assert service.load(old).rematch == new
            setup = service.load(new).setup
            assert setup is not None and setup.rematch_of == old
            assert api.client.get(f"/matches/{old}").json()["rematch"] == new
            assert api.client.get(f"/matches/{new}").json()["rematch_of"] == old
        # and one rematch per ended match, none for the last, no match twice in the chain
        assert len(set(chain)) == len(chain)
        for old in chain[:-1]:
            tags = [r.event.__struct_config__.tag for r in service.events(old)]
            assert tags.count("rematch_created") == 1 and tags[-1] == "rematch_created"
        assert service.load(chain[-1]).rematch is None
