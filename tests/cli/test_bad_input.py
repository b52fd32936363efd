"""Bad input: one line on stderr, a non-zero exit, and the store as it was."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from app.service import MatchService
from cli.main import app
from domain.events import CardPlayed
from domain.fairness import secret_from_text_seed
from tests.stored_rows import recorded_rows, write_raw_row

runner = CliRunner()


def run(*args: str) -> Result:
    """Run a ``basra`` command in this process."""
    return runner.invoke(app, list(args))


def digest(path: Path) -> str:
    """The store file's bytes, hashed (with its WAL, where SQLite keeps recent commits)."""
    h = hashlib.sha256()
    for part in (path, path.with_name(path.name + "-wal")):
        if part.exists():
            h.update(part.read_bytes())
    return h.hexdigest()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with a bot match played to its end and a match that ended by forfeit."""
    path = tmp_path / "basra.db"
    service = MatchService.open(path)
    service.create_match(
        ruleset="classic",
        seats=2,
        bots=(0, 1),
        secret=secret_from_text_seed("b1"),
        match_id="m-bot",
    )
    service.create_match(
        ruleset="classic", seats=2, bots=(1,), secret=secret_from_text_seed("b2"), match_id="m-left"
    )
    service.take_seat("m-left", 0, "ann", token_id="t", token_hash="f" * 64)
    service.leave("m-left", 0)
    service.close()
    run("matches", "--db", str(path))  # the read models exist before the refusals below
    return path


def one_line_error(result: Result, code: int) -> str:
    """The single stderr line of a refused command, after checking its exit status."""
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output
    return result.stderr


def test_matches_has_a_header_and_says_how_each_match_ended(db: Path) -> None:
    result = run("matches", "--db", str(db))
    assert result.exit_code == 0, result.output
    header, *lines = [line.split("\t") for line in result.stdout.splitlines()]
    rows = {line[0]: dict(zip(header, line, strict=True)) for line in lines}
    assert rows["m-left"]["RESULT"] == "side 1 won (forfeit)"
    assert rows["m-bot"]["RESULT"].endswith("(target)")
    assert rows["m-bot"]["PROBLEM"] == rows["m-left"]["PROBLEM"] == "-"


def test_matches_flags_a_play_that_cannot_be_read(db: Path) -> None:
    # given a stored card_played whose JSON is damaged
    with sqlite3.connect(db) as connection:
        first_play = next(
            r.seq for r in recorded_rows(connection, "m-bot") if isinstance(r.event, CardPlayed)
        )
        write_raw_row(
            connection,
            "m-bot",
            first_play,
            b'{"event": {"type": "card_played", "seat": "x"',
            topic="basra:card_played",
        )
    # when the matches are listed again from the log, in plain text and as JSON
    assert run("projections", "rebuild", "--db", str(db)).exit_code == 0
    text = run("matches", "--db", str(db))
    as_json = run("matches", "--db", str(db), "--json")
    # then both name the problem of that match, and only of that one
    line = next(x for x in text.stdout.splitlines() if x.startswith("m-bot\t"))
    assert "cannot be read" in line.split("\t")[-1]
    assert "m-left\t" in text.stdout and "cannot be read" not in (
        next(x for x in text.stdout.splitlines() if x.startswith("m-left\t"))
    )
    assert '"problem":"match m-bot: stored event seq' in as_json.stdout


READ_COMMANDS = [
    ["matches"],
    ["matches", "--json"],
    ["replay", "m-bot", "--step", "3"],
    ["export", "m-bot"],
    ["verify", "m-bot"],
    ["verify", "--all"],
    ["projections", "status"],
    ["projections", "rebuild"],
]


@pytest.mark.parametrize("args", READ_COMMANDS)
def test_a_read_command_refuses_a_store_that_does_not_exist(
    tmp_path: Path, args: list[str]
) -> None:
    missing = tmp_path / "typo.db"
    message = one_line_error(run(*args, "--db", str(missing)), 1)
    assert f"no store at {missing}" in message
    assert list(tmp_path.iterdir()) == []  # no store, no read models, nothing


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["matches", "--status", "bogus"], "unknown status 'bogus'"),
        (["replay", "m-bot", "--as", "-1", "--step", "2"], "--as takes a seat number from 0"),
        (["export", "m-bot", "--as", "-1"], "--as takes a seat number from 0"),
        (["replay", "m-bot", "--as", "2", "--step", "2"], "seat 2 is not a seat of this match"),
        (["export", "m-bot", "--as", "2"], "seat 2 is not a seat of this match"),
        (["matches", "--limit", "0"], "Invalid value for '--limit'"),
        (["matches", "--bogus"], "No such option: --bogus"),
        (["export"], "Missing argument 'match_id'"),
    ],
)
def test_a_bad_filter_or_viewer_is_one_line_and_changes_nothing(
    db: Path, args: list[str], words: str
) -> None:
    before = digest(db)
    result = run(*args, "--db", str(db))
    assert result.exit_code != 0
    message = one_line_error(result, result.exit_code)
    assert words in message
    assert digest(db) == before


def test_a_viewer_is_refused_in_the_same_words_by_replay_and_export(db: Path) -> None:
    for seat in ("-1", "2"):
        replay = run("replay", "m-bot", "--as", seat, "--step", "2", "--db", str(db))
        export = run("export", "m-bot", "--as", seat, "--db", str(db))
        assert replay.stderr == export.stderr and replay.exit_code == export.exit_code != 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--ruleset", "bogus", "--seats", "2"], "bogus"),
        (["--ruleset", "classic", "--seats", "3"], "seat"),
        (["--ruleset", "classic", "--seats", "2", "--bots", "clever"], "unknown bot kind"),
        (["--ruleset", "classic", "--seats", "2", "--target", "0"], "target"),
        (["--seats", "2"], "Missing option '--ruleset'"),
    ],
)
def test_a_refused_simulation_creates_nothing(tmp_path: Path, args: list[str], words: str) -> None:
    store, out = tmp_path / "new.db", tmp_path / "out"
    result = run("simulate", *args, "--export", str(out), "--db", str(store))
    assert result.exit_code != 0
    assert words in one_line_error(result, result.exit_code)
    assert list(tmp_path.iterdir()) == []


def test_an_export_folder_that_is_a_file_is_said_in_words(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("not a folder\n")
    store = tmp_path / "new.db"
    result = run(
        "simulate",
        "--ruleset",
        "classic",
        "--seats",
        "2",
        "--export",
        str(tmp_path / "README.md"),
        "--db",
        str(store),
    )
    message = one_line_error(result, 2)
    assert "README.md is a file" in message and "Errno" not in message
    assert not store.exists()


def test_an_output_that_cannot_be_written_is_said_in_words(db: Path, tmp_path: Path) -> None:
    result = run(
        "export", "m-bot", "--db", str(db), "--output", str(tmp_path / "no" / "such" / "f.jsonl")
    )
    message = one_line_error(result, 1)
    assert "no such file or directory" in message and "Errno" not in message
