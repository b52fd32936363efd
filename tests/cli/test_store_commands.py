"""``basra matches``, ``basra export`` and ``basra projections`` against a real store file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.config import PostgresSettings
from app.service import MatchService
from cli.main import app
from domain.fairness import secret_from_text_seed
from replays.replay_file import write_replay
from tests.app.conftest import postgres_settings, postgres_url  # noqa: F401  (fixture)

runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with an ended bot match, a match in play and a waiting one."""
    path = tmp_path / "basra.db"
    service = MatchService.open(path)
    service.create_match(
        ruleset="classic",
        seats=2,
        bots=(0, 1),
        secret=secret_from_text_seed("c1"),
        match_id="m-ended",
    )
    service.create_match(
        ruleset="lebanese",
        seats=2,
        bots=(1,),
        secret=secret_from_text_seed("c2"),
        match_id="m-play",
    )
    service.take_seat("m-play", 0, "ann", token_id="t1", token_hash="f" * 64)
    service.create_match(ruleset="yemeni", seats=4, bots=(1,), match_id="m-wait")
    service.close()
    return path


def run(*args: str) -> tuple[int, str, str]:
    """Run a ``basra`` command; (exit code, stdout, stderr)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_matches_lists_every_recorded_match(db: Path) -> None:
    code, out, err = run("matches", "--db", str(db), "--json")
    assert code == 0, err
    rows = {row["match_id"]: row for row in json.loads(out)}
    assert set(rows) == {"m-ended", "m-play", "m-wait"}
    assert rows["m-ended"]["status"] == "ended" and rows["m-ended"]["winner"] in (0, 1)
    assert rows["m-play"]["players"] == ["ann", "easy bot"]
    assert rows["m-wait"]["status"] == "waiting" and rows["m-wait"]["seats"] == 4
    for row in rows.values():
        for field in (
            "ruleset",
            "seats",
            "status",
            "players",
            "bots",
            "created",
            "ended",
            "winner",
            "totals",
            "rounds",
            "plays",
        ):
            assert field in row

    # the plain listing has a header, then one line per match, newest first
    code, out, _ = run("matches", "--db", str(db))
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0][:4] == ["MATCH", "RULESET", "SEATS", "STATUS"]
    assert [line[0] for line in lines[1:]] == ["m-wait", "m-play", "m-ended"]
    assert all(len(line) == len(lines[0]) for line in lines)
    code, out, _ = run("matches", "--db", str(db), "--status", "ended", "--json")
    assert [row["match_id"] for row in json.loads(out)] == ["m-ended"]


def test_matches_follow_new_appends(db: Path) -> None:
    run("matches", "--db", str(db))
    service = MatchService.open(db)
    service.take_seat("m-wait", 0, "bo")
    service.take_seat("m-wait", 2, "cy")
    service.take_seat("m-wait", 3, "di")
    service.close()
    _, out, _ = run("matches", "--db", str(db), "--json")
    rows = {row["match_id"]: row for row in json.loads(out)}
    assert rows["m-wait"]["status"] == "playing"
    assert rows["m-wait"]["players"] == ["bo", "easy bot", "cy", "di"]


def test_rebuild_gives_identical_results(db: Path) -> None:
    _, before, _ = run("matches", "--db", str(db), "--json")
    code, out, err = run("projections", "rebuild", "--db", str(db), "--snapshots")
    assert code == 0 and out == ""
    assert "rebuilt the read models" in err
    _, after, _ = run("matches", "--db", str(db), "--json")
    assert json.loads(after) == json.loads(before)
    code, out, _ = run("projections", "status", "--db", str(db), "--json")
    status = json.loads(out)
    assert status["position"] == status["log"] > 0


def test_export_writes_the_stored_stream(db: Path, tmp_path: Path) -> None:
    # a finished match: everything, seed included
    target = tmp_path / "ended.jsonl"
    code, _, err = run("export", "m-ended", "--db", str(db), "--output", str(target))
    assert code == 0, err
    service = MatchService.open(db)
    stored = service.events("m-ended")
    assert target.read_bytes() == write_replay(stored, service.load("m-ended").names)
    header = json.loads(target.read_bytes().splitlines()[0])
    assert header["seed"] == secret_from_text_seed("c1").hex()

    # a match in play, for seat 0: its own hand, the bot's hidden, no seed (R23)
    code, out, _ = run("export", "m-play", "--db", str(db), "--as", "0")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["seed"] is None
    deals = [line for line in lines[1:] if line["type"] == "cards_dealt"]
    assert deals and all(d["hands"][1] is None and d["hands"][0] for d in deals)
    assert all(line.get("secret") is None for line in lines[1:])
    assert all("token_hash" not in line or line["token_hash"] is None for line in lines[1:])

    # the same match for support: every hand, still no seed, and who caused each event
    code, out, _ = run("export", "m-play", "--db", str(db), "--support")
    lines = [json.loads(line) for line in out.splitlines()]
    deals = [line for line in lines[1:] if line["type"] == "cards_dealt"]
    assert lines[0]["seed"] is None and all(d["hands"][1] for d in deals)
    assert all("caused_by" in line for line in lines[1:])
    service.close()


def test_export_errors_are_one_line(db: Path) -> None:
    for args in (
        ["export", "nope"],
        ["export", "m-play", "--as", "5"],
        ["export", "m-play", "--as", "0", "--support"],
    ):
        code, out, err = run(*args, "--db", str(db))
        assert code != 0 and out == ""
        assert err.startswith("error: ") and err.count("\n") == 1


def test_every_store_command_has_help() -> None:
    for args in (
        ["matches"],
        ["export"],
        ["projections", "rebuild"],
        ["projections", "status"],
        ["simulate"],
    ):
        code, out, _ = run(*args, "--help")
        assert code == 0 and "--db" in out


@pytest.mark.postgres
def test_the_commands_run_on_postgres_when_configured(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # given BASRA_DATABASE_URL naming a PostgreSQL schema, and a local read-model file
    settings: PostgresSettings = request.getfixturevalue("postgres_settings")
    env = {
        "BASRA_DATABASE_URL": postgres_url(settings),
        "BASRA_READMODELS": str(tmp_path / "cache.sqlite3"),
    }
    unused = tmp_path / "unused.db"

    # when matches are simulated, listed and exported
    sim = runner.invoke(
        app,
        [
            "simulate",
            "--ruleset",
            "jordanian",
            "--seats",
            "2",
            "--matches",
            "2",
            "--seed",
            "pg",
            "--db",
            str(unused),
        ],
        env=env,
    )
    assert sim.exit_code == 0, sim.stderr
    ids = sim.stdout.split()
    listed = runner.invoke(app, ["matches", "--json"], env=env)
    exported = runner.invoke(app, ["export", ids[0]], env=env)

    # then everything went through PostgreSQL (no SQLite file was created)
    assert sorted(row["match_id"] for row in json.loads(listed.stdout)) == sorted(ids)
    assert json.loads(exported.stdout.splitlines()[0])["match_id"] == ids[0]
    assert not unused.exists()
    service = MatchService.open(database_url=env["BASRA_DATABASE_URL"])
    assert service.match_ids() == ids
    service.close()


def _documented_matches_output() -> list[list[str]]:
    """The lines docs/cli.md shows under ``$ basra matches``, split at their tabs."""
    text = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("### `basra matches`", 1)[1].split("\n### ", 1)[0]
    block = section.split("$ basra matches\n", 1)[1].split("```", 1)[0]
    return [line.split("\t") for line in block.splitlines()]


def test_the_documented_matches_listing_is_what_basra_matches_prints(db: Path) -> None:
    # given what basra matches prints for a store of ended, playing and waiting matches
    code, out, err = run("matches", "--db", str(db))
    assert code == 0, err
    printed = [line.split("\t") for line in out.splitlines()]
    # when docs/cli.md's example of it is read
    header, *rows = _documented_matches_output()
    # then it has the same header, and each line has its columns in the same forms
    assert header == printed[0]
    assert rows
    column = {name: i for i, name in enumerate(header)}
    for row in rows + printed[1:]:
        assert len(row) == len(header), row
        assert row[column["SEATS"]] in ("2", "4"), row
        assert row[column["STATUS"]] in ("waiting", "playing", "ended"), row
        assert re.fullmatch(r"\d+-\d+", row[column["TOTALS"]]), row
        result = row[column["RESULT"]]
        if row[column["STATUS"]] == "ended":
            reasons = "target|round_limit|forfeit|timeout|abandoned"
            assert re.fullmatch(rf"(side [01] won|draw) \(({reasons})\)", result), row
        else:
            assert result == "-", row
        assert row[column["ROUNDS"]].isdigit() and row[column["PLAYS"]].isdigit(), row
    # and the example shows a match whose stream has a problem, as PROBLEM names it
    problems = [row[column["PROBLEM"]] for row in rows if row[column["PROBLEM"]] != "-"]
    assert problems and all("cannot be read" in problem for problem in problems)
