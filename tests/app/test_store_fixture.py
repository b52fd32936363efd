"""Schema evolution: streams recorded by an earlier build, once migrated (``basra store
migrate``), load, fold and continue."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from eventsourcing.utils import resolve_topic

from app.readmodels.models import ReadModels
from app.service import MatchService
from app.store.compact import COMPACT_TOPICS
from domain.events import EVENT_TYPES, CardPlayed, MatchCreated, SeatTaken
from domain.evolve import fold
from tests.migrated import migrated_copy

FIXTURE = Path(__file__).parent.parent / "data" / "store_fixture_v1.db"


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[MatchService]:
    """A migrated copy of the store the first build wrote (the fixture itself never changes)."""
    copy = migrated_copy(FIXTURE.name, tmp_path / "old.db")
    service = MatchService.open(copy)
    yield service
    service.close()


def test_every_old_stream_loads_and_folds(old_store: MatchService) -> None:
    # when the old store is opened by this build
    ids = old_store.match_ids()

    # then its three matches are there, each stream gapless from seq 1 and foldable
    assert ids == ["fixture-bots", "fixture-people", "fixture-waiting"]
    statuses = {}
    for match_id in ids:
        stream = old_store.events(match_id)
        assert [r.seq for r in stream] == list(range(1, len(stream) + 1))
        assert isinstance(stream[0].event, MatchCreated)
        assert stream[0].event.match_id == match_id
        state = old_store.load(match_id)
        assert state == fold(r.event for r in stream)
        statuses[match_id] = state.status
    assert statuses == {
        "fixture-bots": "ended",
        "fixture-people": "playing",
        "fixture-waiting": "waiting",
    }


def test_old_metadata_is_kept(old_store: MatchService) -> None:
    stream = old_store.events("fixture-people")
    seat = next(r for r in stream if isinstance(r.event, SeatTaken))
    assert (seat.caused_by, seat.request_id) == ("seat:0/token:tok-1", "req-seat")
    assert seat.event.token_id == "tok-1"  # type: ignore[attr-defined]
    plays = [r for r in stream if isinstance(r.event, CardPlayed)]
    assert {r.caused_by for r in plays} == {"seat:0/token:tok-1", "bot:1"}
    assert all(r.at.endswith("Z") for r in stream)


def test_an_old_match_continues_under_this_build(old_store: MatchService) -> None:
    # given the old match still in play, with a random bot that must resume its stream
    state = old_store.load("fixture-people")
    assert state.turn == 0

    # when the person plays on, then the play and the bot's reply follow the old seqs
    recorded = old_store.play_card("fixture-people", 0, state.hands[0][0]).events
    assert recorded[0].seq == state.events + 1
    assert old_store.load("fixture-people").events == recorded[-1].seq
    # and the waiting match can be joined
    old_store.take_seat("fixture-waiting", 2, "camelia")
    assert old_store.load("fixture-waiting").status == "playing"


def test_old_streams_feed_the_read_models(old_store: MatchService, tmp_path: Path) -> None:
    read = ReadModels(tmp_path / "read.sqlite3", old_store.store)
    read.catch_up()
    rows = {r.match_id: r for r in read.matches()}
    assert rows["fixture-bots"].status == "ended"
    assert rows["fixture-people"].players == ["amira", "random bot"]
    assert all(r.problem is None for r in rows.values())
    read.close()


def test_stored_topics_name_kinds_that_resolve_to_the_event_classes(
    old_store: MatchService,
) -> None:
    # the migrated rows name events by their kind's letter, not by module paths, so moving a
    # class needs nothing registered for the rows to resolve
    store = old_store.store
    rows = [
        row
        for match_id in ("fixture-bots", "fixture-people")
        for row in store.recorder.select_events(store.streams.originator(match_id))
    ]
    topics = {row.topic for row in rows}
    assert rows and topics <= set(COMPACT_TOPICS.values())
    for topic in topics:
        cls = resolve_topic(topic)
        assert COMPACT_TOPICS[cls] == topic and cls in EVENT_TYPES


def test_a_snapshot_of_an_older_state_shape_is_ignored_and_the_stream_folded_instead(
    old_store: MatchService,
) -> None:
    # given the snapshot the first build kept of the finished bot match, written when the
    # match state had fewer fields than it has now (its topic names that shape)
    stored = old_store.store.snapshots.select_events("fixture-bots", desc=True, limit=1)
    assert stored, "the fixture keeps a snapshot"

    # when this build looks for a snapshot it can trust, and loads the match
    snapshot = old_store.store.latest_snapshot("fixture-bots")
    state = old_store.load("fixture-bots")

    # then the old shape is never misread: it is ignored, and the state is the stream folded
    assert snapshot is None
    assert state == fold(r.event for r in old_store.events("fixture-bots"))
