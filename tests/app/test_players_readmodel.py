"""The players read models: the directory and each player's matches, live and rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.readmodels.models import ReadModels
from app.service import MatchService
from app.service.players import PlayerService
from domain.players import DELETED_NAME

OPS = st.lists(
    st.sampled_from(["register", "rename", "erase", "seat", "play", "leave"]),
    min_size=1,
    max_size=12,
)


def _apply(service: MatchService, players: PlayerService, ops: list[str], tag: str) -> None:
    """Registrations, renames, erasures, seats taken by players, plays and leaves, in order."""
    ids: list[str] = []
    open_matches: list[str] = []
    for k, op in enumerate(ops):
        if op == "register" or not ids:
            ids.append(players.register(f"P{k}", "0" * 64).player_id)
        pid = ids[k % len(ids)]
        if op == "rename":
            player = players.load(pid)
            assert player is not None
            players.rename(player, f"R{k}")
        elif op == "erase":
            player = players.load(pid)
            if player is not None and player.name is not None:
                players.erase_name(player)
        elif op == "seat":
            match_id = f"m-{tag}-{k}"
            service.create_match(ruleset="classic", seats=2, bots=(1,), match_id=match_id)
            service.take_seat(match_id, 0, f"P{k}", player_id=pid)
            open_matches.append(match_id)
        elif op == "play" and open_matches:
            state = service.load(open_matches[-1])
            if state.status == "playing" and state.turn == 0:
                service.play_card(open_matches[-1], 0, state.hands[0][0])
        elif op == "leave" and open_matches:
            service.leave(open_matches.pop(), 0)


def test_rows_say_where_players_sit_whose_turn_it_is_and_their_names(
    service: MatchService, tmp_path: Path
) -> None:
    # given two players at one match, one of whom then renames and the other erases their name
    players = PlayerService(service.store)
    amal = players.register("Amal", "0" * 64)
    badr = players.register("Badr", "1" * 64)
    service.create_match(ruleset="classic", seats=2, match_id="m-pair", turn_seconds=60)
    service.take_seat("m-pair", 0, "Amal", player_id=amal.player_id)
    service.take_seat("m-pair", 1, "Badr", player_id=badr.player_id)
    players.rename(amal, "Amal B")
    players.erase_name(badr)
    read = ReadModels(tmp_path / "rm.sqlite3", service.store)

    # when the read models catch up
    read.catch_up()

    # then each player's row has the seat, the status and whose turn it is, and names are now's
    state = service.load("m-pair")
    (mine,) = read.player_matches(amal.player_id)
    (theirs,) = read.player_matches(badr.player_id)
    assert (mine.seat, theirs.seat) == (0, 1)
    assert mine.status == theirs.status == state.status == "playing"
    assert mine.turn == theirs.turn == state.turn
    assert mine.deadline == theirs.deadline == state.deadline
    assert state.deadline is not None  # R25: a person is on turn, so a clock runs
    assert read.shown_names([amal.player_id, badr.player_id]) == {
        amal.player_id: "Amal B",
        badr.player_id: DELETED_NAME,
    }

    # when the player on turn plays, then the turn moves on in both rows
    assert state.turn is not None
    service.play_card("m-pair", state.turn, state.hands[state.turn][0])
    read.catch_up()
    after = service.load("m-pair")
    assert read.player_matches(amal.player_id)[0].turn == after.turn
    assert read.player_matches(amal.player_id)[0].deadline == after.deadline
    read.close()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_a_rebuild_gives_what_following_live_gave(
    tmp_path_factory: pytest.TempPathFactory, ops: list[str]
) -> None:
    # given a store where players register, rename, erase, sit, play and leave, and a read
    # model that caught up after every step
    from app.store.match_store import MatchStore

    root = tmp_path_factory.mktemp("live")
    service = MatchService(MatchStore.sqlite(root / "b.db"))
    players = PlayerService(service.store)
    live = ReadModels(root / "live.sqlite3", service.store)
    for k in range(len(ops)):
        _apply(service, players, ops[k : k + 1], f"s{k}")
        live.catch_up()

    # when another file is rebuilt from nothing
    fresh = ReadModels(root / "fresh.sqlite3", service.store)
    fresh.rebuild()

    # then both hold the same players and the same player rows
    assert live.player_rows() == fresh.player_rows()
    live.close()
    fresh.close()


def test_a_rebuild_stopped_mid_batch_resumes_without_counting_twice(
    service: MatchService, tmp_path: Path
) -> None:
    # given players at several matches, and a catch-up that fails halfway through the log
    players = PlayerService(service.store)
    _apply(service, players, ["register", "seat", "play", "seat", "leave", "rename", "seat"], "k")
    read = ReadModels(tmp_path / "rm.sqlite3", service.store, batch_size=4)
    seen = [0]
    half = service.store.max_position() // 2
    assert half > 6

    def stop_halfway(_entry: object) -> None:
        seen[0] += 1
        if seen[0] == half:
            raise OSError("killed")

    with pytest.raises(OSError):
        read.catch_up(after_entry=stop_halfway)

    assert 0 < read.position() < service.store.max_position()

    # when it resumes, then it ends where a rebuild from nothing does
    read.catch_up()
    fresh = ReadModels(tmp_path / "fresh.sqlite3", service.store)
    fresh.rebuild()
    assert read.player_rows() == fresh.player_rows()
    assert read.position() == fresh.position() == service.store.max_position()
    read.close()
    fresh.close()
