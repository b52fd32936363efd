"""``basra analyse``: support at any time, a seat once the match has ended; lines and JSON."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.service import MatchService
from cli.main import app
from domain.fairness import secret_from_text_seed

runner = CliRunner()


def _person_against_a_bot(db: Path) -> tuple[MatchService, str]:
    """A match in play: a person at seat 0 who has played one card, the easy bot at seat 1."""
    service = MatchService.open(db)
    match_id = service.create_match(
        ruleset="classic", seats=2, bots=(1,), secret=secret_from_text_seed("analyse-cli")
    ).match_id
    service.take_seat(match_id, 0, "amira")
    state = service.load(match_id)
    if state.turn != 0:
        raise AssertionError("the person plays first in this seed")
    service.play_card(match_id, 0, state.hands[0][0])
    return service, match_id


def test_a_seat_is_refused_before_the_end_and_support_is_answered(tmp_path: Path) -> None:
    # Given a match a person is playing against the easy bot
    db = tmp_path / "basra.db"
    service, match_id = _person_against_a_bot(db)
    played = service.events(match_id)
    service.close()
    # When the seat asks for the analysis before the end
    seat = runner.invoke(app, ["analyse", match_id, "--as", "0", "--db", str(db)])
    # Then it is refused in one line, naming why
    assert seat.exit_code == 1
    assert seat.stderr.strip().splitlines() == [
        "error: the analysis is shown once the match has ended (support: any time)"
    ]
    assert seat.stdout == ""
    # And support (the default viewer) gets the person's one play, as JSON too
    support = runner.invoke(app, ["analyse", match_id, "--db", str(db), "--budget", "3"])
    assert support.exit_code == 0, support.stderr
    assert support.stdout.startswith("play 1 (seat 0): ")
    data = json.loads(
        runner.invoke(app, ["analyse", match_id, "--db", str(db), "--json", "--budget", "3"]).stdout
    )
    assert data["ended"] is False and data["budget"] == 3
    [play] = data["plays"]
    assert play["seat"] == 0 and play["seq"] == next(
        r.seq for r in played if type(r.event).__name__ == "CardPlayed"
    )
