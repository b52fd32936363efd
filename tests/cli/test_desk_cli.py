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
from domain.events import MatchEnded
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


def _in_play(tmp_path: Path) -> tuple[str, list[str], str]:
    """A store with a match ``m2`` in play between A and B (one card played), reported by B."""
    from tests.app.results_helpers import play_once, seat_all

    db, ids, _ = _store(tmp_path)
    service = MatchService.open(Path(db))
    try:
        seat_all(service, "m2", list(ids))
        play_once(service, "m2")
        _, desk = open_desk(service.store, PlayerService(service.store))
        case_id = desk.file_report(ids[1], "m2", "abuse", "insults")
    finally:
        service.close()
    return db, ids, case_id


def test_forfeit_ends_a_suspended_players_match_as_a_loss_of_their_side(tmp_path: Path) -> None:
    # given A suspended while in a match in play against B
    db, ids, case_id = _in_play(tmp_path)
    agent = ("--agent", "nadia", "--db", db)
    assert _run("support", "suspend", ids[0], "--reason", "abuse", *agent)[0] == 0

    # when the agent ends the match as a forfeit of A's side, for the case
    code, out, err = _run(
        "support", "forfeit", "m2", "--player", ids[0], "--reason", "suspended", "--case",
        case_id, *agent, "--json",
    )  # fmt: skip

    # then the match ended as a leave ends it, and the result is A's loss, B's win
    assert code == 0, err
    done = json.loads(out)
    assert (done["done"], done["seat"], done["player_id"]) == ("forfeit", 0, ids[0])
    service = MatchService.open(Path(db))
    try:
        last = service.events("m2")[-1]
        assert isinstance(last.event, MatchEnded) and last.caused_by == "support:nadia"
        assert (last.event.winner, last.event.reason, last.event.seat) == (1, "forfeit", 0)
    finally:
        service.close()
    pages = [json.loads(_run("support", "player", i, "--db", db, "--json")[1]) for i in ids]
    outcomes = [[r["outcome"] for r in p["results"] if r["match_id"] == "m2"] for p in pages]
    assert outcomes == [["loss"], ["win"]]
    assert [s["type"] for s in pages[0]["sanctions"]] == ["player_suspended", "side_forfeited"]
    case = json.loads(_run("support", "case", case_id, "--db", db, "--json")[1])
    assert [(a["action"], a["reason"]) for a in case["actions"]] == [("forfeit", "suspended")]

    # and a second forfeit of the ended match is one line, exit 1, nothing appended
    again = _run("support", "forfeit", "m2", "--player", ids[0], "--reason", "x", *agent)
    assert again[0] == 1 and "match_ended" not in again[1]
    assert len(again[2].strip().splitlines()) == 1 and "ended" in again[2]
    page = json.loads(_run("support", "player", ids[0], "--db", db, "--json")[1])
    assert len(page["sanctions"]) == 2


def test_forfeit_is_refused_for_a_player_not_seated_or_without_a_reason(tmp_path: Path) -> None:
    db, ids, _ = _in_play(tmp_path)
    agent = ("--agent", "nadia", "--db", db)
    no_reason = _run("support", "forfeit", "m2", "--player", ids[0], *agent)
    stranger = _run("support", "forfeit", "m2", "--player", "p-nobody", "--reason", "x", *agent)
    assert no_reason[0] == 1 and "reason" in no_reason[2]
    assert stranger[0] == 1 and "holds no seat" in stranger[2]
    service = MatchService.open(Path(db))
    try:
        assert service.load("m2").status == "playing"
    finally:
        service.close()


def test_pin_takes_a_seq_or_a_refused_request_and_exactly_one(tmp_path: Path) -> None:
    db, _, case_id = _store(tmp_path)
    agent = ("--agent", "nadia", "--db", db)
    by_seq = _run("support", "pin", case_id, "--seq", "7", "--reason", "the clock's play", *agent)
    by_id = _run("support", "pin", case_id, "--refused", "req-1", "--reason", "late", *agent)
    both = _run("support", "pin", case_id, "--seq", "7", "--refused", "r", "--reason", "x", *agent)
    none = _run("support", "pin", case_id, "--reason", "x", *agent)
    blank = _run("support", "pin", case_id, "--seq", "3", "--reason", " ", *agent)
    assert by_seq[0] == 0 and by_id[0] == 0, (by_seq, by_id)
    assert "pin" in by_seq[1] and "seq:7 (the clock's play)" in by_seq[1]
    assert both[0] == 1 and none[0] == 1 and blank[0] == 1
    case = json.loads(_run("support", "case", case_id, "--db", db, "--json")[1])
    assert [(p["evidence"], p["agent"]) for p in case["pins"]] == [
        ("seq:7", "nadia"),
        ("req-1", "nadia"),
    ]
