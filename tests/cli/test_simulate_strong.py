"""``basra simulate --bots strong,easy``: bots by seat, the budget recorded, the match verifies."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.service import MatchService
from cli.main import app
from domain.events import CardPlayed

runner = CliRunner()


def test_bots_by_seat_are_recorded_and_the_strong_bot_s_picks_verify(tmp_path: Path) -> None:
    # Given a seeded 4-seat simulation with the strong pair at seats 0+2 and the easy pair
    db = tmp_path / "basra.db"
    args = ["simulate", "--ruleset", "classic", "--seats", "4", "--db", str(db)]
    args += ["--bots", "strong,easy", "--budget", "4", "--target", "30", "--seed", "kinds"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.stderr
    [match] = json.loads(result.stdout)
    # Then match_created names the easy seats and the budget, and the seats are named so
    assert match["bots"] == "strong,easy,strong,easy"
    events = MatchService.open(db).events(match["match_id"])
    created = json.loads(_line(events[0].event))
    assert created["bot_kind"] == "strong"
    assert created["bot_kinds"] == {"1": "easy", "3": "easy"}
    assert created["bot_budget"] == 4
    plays = {"strong": 0, "easy": 0}
    for item in events:
        if isinstance(item.event, CardPlayed):
            plays["easy" if item.event.seat % 2 else "strong"] += 1
    # And verify alone re-derives the easy bots' plays and checks the strong bot's as legal cards
    plain = runner.invoke(app, ["verify", match["match_id"], "--db", str(db)])
    assert plain.exit_code == 0, plain.stdout + plain.stderr
    assert plain.stdout.endswith(
        f", {plays['easy']} bot plays re-derived from each bot's seat view (easy: {plays['easy']});"
        f" {plays['strong']} strong bot plays checked as legal cards only (--bots re-runs them)\n"
    )
    # And verify --bots re-runs the strong bot's picks and finds every one of them
    checked = runner.invoke(app, ["verify", match["match_id"], "--db", str(db), "--bots"])
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    assert "\tok\t" in checked.stdout
    both = plays["easy"] + plays["strong"]
    assert checked.stdout.endswith(
        f", {both} bot plays re-derived from each bot's seat view"
        f" (easy: {plays['easy']}, strong: {plays['strong']})\n"
    )
    as_json = runner.invoke(app, ["verify", match["match_id"], "--db", str(db), "--bots", "--json"])
    [result] = json.loads(as_json.stdout)
    assert result["bot_plays"] == {"rederived": both, "by_kind": plays, "legal_only": {}}


def test_an_unknown_kind_among_the_seats_is_refused_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "basra.db"
    args = ["simulate", "--ruleset", "classic", "--seats", "2", "--db", str(db)]
    result = runner.invoke(app, [*args, "--bots", "strong,genius"])
    assert result.exit_code != 0
    assert result.stderr.strip().splitlines() == [
        "error: unknown bot kind 'genius'; choose easy, random, strong"
    ]
    assert not db.exists()


def _line(event: object) -> str:
    from domain.events import EVENT_ENCODER

    return EVENT_ENCODER.encode(event).decode()
