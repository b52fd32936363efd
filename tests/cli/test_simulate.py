"""``basra simulate``: bot matches recorded in the store, ids on stdout, replay files exported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from app.service import MatchService
from cli.cmd_simulate import match_seed
from cli.main import app
from domain.events import MatchCreated, MatchEnded
from domain.fairness import secret_from_text_seed
from replays.replay_file import write_replay

runner = CliRunner()


def simulate(db: Path, *extra: str) -> list[str]:
    """Run ``basra simulate`` and return the ids it printed."""
    result = runner.invoke(
        app, ["simulate", "--ruleset", "classic", "--seats", "2", "--db", str(db), *extra]
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout.split()


def test_each_match_is_recorded_and_its_id_printed(tmp_path: Path) -> None:
    # when three matches are simulated from the text seed "demo"
    db = tmp_path / "basra.db"
    ids = simulate(db, "--matches", "3", "--seed", "demo")

    # then stdout holds exactly their ids, one per line, and each is in the store, ended
    assert len(ids) == len(set(ids)) == 3
    service = MatchService.open(db)
    assert service.match_ids() == ids
    for k, match_id in enumerate(ids):
        stream = service.events(match_id)
        created, ended = stream[0].event, stream[-1].event
        assert isinstance(created, MatchCreated) and isinstance(ended, MatchEnded)
        # docs/cli.md (simulate --seed): match k takes "demo" for k = 0 and "demo/k" after it
        assert created.secret == secret_from_text_seed(match_seed("demo", k)).hex()
        assert created.bots == (0, 1)
    service.close()


def test_the_same_seed_records_the_same_matches(tmp_path: Path) -> None:
    first = simulate(tmp_path / "a.db", "--seed", "same", "--bots", "random")
    second = simulate(tmp_path / "b.db", "--seed", "same", "--bots", "random")
    streams = []
    for db, ids in ((tmp_path / "a.db", first), (tmp_path / "b.db", second)):
        service = MatchService.open(db)
        streams.append([r.event for r in service.events(ids[0])][1:])
        service.close()
    assert streams[0] == streams[1]


def test_exported_files_are_the_stored_streams(tmp_path: Path) -> None:
    # when matches are simulated with --export
    db, out = tmp_path / "basra.db", tmp_path / "replays"
    ids = simulate(db, "--matches", "2", "--seed", "x", "--export", str(out))

    # then DIR/ID.jsonl is the replay file of the stream as stored
    service = MatchService.open(db)
    for match_id in ids:
        written = (out / f"{match_id}.jsonl").read_bytes()
        stored = service.events(match_id)
        assert written == write_replay(stored, service.load(match_id).names)
        lines = [json.loads(line) for line in written.splitlines()]
        assert lines[0]["format"] == "basra-replay" and lines[0]["match_id"] == match_id
        assert [line["seq"] for line in lines[1:]] == [r.seq for r in stored]
        assert [line["at"] for line in lines[1:]] == [r.at for r in stored]
    service.close()


def test_bad_options_are_one_line_on_stderr(tmp_path: Path) -> None:
    for extra in (["--bots", "clever"], ["--target", "0"]):
        result = runner.invoke(
            app,
            [
                "simulate",
                "--ruleset",
                "classic",
                "--seats",
                "2",
                "--db",
                str(tmp_path / "b.db"),
                *extra,
            ],
        )
        assert result.exit_code != 0
        assert result.stdout == ""
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_the_installed_command_uses_basra_db_and_keeps_stdout_for_ids(tmp_path: Path) -> None:
    # when the real command runs with BASRA_DB set and no --db, from another folder
    db = tmp_path / "env.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "simulate",
            "--ruleset",
            "egyptian",
            "--seats",
            "4",
            "--matches",
            "2",
            "--seed",
            "env",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env={"BASRA_DB": str(db), "PATH": "/usr/bin:/bin"},
    )

    # then the ids are on stdout alone, the messages on stderr, and the file holds the matches
    assert done.returncode == 0, done.stderr
    ids = done.stdout.split()
    assert len(ids) == 2 and "Traceback" not in done.stderr
    assert "recorded" in done.stderr
    service = MatchService.open(db)
    assert service.match_ids() == ids
    service.close()
    assert not (tmp_path / "basra.db").exists()


def test_json_lists_each_match_with_its_seed_result_and_replay_file(tmp_path: Path) -> None:
    # given two Jordanian 4-seat matches simulated with --json and --export
    db = tmp_path / "basra.db"
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "simulate",
            "--ruleset",
            "jordanian",
            "--seats",
            "4",
            "--bots",
            "random",
            "--matches",
            "2",
            "--seed",
            "js",
            "--export",
            str(out),
            "--db",
            str(db),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.stderr
    # then stdout is one JSON list, one entry a match, that agrees with the store
    listed = json.loads(result.stdout)
    assert [m["seed"] for m in listed] == ["js", "js/1"]
    service = MatchService.open(db)
    try:
        assert [m["match_id"] for m in listed] == service.match_ids()
        for entry in listed:
            state = service.load(entry["match_id"])
            assert (entry["ruleset"], entry["seats"], entry["bots"]) == ("jordanian", 4, "random")
            assert entry["rounds"] == state.round and entry["plays"] == state.plays > 0
            assert tuple(entry["totals"]) == state.totals
            assert entry["winner"] == state.winner and entry["end_reason"] == state.end_reason
            assert entry["target"] == 101
            assert Path(entry["replay_file"]).read_bytes().startswith(b"{")
    finally:
        service.close()
