"""Stream keys (app/store/streams.py): each match stored under a short key, its id kept once.
Streams recorded before keys are renamed to keys by ``basra store migrate``
(tests/app/test_store_migrate.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.errors import ConflictError
from app.store.match_store import MatchStore
from app.store.streams import stream_key, stream_number
from tests.app.test_store_contract import bot_match, recorded


@given(st.integers(1, 10**15), st.integers(1, 10**15))
def test_keys_read_back_and_sort_as_their_numbers(a: int, b: int) -> None:
    # given two stream numbers, when they are made keys
    key_a, key_b = stream_key(a), stream_key(b)
    # then each reads back as its number, and the keys sort as the numbers do
    assert stream_number(key_a) == a and stream_number(key_b) == b
    assert (key_a < key_b) == (a < b)


@pytest.mark.parametrize("name", ["", "1", "10", "200", "sim-classic-2-0-679ce192", "m-1", "1!"])
def test_text_that_no_key_is_has_no_number(name: str) -> None:
    assert stream_number(name) is None


def test_small_keys_are_two_to_four_characters() -> None:
    assert [stream_key(n) for n in (1, 61, 62, 3843, 3844)] == ["11", "1z", "210", "2zz", "3100"]


def test_a_match_is_stored_under_its_key_and_its_id_once(store: MatchStore) -> None:
    # given a match appended to an empty store
    store.append("sim-classic-2-0-679ce192", recorded(bot_match("sim-classic-2-0-679ce192")))
    # then its rows are under the first key, and the store reads them by match id
    assert store.streams.originator("sim-classic-2-0-679ce192") == "11"
    assert store.recorder.select_events("sim-classic-2-0-679ce192") == []
    assert len(store.recorder.select_events("11")) == len(store.read("sim-classic-2-0-679ce192"))
    # and the log names the match by its id
    assert {e.match_id for e in store.log_after(0, 10_000)} == {"sim-classic-2-0-679ce192"}
    assert store.match_ids() == ["sim-classic-2-0-679ce192"]


def test_a_second_creation_of_a_match_conflicts(store: MatchStore, other_store: MatchStore) -> None:
    # given a match created through one handle
    events = recorded(bot_match("m-twice"))
    store.append("m-twice", events[:3])
    # when another handle (another process) creates it again, then nothing is written
    with pytest.raises(ConflictError):
        other_store.append("m-twice", events[:3])
    assert other_store.read("m-twice") == events[:3]
    assert other_store.streams.originator("m-twice") == store.streams.originator("m-twice")


THREADS = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    sys.setswitchinterval(1e-6)
    from app.store.match_store import MatchStore
    from tests.app.test_store_contract import bot_match, recorded

    store = MatchStore.sqlite(Path(sys.argv[1])) if sys.argv[1] != "memory" else MatchStore.memory()
    match = recorded(bot_match("m"))[:4]
    errors = []

    def work(t):
        try:
            for n in range(15):
                mine = f"m-{t}-{n}"
                store.append(mine, match)
                assert store.read(mine) == match
                other = f"m-{(t + 1) % 6}-{n}"
                key = store.streams.originator(other)
                assert key == other or store.streams.match_of(key) == other
        except Exception as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    assert not errors, errors
    ids = [f"m-{t}-{n}" for t in range(6) for n in range(15)]
    keys = {store.streams.originator(m) for m in ids}
    assert len(keys) == len(ids) and not keys & set(ids)
    assert sorted(store.match_ids()) == sorted(ids)
    fresh = store.reopen()
    assert {fresh.streams.originator(m) for m in ids} == keys
    print("ok")
    """
)


@pytest.mark.parametrize("where", ["memory", "sqlite"])
def test_keys_given_from_six_threads_in_a_fresh_interpreter_are_distinct(
    where: str, tmp_path: Path
) -> None:
    # given six threads creating matches and looking up each other's keys on one store, with a
    # thread switch every microsecond, in an interpreter where nothing is cached yet
    target = "memory" if where == "memory" else str(tmp_path / "keys.db")
    done = subprocess.run(
        [sys.executable, "-c", THREADS, target],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=Path(__file__).resolve().parents[3],
    )
    # then every match has a key of its own, read alike by every handle
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


RACE = textwrap.dedent(
    """
    import sys, time
    from app.config import StoreConfig, parse_database_url
    from app.errors import ConflictError
    from app.store.match_store import MatchStore
    from tests.app.test_store_contract import bot_match, recorded
    kind, where, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if kind == "postgres":
        config = StoreConfig(kind="postgres", postgres=parse_database_url(where))
    else:
        from pathlib import Path
        config = StoreConfig(kind="sqlite", sqlite_path=Path(where))
    store = MatchStore.open(config)
    events = recorded(bot_match("m-race"))[:3]
    won = 0
    for n in range(20):
        time.sleep(max(0.0, start + n * 0.05 - time.time()))
        try:
            store.append(f"m-race-{n}", events)
            won += 1
        except ConflictError:
            pass
    print(won)
    """
)


def race(kind: str, where: str) -> list[int]:
    """Two processes creating the same 20 matches at the same moments; how many each made."""
    import time

    start = time.time() + 3.0
    root = Path(__file__).resolve().parents[3]
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, kind, where, str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=root,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in processes]
    assert all(p.returncode == 0 for p in processes), [err[-2000:] for _, err in outputs]
    return [int(out.strip()) for out, _ in outputs]


def test_two_processes_creating_the_same_matches_make_each_once_on_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    MatchStore.sqlite(db).close()
    # when two processes create the same 20 matches at the same moments
    made = race("sqlite", str(db))
    # then each match was made once, and its stream is whole under one key
    assert sum(made) == 20
    store = MatchStore.sqlite(db)
    assert sorted(store.match_ids()) == sorted(f"m-race-{n}" for n in range(20))
    assert all(len(store.read(f"m-race-{n}")) == 3 for n in range(20))
    store.close()


@pytest.mark.postgres
def test_two_processes_creating_the_same_matches_make_each_once_on_postgres(
    postgres_settings: object,
) -> None:
    from app.config import PostgresSettings
    from tests.app.conftest import postgres_url

    assert isinstance(postgres_settings, PostgresSettings)
    store = MatchStore.postgres(postgres_settings)
    made = race("postgres", postgres_url(postgres_settings))
    assert sum(made) == 20
    assert sorted(store.match_ids()) == sorted(f"m-race-{n}" for n in range(20))
    assert all(len(store.read(f"m-race-{n}")) == 3 for n in range(20))
    store.close()
