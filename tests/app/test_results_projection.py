"""The results projection (R27): profiles, histories and the ladder from the global log, each
ended match applied once, rebuilt to the same numbers, practice and imports paying nothing."""

from __future__ import annotations

import itertools
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.readmodels.cursors import BadCursorError, LadderCursor, decode_cursor, encode_cursor
from app.readmodels.results import Results
from app.service import MatchService
from app.service.players import PlayerService
from domain.events import MatchCreated
from domain.ratings import NEW_PLAYER, rate_match
from tests.app.results_helpers import finished_match, register, seat_all


def test_a_finished_match_between_two_players_pays_and_rates(
    service: MatchService, tmp_path: Path
) -> None:
    # given two players who play a match to the end
    players = PlayerService(service.store)
    amal, badr = register(players, "Amal", "Badr")
    finished_match(service, "m-1", [amal, badr])
    winner_side = service.load("m-1").winner
    assert winner_side in (0, 1)
    results = Results(tmp_path / "results.sqlite3", service.store)

    # when the results catch up
    results.catch_up()

    # then the winner has 24 points and ~1662.3, the loser 3 points and ~1337.7
    won, lost = (amal, badr) if winner_side == 0 else (badr, amal)
    w, lo = results.profile(won), results.profile(lost)
    expected_w, expected_l = rate_match(NEW_PLAYER, NEW_PLAYER, 1.0)
    assert (w.points, w.wins, w.losses, w.rated_matches) == (24, 1, 0, 1)
    assert (lo.points, lo.wins, lo.losses, lo.rated_matches) == (3, 0, 1, 1)
    assert w.rating == pytest.approx(expected_w.rating) and round(w.rating, 1) == 1662.3
    assert lo.rating == pytest.approx(expected_l.rating) and round(lo.rd, 1) == 290.3
    (history,) = results.history(won)
    assert (history.match_id, history.outcome, history.points, history.rated) == (
        "m-1",
        "win",
        24,
        True,
    )
    assert history.rating_before == 1500 and history.rating_after == w.rating
    assert [p.player_id for p in results.ladder(limit=10)] == [won, lost]
    # and a second catch-up applies nothing twice
    results.catch_up()
    assert results.profile(won).points == 24


@pytest.mark.parametrize("end", ["no_play", "abandoned"])
def test_a_match_that_ends_before_the_first_play_pays_nothing(
    service: MatchService, tmp_path: Path, end: str
) -> None:
    players = PlayerService(service.store)
    ids: list[str | None] = list(register(players, "Amal", "Badr"))
    finished_match(service, "m-1", ids, end)
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    assert results.all_rows() == []


def test_forfeit_after_a_play_is_a_loss_for_the_leaver(
    service: MatchService, tmp_path: Path
) -> None:
    players = PlayerService(service.store)
    amal, badr = register(players, "Amal", "Badr")
    finished_match(service, "m-1", [amal, badr], "forfeit")
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    assert (results.profile(amal).losses, results.profile(amal).points) == (1, 3)
    assert (results.profile(badr).wins, results.profile(badr).points) == (1, 24)


def test_four_seats_pay_both_partners_and_rate_nobody(
    service: MatchService, tmp_path: Path
) -> None:
    players = PlayerService(service.store)
    ids = register(players, "A", "B", "C", "D")
    finished_match(service, "m-4", list(ids), "forfeit")  # seat 0 leaves: side 1 wins
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    assert [results.profile(i).points for i in ids] == [3, 24, 3, 24]
    assert all(results.profile(i).rated_matches == 0 for i in ids)
    assert results.ladder(limit=10) == []


def test_practice_pays_nothing(service: MatchService, tmp_path: Path) -> None:
    # given a match against a bot and a match with an anonymous seat, both played to the end
    players = PlayerService(service.store)
    (amal,) = register(players, "Amal")
    service.create_match(ruleset="classic", seats=2, target=1, bots=(1,), match_id="m-bot")
    service.take_seat("m-bot", 0, "Amal", player_id=amal)
    finished_match(service, "m-anon", [amal, None])
    from tests.app.results_helpers import play_to_end

    play_to_end(service, "m-bot")
    assert service.load("m-bot").status == service.load("m-anon").status == "ended"
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    assert results.all_rows() == []


def test_an_imported_match_is_never_a_result(service: MatchService, tmp_path: Path) -> None:
    # given a finished match between players, stored again under a new id as an import does
    # (replays.importing: match_created keeps the first id as origin)
    players = PlayerService(service.store)
    amal, badr = register(players, "Amal", "Badr")
    finished_match(service, "m-1", [amal, badr])
    events = service.events("m-1")
    first = events[0].event
    assert isinstance(first, MatchCreated)
    moved = msgspec.structs.replace(first, match_id="m-imp", origin="m-1")
    stream = [msgspec.structs.replace(r, event=moved) if r.seq == 1 else r for r in events]
    service.append_imported("m-imp", stream)
    # when the results catch up
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    # then only the original counts
    assert {r.match_id for r in results.history(amal)} == {"m-1"}
    assert results.profile(amal).wins + results.profile(amal).losses == 1


def test_idle_time_comes_from_the_recorded_end_times(tmp_path: Path) -> None:
    # given a service whose clock we drive: two matches ten days apart
    from app.store.match_store import MatchStore

    now = ["2026-01-01T00:00:00.000000Z"]
    service = MatchService(MatchStore.sqlite(tmp_path / "s.db"), clock=lambda: now[0])
    players = PlayerService(service.store)
    amal, badr = register(players, "Amal", "Badr")
    finished_match(service, "m-1", [amal, badr])
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    rd_after_first = results.profile(amal).rd
    now[0] = "2026-01-11T00:00:00.000000Z"
    finished_match(service, "m-2", [amal, badr])
    results.catch_up()
    # then the second match's RD before is the first's grown by ten idle days
    second = results.history(amal)[0]
    assert second.match_id == "m-2" and second.rd_before is not None
    assert second.rd_before > rd_after_first
    assert second.rd_before == pytest.approx(
        (((rd_after_first / 173.7178) ** 2 + 10 * results.profile(amal).volatility ** 2) ** 0.5)
        * 173.7178,
        rel=1e-3,
    )


def test_ladder_cursor_round_trip_and_refusal() -> None:
    # given a ladder cursor after a settled player at rank 7
    cursor = LadderCursor(0, 1612.25, "p-ab", 7)
    # when it is written and read back, then it is the same cursor
    assert decode_cursor(encode_cursor(cursor), LadderCursor) == cursor
    # and one issued by the build before (JSON with spaces) still reads
    assert decode_cursor("WzAsIDE2MTIuMjUsICJwLWFiIiwgN10", LadderCursor) == cursor
    # while anything else is refused: not base64, not an array, a rank of 0, one field too many
    for bad in [
        "",
        "x",
        "!!!",
        "W10",
        "WzEsICJhIiwgMl0",
        "WzAsIDEuNSwgInAtYSIsIDBd",
        "WzAsIDEuNSwgInAtYSIsIDIsIDVd",
        "a" * 300,
        "é",
    ]:
        with pytest.raises(BadCursorError):
            decode_cursor(bad, LadderCursor)


def test_ladder_pages_settled_players_first(tmp_path: Path, service: MatchService) -> None:
    # given four players who played a round robin, three times over
    players = PlayerService(service.store)
    ids = register(players, "A", "B", "C", "D")
    for n, (a, b) in enumerate(itertools.combinations(ids, 2)):
        finished_match(service, f"m-{n}", [a, b])
    results = Results(tmp_path / "results.sqlite3", service.store)
    results.catch_up()
    # when the ladder is read a page of one at a time
    pages = []
    cursor = None
    while True:
        page = results.ladder_page(limit=1, cursor=cursor)
        assert page.before == len(pages)
        pages.extend(page.rows)
        if page.next is None:
            break
        cursor = page.next
    # then it is every rated player once, provisional after settled, each by rating
    assert sorted(p.player_id for p in pages) == sorted(ids)
    keys = [(p.provisional, -p.rating, p.player_id) for p in pages]
    assert keys == sorted(keys)


ENDS = st.sampled_from(["target", "forfeit", "no_play", "abandoned", "anon"])


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), ENDS), min_size=1, max_size=6))
def test_rebuild_equals_live_after_a_random_mix(
    sqlite_service: MatchService, tmp_path: Path, plan: list[tuple[int, int, str]]
) -> None:
    # given results followed live, one catch-up per match, over a random mix of matches
    service = sqlite_service
    players = PlayerService(service.store)
    tag = str(len(service.match_ids()))
    ids = register(players, "A", "B", "C", "D")
    live = Results(tmp_path / f"live-{tag}.sqlite3", service.store, batch_size=3)
    for n, (a, b, end) in enumerate(plan):
        pair: list[str | None] = [ids[a], ids[b] if a != b else ids[(b + 1) % 4]]
        if end == "anon":
            pair[1] = None
            end = "target"
        finished_match(service, f"m-{tag}-{n}", pair, end)
        live.catch_up()
    # when another file is rebuilt from the log in one go
    rebuilt = Results(tmp_path / f"rebuilt-{tag}.sqlite3", service.store)
    rebuilt.rebuild()
    # then every profile and result is identical
    assert rebuilt.all_rows() == live.all_rows()
    live.close()
    rebuilt.close()


def test_seat_all_helper_makes_a_playing_table(service: MatchService) -> None:
    players = PlayerService(service.store)
    seat_all(service, "m-x", list(register(players, "A", "B")))
    assert service.load("m-x").status == "playing"


def test_the_few_kinds_of_entry_come_from_the_topic_index_in_log_order(tmp_path: Path) -> None:
    # given a SQLite store written before the topic index (dropped here), with finished,
    # running and waiting matches between players
    import sqlite3

    from app.store.decoding import TOPICS
    from app.store.match_store import TOPIC_INDEX, MatchStore
    from domain.events import MatchEnded, SeatTaken

    db = tmp_path / "basra.db"
    service = MatchService.open(db)
    players = PlayerService(service.store)
    ids = register(players, "Amal", "Badr", "Chadi", "Dima")
    for n in range(3):
        finished_match(service, f"m-{n}", ids[n % 2 : n % 2 + 2])
    seat_all(service, "m-run", ids[2:])
    service.create_match(ruleset="classic", seats=2, match_id="m-wait")
    service.close()
    with sqlite3.connect(db) as raw:
        raw.execute(f"DROP INDEX {TOPIC_INDEX}")

    # when the store is opened again and the log read for three kinds, a few entries a page
    store = MatchStore.sqlite(db)
    kinds = (TOPICS[MatchCreated], TOPICS[SeatTaken], TOPICS[MatchEnded])
    expected = [e for e in store.log_after(0, 100_000) if e.topic in kinds]
    pages, position = [], 0
    while page := store.log_after(position, 4, kinds):
        assert len(page) <= 4
        pages.extend(page)
        position = page[-1].position
    with sqlite3.connect(db) as raw:
        indexes = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
        plan = " ".join(
            str(row[3])
            for row in raw.execute(
                "EXPLAIN QUERY PLAN SELECT rowid FROM stored_events WHERE topic = ?"
                " AND rowid > ? ORDER BY rowid LIMIT 4",
                [kinds[0], 0],
            )
        )
    store.close()

    # then the index is back, the pages hold exactly those entries in log order, none twice
    assert TOPIC_INDEX in indexes and TOPIC_INDEX in plan
    assert [e.position for e in pages] == [e.position for e in expected]
    assert pages == expected and len(expected) == 3 * 4 + 3 + 1


SCHEMA_2: str = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE positions (name TEXT PRIMARY KEY, position INTEGER);
CREATE TABLE pending (
    match_id TEXT PRIMARY KEY, ruleset TEXT, seats INTEGER, private INTEGER, bots INTEGER,
    imported INTEGER, player_ids TEXT);
CREATE TABLE results (
    player_id TEXT, match_id TEXT, position INTEGER, ended TEXT, ruleset TEXT, seats INTEGER,
    private INTEGER, seat INTEGER, player_ids TEXT, reason TEXT, outcome TEXT, points INTEGER,
    rated INTEGER, rating_before REAL, rd_before REAL, rating_after REAL, rd_after REAL,
    volatility_after REAL, PRIMARY KEY (player_id, match_id));
CREATE INDEX results_by_player ON results (player_id, position);
CREATE TABLE profiles (
    player_id TEXT PRIMARY KEY, points INTEGER, wins INTEGER, draws INTEGER, losses INTEGER,
    rating REAL, rd REAL, volatility REAL, rated_matches INTEGER, last_rated TEXT,
    provisional INTEGER, sort_rating REAL);
CREATE INDEX ladder ON profiles (provisional, sort_rating, player_id) WHERE rated_matches > 0;
"""
"""The results file's tables as the build before schema 3 wrote them."""


def test_a_results_file_of_schema_2_is_rebuilt_not_misread(
    service: MatchService, tmp_path: Path
) -> None:
    # given a results file in the previous schema (2), caught up to the end of the log, whose
    # rows say something the log does not (a profile of 999 points, a result never played)
    import sqlite3

    players = PlayerService(service.store)
    amal, badr = register(players, "Amal", "Badr")
    finished_match(service, "m-1", [amal, badr])
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as raw:
        raw.executescript(SCHEMA_2)
        raw.executemany(
            "INSERT INTO meta VALUES (?, ?)", [("store", service.store.identity), ("schema", "2")]
        )
        raw.execute("INSERT INTO positions VALUES ('results', ?)", [service.store.max_position()])
        raw.execute(
            "INSERT INTO profiles VALUES"
            " (?, 999, 9, 0, 0, 2000.0, 50.0, 0.06, 9, NULL, 0, -2000.0)",
            [amal],
        )
        raw.execute(
            "INSERT INTO results (player_id, match_id, position, points) VALUES (?, 'm-x', 1, 999)",
            [amal],
        )
    fresh = Results(tmp_path / "fresh.sqlite3", service.store)
    fresh.catch_up()

    # when this build opens it and catches up
    results = Results(old, service.store)
    results.catch_up()

    # then it was rebuilt from the log in the current shape: the same rows as a fresh file
    assert results.all_rows() == fresh.all_rows()
    assert results.profile(amal).points in (24, 3)
    tables = dict(results.db.execute("SELECT name, sql FROM sqlite_master").fetchall())
    assert "WITHOUT ROWID" in tables["results"] and "results_by_player" not in tables
    results.close()
    fresh.close()


READERS_BESIDE_A_WRITER = """
import sys, threading
from pathlib import Path
from app.readmodels.results import Results
from app.service import MatchService
from app.service.players import PlayerService
from tests.app.results_helpers import finished_match, register

folder = Path(sys.argv[1])
service = MatchService.open(folder / "basra.db")
players = PlayerService(service.store)
ids = register(players, "Amal", "Badr", "Carim", "Dina")
results = Results(folder / "results.sqlite3", service.store)
done = threading.Event()
failures = []

def reader(k):
    seen = {p: 0 for p in ids}
    try:
        while not done.is_set():
            results.catch_up()
            for p in ids:
                rated = results.profile(p).rated_matches
                assert rated >= seen[p], (p, rated, seen[p])  # results only ever grow
                seen[p] = rated
                assert len(results.history(p)) >= rated  # read after: never fewer
            assert len(results.ladder(limit=10)) <= len(ids)
    except BaseException as error:
        failures.append(repr(error))

threads = [threading.Thread(target=reader, args=(k,)) for k in range(6)]
for t in threads:
    t.start()
for n in range(12):
    a, b = ids[n % 4], ids[(n + 1 + n // 4) % 4]
    finished_match(service, f"m-{n}", [a, b])
done.set()
for t in threads:
    t.join(60)
results.catch_up()
fresh = Results(folder / "fresh.sqlite3", service.store)
fresh.catch_up()
assert results.all_rows() == fresh.all_rows(), "reads beside the writer changed the results"
assert sum(results.profile(p).rated_matches for p in ids) == 24
print("failures:", failures)
results.close(); fresh.close(); service.close()
"""


def test_six_threads_reading_while_results_are_applied_see_them_only_grow(
    tmp_path: Path,
) -> None:
    # given a fresh interpreter: six threads catching up and reading profiles, histories and
    # the ladder (the projection's one connection, shared under its lock) while matches end
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", READERS_BESIDE_A_WRITER, str(tmp_path)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # then no read failed, each thread saw every player's results only grow, a history at least
    # as long as the rated count it had just read, and the file equals one built from the log
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "failures: []", done.stdout
