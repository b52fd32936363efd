"""``basra ladder``, ``basra player ID`` and ``basra projections rebuild`` over results (R27)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.service import MatchService
from app.service.players import PlayerService
from cli.main import app
from tests.app.results_helpers import finished_match, register

ENV = {"BASRA_DATABASE_URL": "", "POSTGRES_DBNAME": "", "BASRA_READMODELS": ""}


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, list[str], str]:
    """A SQLite store where Amal and Badr played one public and one private match."""
    db = tmp_path / "basra.db"
    service = MatchService.open(db)
    players = PlayerService(service.store)
    ids = register(players, "Amal", "Badr")
    finished_match(service, "m-public", list(ids))
    service.create_match(ruleset="classic", seats=2, target=1, match_id="m-private", private=True)
    for seat, pid in enumerate(ids):
        service.take_seat("m-private", seat, f"S{seat}", player_id=pid)
    from tests.app.results_helpers import play_to_end

    play_to_end(service, "m-private")
    winner = service.load("m-public").winner
    service.close()
    assert winner is not None
    return db, ids, ids[winner]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=ENV)
    return result.exit_code, result.output


def test_ladder_and_player_list_results_with_match_ids(
    stored: tuple[Path, list[str], str],
) -> None:
    db, ids, _ = stored
    code, out = run("ladder", "--db", str(db), "--json")
    assert code == 0, out
    ladder = json.loads(out)["players"]
    assert sorted(p["player_id"] for p in ladder) == sorted(ids)
    assert [p["rank"] for p in ladder] == [1, 2]
    # an operator sees every result with its match id, the private table too
    code, out = run("player", ids[0], "--db", str(db), "--json")
    assert code == 0, out
    shown = json.loads(out)
    assert shown["name"] == "Amal" and shown["rated_matches"] == 2
    assert {m["match_id"] for m in shown["matches"]} == {"m-public", "m-private"}
    assert shown["points"] == sum(m["points"] for m in shown["matches"])
    code, text = run("player", ids[0], "--db", str(db))
    assert code == 0 and "m-private" in text and "Amal" in text
    code, text = run("ladder", "--db", str(db))
    assert code == 0 and text.splitlines()[0].startswith("RANK")


def test_rebuild_gives_identical_numbers(stored: tuple[Path, list[str], str]) -> None:
    db, ids, _ = stored
    before = [run("player", pid, "--db", str(db), "--json")[1] for pid in ids]
    code, out = run("projections", "rebuild", "--db", str(db))
    assert code == 0, out
    assert "rebuilt the results" in out
    assert [run("player", pid, "--db", str(db), "--json")[1] for pid in ids] == before


@pytest.mark.parametrize(
    ("player_id", "words"),
    [("Amal", "not a player id"), ("p-0123456789abcdef", "no player")],
)
def test_bad_ids_are_one_line_errors(
    stored: tuple[Path, list[str], str], player_id: str, words: str
) -> None:
    db, _, _ = stored
    code, out = run("player", player_id, "--db", str(db))
    assert code == 1
    assert words in out and "Traceback" not in out
