"""Cross-match read models: following the global log, crashes, rebuilds, bad entries."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from eventsourcing.persistence import StoredEvent

from app.config import StoreConfig
from app.readmodels.models import ReadModels
from app.service import MatchService
from app.store.decoding import TOPICS
from app.store.match_store import MatchStore
from domain.events import CardPlayed, RoundStarted
from domain.fairness import secret_from_text_seed
from tests.app.conftest import postgres_url


def record_some_matches(service: MatchService, count: int = 4) -> list[str]:
    """Bot matches that ended, one waiting, one in play, one forfeited."""
    ids = []
    for k in range(count):
        match_id = service.create_match(
            ruleset=("classic", "lebanese")[k % 2],
            seats=(2, 4)[k % 2],
            bots=tuple(range((2, 4)[k % 2])),
            secret=secret_from_text_seed(f"rm/{k}"),
            match_id=f"m-{k:02d}",
        ).match_id
        ids.append(match_id)
    service.create_match(ruleset="egyptian", seats=4, bots=(1, 3), match_id="m-wait")
    service.take_seat("m-wait", 0, "ann")
    service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-play")
    service.take_seat("m-play", 0, "bob")
    state = service.load("m-play")
    service.play_card("m-play", 0, state.hands[0][0])
    service.create_match(ruleset="jordanian", seats=2, match_id="m-quit")
    service.take_seat("m-quit", 0, "cy")
    service.take_seat("m-quit", 1, "di")
    service.leave("m-quit", 1)
    return [*ids, "m-wait", "m-play", "m-quit"]


def test_rows_say_what_each_stream_says(service: MatchService, tmp_path: Path) -> None:
    # given matches in every status
    ids = record_some_matches(service)
    read = ReadModels(tmp_path / "read.sqlite3", service.store)

    # when the read models catch up
    applied = read.catch_up()

    # then there is one row per match, agreeing with the match's own stream
    assert applied == service.store.max_position() == read.position()
    rows = {row.match_id: row for row in read.matches()}
    assert sorted(rows) == sorted(ids)
    for match_id in ids:
        state = service.load(match_id)
        events = service.events(match_id)
        row = rows[match_id]
        assert state.setup is not None
        assert (row.ruleset, row.seats, row.target) == (
            state.setup.ruleset,
            state.setup.seats,
            state.setup.target,
        )
        assert row.status == state.status
        assert row.players == list(state.names)
        assert row.bots == list(state.setup.bots)
        assert row.totals == list(state.totals)
        assert row.winner == state.winner and row.end_reason == state.end_reason
        assert row.plays == state.plays
        assert row.rounds == sum(isinstance(r.event, RoundStarted) for r in events)
        assert row.seq == state.events == events[-1].seq
        assert row.created == events[0].at
        assert row.ended == (events[-1].at if state.status == "ended" else None)
        assert row.problem is None
    assert rows["m-quit"].end_reason == "forfeit" and rows["m-quit"].winner == 0
    assert [r.match_id for r in read.matches(status="waiting")] == ["m-wait"]
    read.close()


def test_kept_up_to_date_equals_rebuilt_from_nothing(service: MatchService, tmp_path: Path) -> None:
    # given read models that catch up after every command, in small batches
    kept = ReadModels(tmp_path / "kept.sqlite3", service.store, batch_size=7)
    service.add_listener(lambda _m, _r: kept.catch_up())
    record_some_matches(service, count=3)

    # when another file is rebuilt from the whole log at once
    rebuilt = ReadModels(tmp_path / "rebuilt.sqlite3", service.store)
    rebuilt.rebuild()

    # then both hold exactly the same rows at the same position
    assert kept.position() == rebuilt.position() == service.store.max_position()
    assert kept.table_rows() == rebuilt.table_rows()
    # and rebuilding the kept file in place gives the same again
    kept.rebuild()
    assert kept.table_rows() == rebuilt.table_rows()
    kept.close()
    rebuilt.close()


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from app.config import resolve_store
    from app.readmodels.models import ReadModels
    from app.store.match_store import MatchStore

    db, url, path, batch, kill_at = sys.argv[1:]
    store = MatchStore.open(resolve_store(Path(db), url or None, environ={}))
    read = ReadModels(Path(path), store, batch_size=int(batch))
    seen = 0

    def count(entry):
        global seen
        seen += 1
        if seen == int(kill_at):
            os.kill(os.getpid(), signal.SIGKILL)  # mid-batch, mid-transaction

    read.catch_up(after_entry=count)
    print("not killed")
    """
)


@pytest.mark.parametrize("store_config", ["sqlite", "postgres"], indirect=True)
def test_a_projection_killed_mid_batch_resumes_with_nothing_lost_or_counted_twice(
    store_config: StoreConfig, service: MatchService, tmp_path: Path
) -> None:
    # given a log of several matches and a follower in its own process, batches of 200
    record_some_matches(service, count=6)
    total = service.store.max_position()
    assert total > 600
    path = tmp_path / "killed.sqlite3"
    db = str(store_config.sqlite_path or tmp_path / "unused.db")
    url = postgres_url(store_config.postgres) if store_config.postgres else ""

    # when the process is killed (SIGKILL) at the 530th entry, inside its third batch
    done = subprocess.run(
        [sys.executable, "-c", KILLER, db, url, str(path), "200", "530"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == -9, done.stderr
    assert "not killed" not in done.stdout

    # then the file holds exactly the two committed batches
    read = ReadModels(path, service.store, batch_size=200)
    assert read.position() == 400
    first_400 = service.store.log_after(0, 400)
    plays = sum(e.topic == TOPICS[CardPlayed] for e in first_400)
    assert sum(row.plays for row in read.matches()) == plays

    # when it resumes, then it ends exactly where a rebuild from nothing does
    assert read.catch_up() == total - 400
    fresh = ReadModels(tmp_path / "fresh.sqlite3", service.store)
    fresh.rebuild()
    assert read.table_rows() == fresh.table_rows()
    read.close()
    fresh.close()


def test_an_error_mid_batch_rolls_the_whole_batch_back(
    service: MatchService, tmp_path: Path
) -> None:
    # given a follower that fails on its 150th entry, batches of 100
    record_some_matches(service, count=2)
    read = ReadModels(tmp_path / "read.sqlite3", service.store, batch_size=100)
    seen = [0]

    def fail_at_150(_entry: object) -> None:
        seen[0] += 1
        if seen[0] == 150:
            raise OSError("disk full")

    # when it catches up, then the error surfaces and only the first batch is kept
    with pytest.raises(OSError, match="disk full"):
        read.catch_up(after_entry=fail_at_150)
    assert read.position() == 100
    assert sum(r.plays for r in read.matches()) == sum(
        e.topic == TOPICS[CardPlayed] for e in service.store.log_after(0, 100)
    )

    # and the next catch-up finishes with rows equal to a rebuild
    read.catch_up()
    fresh = ReadModels(tmp_path / "fresh.sqlite3", service.store)
    fresh.rebuild()
    assert read.table_rows() == fresh.table_rows()


def test_a_behind_read_model_catches_up_with_only_the_new_entries(
    service: MatchService, tmp_path: Path
) -> None:
    # given read models at the end of the log
    service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-1")
    read = ReadModels(tmp_path / "read.sqlite3", service.store)
    read.catch_up()
    assert read.match("m-1").status == "waiting"  # type: ignore[union-attr]

    # when more is appended, the rows stay as they were until the next catch-up
    taken = service.take_seat("m-1", 0, "ann").events
    assert read.match("m-1").status == "waiting"  # type: ignore[union-attr]
    assert read.catch_up() == len(taken)
    row = read.match("m-1")
    assert row is not None
    assert (row.status, row.players, row.seq) == ("playing", ["ann", "easy bot"], taken[-1].seq)
    assert read.catch_up() == 0


def test_a_read_model_never_serves_more_than_its_log(tmp_path: Path) -> None:
    # given read models built from a store with two matches
    big = MatchService.open(tmp_path / "big.db")
    big.create_match(ruleset="classic", seats=2, bots=(0, 1), match_id="m-a")
    big.create_match(ruleset="classic", seats=2, bots=(0, 1), match_id="m-b")
    path = tmp_path / "read.sqlite3"
    read = ReadModels(path, big.store)
    read.catch_up()
    read.close()

    # when the same file is opened for another store that holds less
    small = MatchService.open(tmp_path / "small.db")
    small.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-c")
    read = ReadModels(path, small.store)
    read.catch_up()

    # then it is rebuilt from that store's log: nothing of the other store is served
    assert [r.match_id for r in read.matches()] == ["m-c"]
    assert read.position() == small.store.max_position() == 1

    # and a file claiming a position past its own log is rebuilt too
    read.db.execute("UPDATE positions SET position = 999")
    read.db.execute("UPDATE matches SET plays = 77")
    read.db.conn.commit()
    read.catch_up()
    assert read.position() == 1 and read.match("m-c").plays == 0  # type: ignore[union-attr]
    read.close()
    big.close()
    small.close()


def test_a_corrupt_entry_marks_its_match_and_the_rest_are_followed(
    store: MatchStore, tmp_path: Path
) -> None:
    # given a match whose seat event cannot be decoded, then another match
    service = MatchService(store)
    service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-bad")
    store.recorder.insert_events([StoredEvent("m-bad", 2, "basra:seat_taken", b"{oops")])
    service.create_match(ruleset="classic", seats=2, bots=(0, 1), match_id="m-good")

    # when the read models catch up
    read = ReadModels(tmp_path / "read.sqlite3", store)
    read.catch_up()

    # then the damaged match's row names the problem; the other match is complete
    bad = read.match("m-bad")
    assert bad is not None and bad.problem is not None
    assert "match m-bad: stored event seq 2" in bad.problem
    good = read.match("m-good")
    assert good is not None and good.status == "ended" and good.problem is None
    assert read.position() == store.max_position()


def test_two_followers_sharing_a_file_never_count_twice(
    service: MatchService, tmp_path: Path
) -> None:
    # given two followers (two processes) on one read-model file, small batches
    path = tmp_path / "shared.sqlite3"
    first = ReadModels(path, service.store, batch_size=25)
    second = ReadModels(path, service.store, batch_size=25)
    first.catch_up()  # the file now records which store it follows
    record_some_matches(service, count=3)

    # when both catch up at the same time
    threads = [threading.Thread(target=r.catch_up) for r in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # then the rows equal a single rebuild: no entry was folded twice
    fresh = ReadModels(tmp_path / "fresh.sqlite3", service.store)
    fresh.rebuild()
    assert first.table_rows() == second.table_rows() == fresh.table_rows()
    for read in (first, second, fresh):
        read.close()
