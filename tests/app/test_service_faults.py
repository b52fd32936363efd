"""Bad input and faults: racing writers, corrupt events, a store that cannot be reached."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from eventsourcing.persistence import StoredEvent

from app.config import PostgresSettings
from app.errors import ConflictError, CorruptEventError, StoreUnavailableError
from app.service import MatchService
from app.store.decoding import TOPICS
from app.store.match_store import MatchStore
from domain.errors import BasraError, CardNotInHandError, NotYourTurnError
from domain.events import CardPlayed
from domain.evolve import fold
from domain.fairness import secret_from_text_seed

SECRET = secret_from_text_seed("faults")


def test_racing_plays_on_one_turn_exactly_one_wins(
    service: MatchService, other_service: MatchService
) -> None:
    # given a match with two people, both processes holding the same position
    service.create_match(ruleset="classic", seats=2, secret=SECRET, match_id="m-r")
    service.take_seat("m-r", 0, "ann")
    service.take_seat("m-r", 1, "bob")
    outcomes: dict[str, list[str]] = {"won": [], "lost": []}

    for _ in range(6):  # six turns, each raced by two writers
        state = service.load("m-r")
        assert other_service.load("m-r") == state
        seat = state.turn
        assert seat is not None
        cards = state.hands[seat][:2] if len(state.hands[seat]) > 1 else state.hands[seat] * 2
        barrier = threading.Barrier(2)

        def play(
            handle: MatchService,
            card: str,
            seq: int = state.events,
            on: int = seat,
            barrier: threading.Barrier = barrier,
        ) -> None:
            barrier.wait()
            try:
                handle.play_card("m-r", on, card, expected_seq=seq)
                outcomes["won"].append(card)
            except (ConflictError, NotYourTurnError, CardNotInHandError) as error:
                outcomes["lost"].append(error.code)

        # when two writers play for the seat on turn at the same moment
        threads = [
            threading.Thread(target=play, args=(service, cards[0])),
            threading.Thread(target=play, args=(other_service, cards[1])),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        # then exactly one play is stored, right after the seq both read
        after = service.events("m-r", after_seq=state.events)
        assert isinstance(after[0].event, CardPlayed) and after[0].event.seat == seat
        assert after[0].seq == state.events + 1
        assert [r.seq for r in service.events("m-r")] == list(range(1, after[-1].seq + 1))

    assert len(outcomes["won"]) == 6
    assert outcomes["lost"] == ["conflict"] * 6
    assert service.load_from_stream("m-r") == service.load("m-r") == other_service.load("m-r")


def test_a_corrupt_event_names_the_match_and_other_matches_keep_working(
    store: MatchStore,
) -> None:
    # given two matches, and a stored event of one that cannot be decoded
    service = MatchService(store)
    service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-bad")
    service.take_seat("m-bad", 0, "ann")
    service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-ok")
    seq = store.last_seq("m-bad") + 1
    stream = store.streams.originator("m-bad")
    store.recorder.insert_events([StoredEvent(stream, seq, TOPICS[CardPlayed], b"\x00garbage")])

    # when a fresh process loads the damaged match
    fresh = MatchService(store)
    with pytest.raises(CorruptEventError) as caught:
        fresh.load("m-bad")

    # then the error is clear: code, match and position
    assert caught.value.code == "corrupt_event"
    assert f"match m-bad: stored event seq {seq}" in caught.value.message
    with pytest.raises(CorruptEventError):
        fresh.events("m-bad")
    # and the other match still works end to end
    fresh.take_seat("m-ok", 0, "bob")
    assert fresh.load("m-ok").status == "playing"
    assert fresh.match_ids() == ["m-bad", "m-ok"]


def test_a_sqlite_path_that_cannot_be_a_database_is_unavailable(tmp_path: Path) -> None:
    # given a path under a plain file, and a file that is not a database
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a sqlite database at all" * 100)

    # when the store is opened there, then it is unavailable, with a clear message
    for path in (blocker / "basra.db", garbage):
        with pytest.raises(StoreUnavailableError) as caught:
            MatchService.open(path)
        assert caught.value.code == "store_unavailable"
        assert str(path.name) in caught.value.message


def test_an_unreachable_postgres_is_unavailable() -> None:
    settings = PostgresSettings(dbname="test", host="127.0.0.1", port="1", schema="nowhere")
    with pytest.raises(StoreUnavailableError) as caught:
        MatchStore.postgres(settings)
    assert caught.value.code == "store_unavailable"
    assert "127.0.0.1:1" in caught.value.message


def test_a_locked_sqlite_file_makes_a_writer_wait_then_succeed(tmp_path: Path) -> None:
    # given another process holding the write lock for a moment
    path = tmp_path / "basra.db"
    service = MatchService.open(path)
    service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-w")
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()

    # when a seat is taken meanwhile, then it waits for the lock and is recorded
    recorded = service.take_seat("m-w", 0, "ann").events
    release.join()
    other.close()
    assert recorded[0].seq == 2
    assert fold(r.event for r in service.events("m-w")).status == "playing"
    service.close()


def test_every_store_error_is_a_basra_error_with_a_code() -> None:
    for error in (ConflictError("x"), CorruptEventError("m", 1, "x"), StoreUnavailableError("x")):
        assert isinstance(error, BasraError) and error.code and error.message
