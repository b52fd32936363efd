"""Voided results (R28): after any history of matches, voids and restores, the results followed
live are exactly those a rebuild from scratch gives without the voided matches."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.readmodels.results import Results
from app.service import MatchService
from app.service.desk_open import open_desk
from app.service.players import PlayerService
from tests.app.results_helpers import finished_match, register

STEP = st.one_of(
    st.tuples(
        st.just("match"),
        st.integers(0, 3),
        st.integers(1, 3),
        st.sampled_from(["target", "forfeit", "no_play", "four"]),
    ),
    st.tuples(st.just("void"), st.integers(0, 20), st.just(0), st.just("")),
    st.tuples(st.just("restore"), st.integers(0, 20), st.just(0), st.just("")),
)


def _play(service: MatchService, match_id: str, ids: list[str], a: int, b: int, end: str) -> None:
    if end == "four":
        order = [ids[(a + k) % 4] for k in range(4)]
        finished_match(service, match_id, list(order), "forfeit")
    else:
        finished_match(service, match_id, [ids[a], ids[(a + b) % 4]], end)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(STEP, min_size=1, max_size=9))
def test_voids_and_restores_leave_the_ladder_a_rebuild_gives(
    sqlite_service: MatchService, tmp_path: Path, steps: list[tuple[str, int, int, str]]
) -> None:
    # given results followed live, and the desk voiding and restoring results as it goes
    service = sqlite_service
    players = PlayerService(service.store)
    tag = str(len(service.match_ids()))
    ids = register(players, "A", "B", "C", "D")
    live = Results(tmp_path / f"live-{tag}.sqlite3", service.store, batch_size=2)
    _, desk = open_desk(service.store, players, on_voids=live.catch_up)
    played: list[str] = []
    paying: list[str] = []
    for n, (kind, a, b, end) in enumerate(steps):
        if kind == "match":
            match_id = f"v-{tag}-{n}"
            _play(service, match_id, ids, a, b, end)
            played.append(match_id)
            if end != "no_play":
                paying.append(match_id)
        elif paying:
            match_id = paying[a % len(paying)]
            voided = match_id in desk.voided()
            if kind == "void" and not voided:
                desk.void(match_id, "nadia", "collusion", None)
            elif kind == "restore" and voided:
                desk.restore(match_id, "nadia", "appeal upheld", None)
        live.catch_up()
    # when another file is rebuilt from the log in one go, the voids read as they stand
    rebuilt = Results(tmp_path / f"rebuilt-{tag}.sqlite3", service.store)
    rebuilt.rebuild()
    # then every profile and every result is identical, and no voided match is in any history
    assert live.all_rows() == rebuilt.all_rows()
    voided = desk.voided()
    shown = {row["match_id"] for row in live.all_rows() if "match_id" in row}
    assert not (shown & voided)
    assert set(paying) - voided <= shown
    live.close()
    rebuilt.close()


def test_voiding_then_restoring_gives_back_the_very_same_numbers(
    service: MatchService, tmp_path: Path
) -> None:
    # given three rated matches between A, B and C
    players = PlayerService(service.store)
    a, b, c = register(players, "A", "B", "C")
    results = Results(tmp_path / "results.sqlite3", service.store)
    _, desk = open_desk(service.store, players, on_voids=results.catch_up)
    finished_match(service, "m1", [a, b], "target")
    finished_match(service, "m2", [b, c], "target")
    finished_match(service, "m3", [a, c], "forfeit")
    results.catch_up()
    before = results.all_rows()
    # when the first is voided, then restored
    desk.void("m1", "nadia", "collusion", None)
    during = {p: results.profile(p) for p in (a, b, c)}
    histories = {p: [r.match_id for r in results.history(p)] for p in (a, b)}
    desk.restore("m1", "nadia", "appeal upheld", None)
    # then while voided, A's and B's records hold nothing of m1, and once restored every
    # number is what it was
    assert histories == {a: ["m3"], b: ["m2"]}
    assert during[a].wins + during[a].losses + during[a].draws == 1
    assert results.all_rows() == before
