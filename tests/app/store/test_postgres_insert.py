"""PostgreSQL inserts through the store's database function (app/store/postgres.py, L23): the
table's lock, the NOTIFY (carrying the rows) and the insert in one statement, the log's order
kept."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import PostgresSettings
from app.errors import ConflictError
from app.store.match_store import MatchStore
from app.store.postgres import GuardedApplicationRecorder, bytea_array, connect, text_array
from tests.app.test_store_contract import bot_match, recorded

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_store(postgres_settings: PostgresSettings) -> Iterator[MatchStore]:
    store = MatchStore.postgres(postgres_settings)
    yield store
    store.close()


def test_appends_go_through_the_locked_function(
    pg_store: MatchStore, postgres_settings: PostgresSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the store's recorder, made by this build
    recorder = pg_store.recorder
    assert isinstance(recorder, GuardedApplicationRecorder) and recorder.insert_by_function
    # then its function is in the schema, it takes the table's lock before inserting, and its
    # rows come as four arrays, one a column, with the NOTIFY's payload of them beside
    with connect(postgres_settings) as connection:
        (body, arguments) = connection.execute(
            "SELECT prosrc, pg_get_function_arguments(p.oid) FROM pg_proc p"
            " JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = %s AND p.proname = %s",
            (postgres_settings.schema, recorder.locked_insert_function),
        ).fetchone() or (None, None)
    assert body is not None and "IN EXCLUSIVE MODE" in body and "pg_notify" in body
    assert body.index("IN EXCLUSIVE MODE") < body.index("INSERT INTO")
    assert arguments == (
        "ids text[], versions bigint[], topics text[], states bytea[], payload text"
    )
    # (the library's own insert is not what runs below)
    from eventsourcing.postgres import PostgresApplicationRecorder

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("the library's pipelined insert ran")

    monkeypatch.setattr(PostgresApplicationRecorder, "insert_events", refused)
    # when a match is appended in two commands, then the ids are consecutive, in seq order
    events = recorded(bot_match("m-f"))
    first = pg_store.append("m-f", events[:5])
    second = pg_store.append("m-f", events[5:9])
    assert first + second == list(range(first[0], first[0] + 9))
    assert pg_store.read("m-f") == events[:9]
    # and a stale append is refused whole, as a conflict
    with pytest.raises(ConflictError):
        pg_store.append("m-f", events[8:10])
    assert pg_store.last_seq("m-f") == 9


def test_a_follower_never_passes_a_position_that_commits_later(pg_store: MatchStore) -> None:
    # given eight writers appending to matches of their own as fast as they can
    template = recorded(bot_match("m-w"))[:2]
    stop = threading.Event()
    errors: list[str] = []

    def write(n: int) -> None:
        try:
            match_id = f"m-w{n}"
            pg_store.append(match_id, template[:1])
            seq = 2
            while not stop.is_set() and seq < 120:
                event = recorded([template[1].event], first_seq=seq)
                pg_store.append(match_id, event)
                seq += 1
        except Exception as error:
            errors.append(repr(error))

    writers = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in writers:
        thread.start()
    # when a follower reads the log after the last position it saw, again and again
    seen: list[int] = []
    position = 0
    while any(t.is_alive() for t in writers):
        for entry in pg_store.log_after(position, 1000):
            seen.append(entry.position)
            position = entry.position
    stop.set()
    for thread in writers:
        thread.join()
    for entry in pg_store.log_after(position, 100_000):
        seen.append(entry.position)
    # then it saw every position exactly once, in order: none committed behind it
    assert not errors, errors
    everything = [e.position for e in pg_store.log_after(0, 100_000)]
    assert seen == everything and len(everything) == 8 * 119


def test_an_unknown_insert_mode_is_refused_in_one_line(
    postgres_settings: PostgresSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.errors import StoreUnavailableError

    monkeypatch.setenv("BASRA_POSTGRES_INSERT", "fast")
    with pytest.raises(StoreUnavailableError, match="must be 'function' or 'library', not 'fast'"):
        MatchStore.postgres(postgres_settings)


def test_the_librarys_own_insert_gives_the_same_log(
    postgres_settings: PostgresSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a store inserting through the library's own statements
    monkeypatch.setenv("BASRA_POSTGRES_INSERT", "library")
    store = MatchStore.postgres(postgres_settings)
    assert isinstance(store.recorder, GuardedApplicationRecorder)
    assert not store.recorder.insert_by_function
    events = recorded(bot_match("m-l"))
    # when a match is appended, then it reads back and its ids are consecutive as before
    ids = store.append("m-l", events[:6])
    assert ids == list(range(ids[0], ids[0] + 6)) and store.read("m-l") == events[:6]
    store.close()


# Text as PostgreSQL stores it: any character but NUL, the ones an array literal treats
# specially (quotes, backslashes, commas, braces, white space, the letters of NULL) often.
TEXT = st.text(
    st.one_of(
        st.sampled_from('"\\,{} \tNULLnul'),
        st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
    )
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=st.lists(TEXT, max_size=6), blobs=st.lists(st.binary(max_size=40), max_size=6))
def test_the_array_literals_read_back_as_the_values_they_were_made_of(
    postgres_settings: PostgresSettings, texts: list[str], blobs: list[bytes]
) -> None:
    # given any strings (quotes, backslashes, commas, braces, NULL, white space) and bytes
    # when they are sent as the insert sends its columns, cast in the statement
    with connect(postgres_settings) as connection:
        row = connection.execute(
            "SELECT %s::text[], %s::bytea[]", (text_array(texts), bytea_array(blobs))
        ).fetchone()
    # then PostgreSQL reads exactly those values, in order
    assert row is not None
    assert row[0] == texts and [bytes(b) for b in row[1]] == blobs


def test_a_match_id_with_quotes_and_backslashes_is_stored_and_read_as_it_is(
    pg_store: MatchStore,
) -> None:
    # given a match whose id has quotes, a backslash, a comma, braces and the word NULL
    match_id = 'm-"q"\\b,{c} NULL'
    events = recorded(bot_match(match_id))[:4]
    # when it is appended in two commands, then it reads back whole, and the seqs still guard it
    pg_store.append(match_id, events[:2])
    pg_store.append(match_id, events[2:])
    assert pg_store.read(match_id) == events
    with pytest.raises(ConflictError):
        pg_store.append(match_id, events[3:])
