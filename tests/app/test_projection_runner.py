"""The one projection runner: any ``Projection`` follows the log once per position, and one
``Projections`` per process opens each read model's file once."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from app.readmodels.projections import Projections
from app.readmodels.runner import ProjectionRunner
from app.service import MatchService
from app.store.decoding import TOPICS
from app.store.match_store import LogEntry, MatchStore
from domain.events import MatchCreated
from tests.app.test_readmodels import record_some_matches


class TopicCounts:
    """A small projection: how many entries of each kind the log holds (of ``topics`` only)."""

    name = "counts"
    schema_version = "1"
    tables: tuple[str, ...] = ("counts",)

    def __init__(self, topics: tuple[str, ...] = ()) -> None:
        self.topics = topics

    def create_tables(self, db: sqlite_utils.Database) -> None:
        db.table("counts").create({"topic": str, "n": int}, pk="topic", if_not_exists=True)

    def refresh(self, db: sqlite_utils.Database, store: MatchStore) -> None:
        pass

    def apply(self, db: sqlite_utils.Database, store: MatchStore, entries: list[LogEntry]) -> None:
        counts = {row["topic"]: row["n"] for row in db.table("counts").rows}
        for entry in entries:
            counts[entry.topic] = counts.get(entry.topic, 0) + 1
        db.table("counts").upsert_all([{"topic": t, "n": n} for t, n in counts.items()], pk="topic")


def _counts(runner: ProjectionRunner) -> dict[str, int]:
    return {row["topic"]: row["n"] for row in runner.db.table("counts").rows}


def test_a_failed_batch_is_applied_once_when_the_runner_resumes(
    sqlite_service: MatchService, tmp_path: Path
) -> None:
    # given a log of several matches, and a runner failing in the middle of its third batch
    record_some_matches(sqlite_service)
    store = sqlite_service.store
    runner = ProjectionRunner(tmp_path / "counts.sqlite3", store, TopicCounts(), batch_size=5)
    seen = [0]

    def fail_in_third_batch(_entry: LogEntry) -> None:
        seen[0] += 1
        if seen[0] == 13:
            raise OSError("stopped")

    with pytest.raises(OSError):
        runner.catch_up(after_entry=fail_in_third_batch)
    assert runner.position() == 10  # two whole batches, none of the third

    # when it resumes
    runner.catch_up()

    # then every entry was counted once: as a rebuild from nothing counts them
    fresh = ProjectionRunner(tmp_path / "fresh.sqlite3", store, TopicCounts(), batch_size=7)
    fresh.rebuild()
    assert _counts(runner) == _counts(fresh)
    assert sum(_counts(runner).values()) == store.max_position() == runner.position()
    runner.close()
    fresh.close()


def test_a_projection_of_a_few_kinds_moves_over_the_others(
    sqlite_service: MatchService, tmp_path: Path
) -> None:
    # given a log of several matches, and a projection reading only their creation
    ids = record_some_matches(sqlite_service)
    store = sqlite_service.store
    created = TOPICS[MatchCreated]
    runner = ProjectionRunner(
        tmp_path / "created.sqlite3", store, TopicCounts((created,)), batch_size=2
    )

    # when it catches up
    applied = runner.catch_up()

    # then it read one entry per match and its position is the end of the log, so the next
    # catch-up has nothing to read
    assert applied == len(ids) and _counts(runner) == {created: len(ids)}
    assert runner.position() == store.max_position()
    assert runner.catch_up() == 0
    runner.close()


def test_one_projections_opens_each_read_model_once(
    sqlite_service: MatchService, tmp_path: Path
) -> None:
    # given the read models of a store, as one process holds them
    record_some_matches(sqlite_service)
    projections = Projections(sqlite_service.store, tmp_path / "basra.readmodels.sqlite3")

    # when the matches and the results are asked for again and again
    matches, results = projections.matches, projections.results

    # then each is the same open file, the results beside the read models
    assert projections.matches is matches and projections.results is results
    assert results.path == tmp_path / "basra.readmodels.results.sqlite3"
    assert matches.catch_up() > 0 and matches.catch_up() == 0

    # and once closed, the next use opens them again where they were
    projections.close()
    assert projections.matches is not matches
    assert projections.matches.position() == sqlite_service.store.max_position()
    projections.close()
