"""Support's player search over the read models: a read that finds the directory's refresh due
answers at once while the refresh runs beside it; a rename by support shows at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from app.readmodels.models import ReadModels
from app.readmodels.results import Results
from app.readmodels.support_search import (
    FRESH_SECONDS,
    _caught,
    directory_now,
    fresh_enough,
    player_matches_of,
    search_players,
)
from app.service import MatchService
from app.service.players import PlayerService
from tests.app.results_helpers import finished_match, register


def test_a_read_that_finds_the_refresh_due_does_not_wait_for_it(tmp_path: Path) -> None:
    # given a store with one player, read models caught up once by a first search
    service = MatchService.open(tmp_path / "basra.db")
    players = PlayerService(service.store)
    register(players, "Amal")
    models = ReadModels(tmp_path / "models.db", service.store)
    results = Results.for_store(service.store, tmp_path / "results.db")
    try:
        assert [h.name for h in search_players(models, results, "am")] == ["Amal"]
        # and a directory refresh that takes a long time (held here until released)
        release, started = threading.Event(), threading.Event()
        real = models.catch_up

        def slow_catch_up(**kwargs: object) -> int:
            started.set()
            release.wait(10)
            return real()

        models.catch_up = slow_catch_up  # type: ignore[method-assign]
        register(players, "Amira")
        _caught[models] = time.monotonic() - FRESH_SECONDS - 1  # the refresh is due

        # when support searches
        began = time.perf_counter()
        hits = search_players(models, results, "am")
        took = time.perf_counter() - began

        # then the search answers from the directory as it is, without waiting for the refresh
        assert started.wait(5), "the refresh did not start"
        assert took < 1.0 and [h.name for h in hits] == ["Amal"]
        fresh_enough(models)  # a second read while it runs starts no second one
        release.set()
        deadline = time.monotonic() + 10
        while [h.name for h in search_players(models, results, "am")] != ["Amal", "Amira"]:
            assert time.monotonic() < deadline, "the refresh never landed"
            time.sleep(0.02)
    finally:
        release.set()
        time.sleep(0.1)
        models.close()
        results.close()
        service.close()


def test_directory_now_shows_a_rename_at_once(tmp_path: Path) -> None:
    service = MatchService.open(tmp_path / "basra.db")
    players = PlayerService(service.store)
    [amal] = register(players, "Amal")
    models = ReadModels(tmp_path / "models.db", service.store)
    results = Results.for_store(service.store, tmp_path / "results.db")
    try:
        assert [h.name for h in search_players(models, results, "am")] == ["Amal"]
        state = players.load(amal)
        assert state is not None
        players.rename(state, "Nour")

        directory_now(models, service.store, amal)

        assert [h.player_id for h in search_players(models, results, "nou")] == [amal]
        assert search_players(models, results, "am") == []
    finally:
        models.close()
        results.close()
        service.close()


def test_a_players_matches_read_apart_are_the_read_models_own(tmp_path: Path) -> None:
    # given two players who played two matches, the read models caught up
    service = MatchService.open(tmp_path / "basra.db")
    players = PlayerService(service.store)
    ids = register(players, "Amal", "Badr")
    finished_match(service, "m1", list(ids), "target")
    finished_match(service, "m2", list(ids), "forfeit")
    models = ReadModels(tmp_path / "models.db", service.store)
    try:
        models.catch_up()

        # when support reads Amal's matches on its own connection
        found = player_matches_of(models, ids[0], 100)

        # then they are exactly what the read models' own method gives
        assert sorted(m.match_id for m in found) == ["m1", "m2"]
        assert found == models.player_matches(ids[0], limit=100)
    finally:
        models.close()
        service.close()
