"""``basra verify`` and ``basra import`` judge a recorded name by the rule it was recorded under.

The store and the replay file in tests/data (old_names.md) were written by a build whose name
rule let through names the rule refuses today (fillers, a variation selector, a grapheme joiner,
small capitals posing as a bot, the erased-player placeholder). Both still verify and import,
on a SQLite file and on PostgreSQL.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from app.config import PostgresSettings
from cli.main import app
from tests.app.conftest import postgres_settings, postgres_url
from tests.migrated import migrated_copy

__all__ = ["postgres_settings"]  # the fixture, for the PostgreSQL runs

DATA = Path(__file__).parent.parent / "data"
IDS = ["old-names-people", "old-names-fillers", "old-names-player", "old-names-erased"]
ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    """``basra ARGS`` through typer's CliRunner, with stdout and stderr apart."""
    return CliRunner().invoke(app, list(args), env={**ISOLATED, **(env or {})})


def test_verify_all_finds_every_match_of_old_names_clean(tmp_path: Path) -> None:
    # given a migrated copy of the store written under the earlier name rule
    db = migrated_copy("old_names.db", tmp_path / "old_names.db")

    # when every match is verified
    verified = run("verify", "--all", "--json", "--db", str(db))

    # then each is clean: the chain, the deals, every play and every seat's name
    assert verified.exit_code == 0, verified.output
    results = json.loads(verified.stdout)
    assert [(r["match_id"], r["ok"]) for r in results] == [(i, True) for i in IDS]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_args(
    request: pytest.FixtureRequest, tmp_path: Path
) -> tuple[list[str], dict[str, str | None]]:
    """(``--db`` options, environment) of an empty store: a SQLite file or a PostgreSQL schema."""
    if request.param == "postgres":
        settings: PostgresSettings = request.getfixturevalue("postgres_settings")
        return [], {"BASRA_DATABASE_URL": postgres_url(settings)}
    return ["--db", str(tmp_path / "imported.db")], {}


def test_a_replay_file_of_old_names_imports_and_verifies(
    store_args: tuple[list[str], dict[str, str | None]],
) -> None:
    db, env = store_args
    # when the file exported under the earlier rule is imported
    imported = run(
        "import", str(DATA / "old_names_people.jsonl"), "--id", "m-old", "--json", *db, env=env
    )

    # then it is stored whole, and verifies with its names as recorded
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["first_created_as"] == "old-names-people"
    verified = run("verify", "m-old", "--json", *db, env=env)
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout)[0]["ok"] is True
    exported = run("export", "m-old", *db, env=env)
    header = json.loads(exported.stdout.splitlines()[0])
    assert header["players"] == [
        "easy bot\u3164",
        "easy \u0299\u1d0f\u1d1b",
        "deleted player",
        "a\u034fb",
    ]
