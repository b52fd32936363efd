"""``basra support`` desk commands: cases read with player text made harmless, actions that
need a named agent and a reason, a void that takes the points back, suspension and lifting."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.service import MatchService
from app.service.desk_open import open_desk
from app.service.players import PlayerService
from cli.main import app
from tests.app.results_helpers import finished_match, register

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _store(tmp_path: Path) -> tuple[str, list[str], str]:
    """A store with a finished rated match between A and B, reported by A with hostile text."""
    db = tmp_path / "basra.db"
    service = MatchService.open(db)
    try:
        players = PlayerService(service.store)
        ids = register(players, "A", "B")
        finished_match(service, "m1", list(ids), "target")
        _, desk = open_desk(service.store, players)
        case_id = desk.file_report(ids[0], "m1", "cheating", "look \x1b[2J\x07 here")
    finally:
        service.close()
    assert _run("support", "add", "nadia", "--db", str(db))[0] == 0
    return str(db), ids, case_id


def test_a_case_is_printed_with_control_characters_made_visible(tmp_path: Path) -> None:
    db, _, case_id = _store(tmp_path)
    code, out, _ = _run("support", "case", case_id, "--db", db)
    assert code == 0
    assert "look \\x1b[2J\\x07 here" in out and "\x1b" not in out and "\x07" not in out
    listed = json.loads(_run("support", "cases", "--status", "open", "--db", db, "--json")[1])
    assert [c["case_id"] for c in listed] == [case_id]


def test_changing_commands_need_an_agent_and_a_reason_and_append_nothing_without(
    tmp_path: Path,
) -> None:
    db, ids, _ = _store(tmp_path)
    no_reason = _run("support", "suspend", ids[1], "--agent", "nadia", "--db", db)
    no_agent = _run("support", "suspend", ids[1], "--reason", "abuse", "--db", db)
    assert no_reason[0] == 1 and "reason" in no_reason[2] and len(no_reason[2].splitlines()) == 1
    assert no_agent[0] == 1 and "--agent" in no_agent[2]
    page = json.loads(_run("support", "player", ids[1], "--db", db, "--json")[1])
    assert page["sanctions"] == [] and page["suspension"] is None


def test_void_takes_the_points_back_and_restore_puts_them_back(tmp_path: Path) -> None:
    db, ids, case_id = _store(tmp_path)
    before = json.loads(_run("support", "player", ids[0], "--db", db, "--json")[1])["profile"]

    voided = _run(
        "support",
        "void",
        "m1",
        "--reason",
        "collusion",
        "--agent",
        "nadia",
        "--case",
        case_id,
        "--db",
        db,
    )
    during = json.loads(_run("support", "player", ids[0], "--db", db, "--json")[1])["profile"]
    restored = _run(
        "support", "restore", "m1", "--reason", "appeal", "--agent", "nadia", "--db", db
    )
    after = json.loads(_run("support", "player", ids[0], "--db", db, "--json")[1])["profile"]

    assert voided[0] == 0 and restored[0] == 0
    assert before["points"] > 0 and during["points"] == 0 and during["rated_matches"] == 0
    assert after == before
    case = json.loads(_run("support", "case", case_id, "--db", db, "--json")[1])
    assert [(a["action"], a["agent"], a["reason"]) for a in case["actions"]] == [
        ("void", "nadia", "collusion")
    ]


def test_suspend_until_a_utc_time_then_lift(tmp_path: Path) -> None:
    db, ids, _ = _store(tmp_path)
    until = "2999-01-01T00:00:00.000000Z"
    bad = _run(
        "support",
        "suspend",
        ids[1],
        "--until",
        "tomorrow",
        "--reason",
        "x",
        "--agent",
        "nadia",
        "--db",
        db,
    )
    good = _run(
        "support",
        "suspend",
        ids[1],
        "--until",
        until,
        "--reason",
        "abuse",
        "--agent",
        "nadia",
        "--db",
        db,
        "--json",
    )
    assert bad[0] == 1 and "until" in bad[2]
    assert good[0] == 0 and json.loads(good[1])["target"] == ids[1]
    page = json.loads(_run("support", "player", ids[1], "--db", db, "--json")[1])
    assert page["suspension"]["until"] == until
    lifted = _run("support", "lift", ids[1], "--reason", "appeal", "--agent", "nadia", "--db", db)
    assert lifted[0] == 0
    again = _run("support", "lift", ids[1], "--reason", "appeal", "--agent", "nadia", "--db", db)
    assert again[0] == 1 and len(again[2].strip().splitlines()) == 1
