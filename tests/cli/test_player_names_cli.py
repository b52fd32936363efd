"""The read commands show a registered player's name as it is now, by the player's id.

A player takes seat 0, a name-only seat 1; after a rename every read command (``replay`` frames,
``--step``, ``--json``, ``--log``, ``export``, ``matches``) shows the new name, after an
erasure ``deleted player``, and the name-only seat keeps its name. Each command line runs both
through the quick start (cli.quick) and through typer, on a real SQLite file and on PostgreSQL.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.config import PostgresSettings, StoreConfig
from app.service import MatchService
from app.service.players import PlayerService
from app.store.match_store import MatchStore
from cli.main import app
from cli.quick import answer
from domain.players import DELETED_NAME
from tests.app.conftest import postgres_settings, postgres_url

__all__ = ["postgres_settings"]  # the fixture, for the PostgreSQL runs

SQLITE_ENV = {"BASRA_DATABASE_URL": "", "POSTGRES_DBNAME": "", "BASRA_READMODELS": ""}


@dataclass
class Table:
    """A stored match with a registered player on seat 0 and a name-only seat 1."""

    service: MatchService
    players: PlayerService
    player_id: str
    match_id: str
    env: dict[str, str]
    db: list[str]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    """Amal (registered) on seat 0 and Bob (by name) on seat 1 of a dealt match."""
    env = dict(SQLITE_ENV, BASRA_READMODELS=str(tmp_path / "rm.sqlite3"))
    db: list[str] = []
    if request.param == "postgres":
        settings: PostgresSettings = request.getfixturevalue("postgres_settings")
        config = StoreConfig(kind="postgres", postgres=settings)
        env["BASRA_DATABASE_URL"] = postgres_url(settings)
    else:
        path = tmp_path / "basra.db"
        config = StoreConfig(kind="sqlite", sqlite_path=path)
        db = ["--db", str(path)]
    service = MatchService(MatchStore.open(config))
    players = PlayerService(service.store)
    amal = players.register("Amal", "0" * 64)
    service.create_match(ruleset="classic", seats=2, match_id="m-names")
    service.take_seat("m-names", 0, "Amal", player_id=amal.player_id)
    service.take_seat("m-names", 1, "Bob")
    yield Table(service, players, amal.player_id, "m-names", env, db)
    service.close()


def quick(table: Table, args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int | None, str]:
    """(exit status or None when left to typer, stdout) of the quick start."""
    for name, value in table.env.items():
        monkeypatch.setenv(name, value)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    code = answer([*args, *table.db])
    out.flush()
    monkeypatch.undo()
    return code, out.buffer.getvalue().decode()  # type: ignore[attr-defined]


def full(table: Table, args: list[str]) -> str:
    """The stdout of the typer command (exit status 0 checked)."""
    result = CliRunner().invoke(app, [*args, *table.db], env=table.env)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def outputs(table: Table, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Every read command's output, by command line (quick-start forms both ways)."""
    seq = str(len(table.service.events(table.match_id)))
    quick_forms = [
        ["export", table.match_id],
        ["replay", table.match_id, "--step", seq],
        ["replay", table.match_id, "--step", "3", "--json"],
    ]
    shown: dict[str, str] = {}
    for args in quick_forms:
        code, out = quick(table, args, monkeypatch)
        assert code == 0
        shown["quick " + " ".join(args)] = out
        shown[" ".join(args)] = full(table, args)
        assert shown[" ".join(args)] == out
    shown["replay --log"] = full(table, ["replay", table.match_id, "--log"])
    shown["replay --log --json"] = full(table, ["replay", table.match_id, "--log", "--json"])
    shown["replay (frames)"] = (
        CliRunner()
        .invoke(app, ["replay", table.match_id, *table.db], input="n>q", env=table.env)
        .stdout
    )
    shown["matches"] = full(table, ["matches"])
    shown["matches --json"] = full(table, ["matches", "--json"])
    return shown


def test_a_renamed_player_shows_under_the_new_name_in_every_read_command(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given Amal renamed after taking the seat
    player = table.players.load(table.player_id)
    assert player is not None
    table.players.rename(player, "Amal Badr")

    # when every read command runs
    shown = outputs(table, monkeypatch)

    # then each shows the new name, never the old one, and Bob as he sat down
    for command, out in shown.items():
        assert "Amal Badr" in out, command
        assert "Amal" not in out.replace("Amal Badr", ""), command
        assert "Bob" in out, command
    lines = [json.loads(line) for line in shown["export m-names"].splitlines()]
    assert lines[0]["players"] == ["Amal Badr", "Bob"]
    taken = [line for line in lines[1:] if line["type"] == "seat_taken"]
    assert [(t["name"], t.get("player_id")) for t in taken] == [
        ("Amal Badr", table.player_id),
        ("Bob", None),
    ]
    (row,) = json.loads(shown["matches --json"])
    assert row["players"] == ["Amal Badr", "Bob"]


def test_an_erased_name_shows_as_deleted_player_in_every_read_command(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given Amal's name erased after taking the seat
    player = table.players.load(table.player_id)
    assert player is not None
    table.players.erase_name(player)

    # when every read command runs
    shown = outputs(table, monkeypatch)

    # then the name is in none of them: "deleted player" stands in its place
    for command, out in shown.items():
        assert "Amal" not in out, command
        assert DELETED_NAME in out, command
        assert "Bob" in out, command
    (row,) = json.loads(shown["matches --json"])
    assert row["players"] == [DELETED_NAME, "Bob"]


def test_matches_never_answers_from_a_directory_behind_a_rename(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not table.db:
        pytest.skip("the quick start reads the read models of a SQLite store only")
    # given read models brought up to date, so the quick start answers matches from them
    assert "Amal" in full(table, ["matches"])
    code, before = quick(table, ["matches"], monkeypatch)
    assert code == 0 and "\tAmal, Bob\t" in before

    # when Amal renames (the log of matches does not move: only the player's stream does)
    player = table.players.load(table.player_id)
    assert player is not None
    table.players.rename(player, "Amal Badr")

    # then the quick start leaves matches, unprinted, to the path that folds the directory first
    assert quick(table, ["matches"], monkeypatch) == (None, "")
    assert "\tAmal Badr, Bob\t" in full(table, ["matches"])
    # and once folded, the quick start answers again, with the new name
    code, after = quick(table, ["matches"], monkeypatch)
    assert code == 0 and "\tAmal Badr, Bob\t" in after


def test_a_name_only_match_reads_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a match where nobody registered sat down, in a store that has players
    path = tmp_path / "basra.db"
    service = MatchService(MatchStore.open(StoreConfig(kind="sqlite", sqlite_path=path)))
    PlayerService(service.store).register("Bob", "0" * 64)
    service.create_match(ruleset="classic", seats=2, match_id="m-plain")
    service.take_seat("m-plain", 0, "Bob")
    service.take_seat("m-plain", 1, "Cid")
    env = dict(SQLITE_ENV, BASRA_READMODELS=str(tmp_path / "rm.sqlite3"))
    table = Table(service, PlayerService(service.store), "", "m-plain", env, ["--db", str(path)])

    # when export and matches run
    exported = full(table, ["export", "m-plain"])
    listed = json.loads(full(table, ["matches", "--json"]))

    # then the names are as the seats were taken
    assert json.loads(exported.splitlines()[0])["players"] == ["Bob", "Cid"]
    assert listed[0]["players"] == ["Bob", "Cid"]
    service.close()
