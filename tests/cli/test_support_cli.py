"""``basra support``: agents added, listed and revoked; the access trail shown newest first."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.api.edges.tokens import hash_token
from app.service import MatchService
from app.service.access import AccessService
from cli.main import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_add_prints_a_token_whose_hash_alone_is_stored_and_revoke_ends_it(tmp_path: Path) -> None:
    db = str(tmp_path / "basra.db")

    code, out, err = _run("support", "add", "nadia", "--db", db)

    assert code == 0 and "nadia" in err
    token = out.strip()
    assert token.startswith("agent_") and len(token) >= len("agent_") + 43
    service = MatchService.open(Path(db))
    try:
        access = AccessService(service.store)
        found = access.agent_of(hash_token(token))
        assert found is not None and found.active
        assert _run("support", "revoke", "nadia", "--db", db)[0] == 0
        found = access.agent_of(hash_token(token))
        assert found is not None and not found.active
    finally:
        service.close()
    listed = json.loads(_run("support", "list", "--db", db, "--json")[1])
    assert [(a["name"], a["revoked"] is not None) for a in listed] == [("nadia", True)]
    assert token not in _run("support", "list", "--db", db)[1]


def test_bad_names_and_unknown_agents_are_one_line_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "basra.db")
    for name in ("env", "Bad Name", "x" * 33):
        code, out, err = _run("support", "add", name, "--db", db)
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
        assert "Traceback" not in err
    code, _, err = _run("support", "revoke", "ghost", "--db", db)
    assert code == 1 and "no active agent" in err and len(err.strip().splitlines()) == 1


def test_log_shows_the_trail_newest_first_under_a_header_and_filters(tmp_path: Path) -> None:
    db = tmp_path / "basra.db"
    service = MatchService.open(db)
    try:
        access = AccessService(service.store)
        access.add_agent("nadia", "h")
        access.record_access("nadia", "m-1", "view", "req-1")
        access.record_access("env", "m-2", "replay", "req-2")
    finally:
        service.close()

    code, out, _ = _run("support", "log", "--db", str(db))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["AT", "AGENT", "MATCH", "WHAT", "REQUEST"]
    assert [line.split()[1:4] for line in lines[1:]] == [
        ["env", "m-2", "replay"],
        ["nadia", "m-1", "view"],
    ]
    only = json.loads(_run("support", "log", "--db", str(db), "--agent", "nadia", "--json")[1])
    assert [(r["agent"], r["match_id"], r["what"]) for r in only] == [("nadia", "m-1", "view")]
    by_match = json.loads(_run("support", "log", "--db", str(db), "--match", "m-2", "--json")[1])
    assert [r["request_id"] for r in by_match] == ["req-2"]


def test_every_support_command_has_help() -> None:
    for command in ("add", "revoke", "list", "log"):
        code, out, _ = _run("support", command, "--help")
        assert code == 0 and "Usage" in out
