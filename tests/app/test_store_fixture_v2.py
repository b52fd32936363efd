"""Schema evolution: a store written just before the compact form and stream keys, once
migrated (``basra store migrate``), loads, verifies, continues and feeds the read models,
beside matches stored the new way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.readmodels.models import ReadModels
from app.service import MatchService
from app.store.compact import is_compact_topic
from domain.chain import chain_status, first_break
from domain.events import MatchCreated
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from replays.audit import audit
from tests.migrated import migrated_copy


def verifies(service: MatchService, match_id: str) -> bool:
    """Whether the stored match verifies: every event from the rules, the chain unbroken."""
    stream = service.events(match_id)
    created = stream[0].event
    assert isinstance(created, MatchCreated) and created.secret is not None
    return audit(stream).ok and first_break(stream, bytes.fromhex(created.secret)) is None


FIXTURE = Path(__file__).parent.parent / "data" / "store_fixture_v2.db"
IDS = ["fixture-bots", "fixture-people", "fixture-waiting"]


@pytest.fixture
def v2_store(tmp_path: Path) -> Iterator[MatchService]:
    """A migrated copy of the store the build before the compact form wrote (never the fixture
    itself)."""
    copy = migrated_copy(FIXTURE.name, tmp_path / "v2.db")
    service = MatchService.open(copy)
    yield service
    service.close()


def test_every_v2_stream_loads_folds_and_keeps_its_chain(v2_store: MatchService) -> None:
    # when the store is opened by this build, then its matches are there by id
    assert v2_store.match_ids() == IDS
    for match_id in IDS:
        stream = v2_store.events(match_id)
        assert [r.seq for r in stream] == list(range(1, len(stream) + 1))
        assert v2_store.load(match_id) == fold(r.event for r in stream)
        # and every event still carries the chain link it was stored with
        assert all(r.chain is not None for r in stream)
        assert chain_status(stream) == "chained"
    # and the rows are in today's form: compact, under stream keys in the order created
    assert [v2_store.store.streams.originator(m) for m in IDS] == ["11", "12", "13"]
    rows = v2_store.store.recorder.select_events("11")
    assert len(rows) == 173 and all(is_compact_topic(r.topic) for r in rows)
    assert v2_store.store.recorder.select_events("fixture-bots") == []


def test_a_v2_match_verifies(v2_store: MatchService) -> None:
    # the deals against the seed and the chain, recomputed from the stored rows
    assert verifies(v2_store, "fixture-bots")


def test_a_v2_match_continues_under_its_key(v2_store: MatchService) -> None:
    # given the match still in play
    state = v2_store.load("fixture-people")
    # when the person plays on
    recorded = v2_store.play_card("fixture-people", 0, state.hands[0][0]).events
    # then the new rows follow the old seqs, compact, under its key, chained on
    assert recorded[0].seq == state.events + 1
    rows = v2_store.store.recorder.select_events("12", gt=state.events)
    assert [r.originator_version for r in rows] == [r.seq for r in recorded]
    assert all(is_compact_topic(r.topic) for r in rows)
    assert verifies(v2_store, "fixture-people")
    # and a new match beside them gets the next stream key
    new_id = v2_store.create_match(
        ruleset="classic", seats=2, bots=(0, 1), secret=secret_from_text_seed("v2/new")
    ).match_id
    assert v2_store.store.streams.originator(new_id) == "14"
    assert v2_store.match_ids() == [*IDS, new_id]
    assert verifies(v2_store, new_id)


def test_v2_streams_feed_the_read_models_beside_new_ones(
    v2_store: MatchService, tmp_path: Path
) -> None:
    new_id = v2_store.create_match(
        ruleset="classic", seats=2, bots=(0, 1), secret=secret_from_text_seed("v2/read")
    ).match_id
    read = ReadModels(tmp_path / "read.sqlite3", v2_store.store)
    read.catch_up()
    rows = {r.match_id: r for r in read.matches()}
    assert set(rows) == {*IDS, new_id}
    assert rows["fixture-bots"].status == "ended" and rows[new_id].status == "ended"
    assert rows["fixture-people"].players == ["amira", "random bot"]
    assert all(r.problem is None for r in rows.values())
    read.close()


def test_the_read_commands_answer_alike_on_a_migrated_store_and_a_new_one(
    tmp_path: Path,
) -> None:
    # given the migrated v2 store, and a store of this build holding the same recorded events
    from typer.testing import CliRunner

    from app.store.match_store import MatchStore
    from cli.main import app
    from cli.quick import answer

    v2 = migrated_copy(FIXTURE.name, tmp_path / "v2.db")
    compact = tmp_path / "compact.db"
    source, target = MatchStore.sqlite(v2), MatchStore.sqlite(compact)
    for match_id in IDS:
        target.append(match_id, source.read(match_id))
    assert target.streams.originator("fixture-bots") == "11"
    source.close()
    target.close()
    runner = CliRunner()
    for args in (
        ["export", "fixture-bots", "--support"],
        ["export", "fixture-people", "--as", "0"],
        ["replay", "fixture-bots", "--step", "40", "--json"],
        ["verify", "fixture-bots"],
        ["verify", "--all"],
        ["matches", "--json"],
    ):
        # when each store is asked through the full command and the quick one
        old = runner.invoke(app, [*args, "--db", str(v2)])
        new = runner.invoke(app, [*args, "--db", str(compact)])
        # then both stores answer the same, byte for byte
        assert old.exit_code == 0, (args, old.stderr)
        assert (old.exit_code, old.stdout) == (new.exit_code, new.stdout), args
    for db in (v2, compact):
        assert answer(["verify", "fixture-bots", "--db", str(db)]) == 0
