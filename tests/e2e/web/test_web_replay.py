"""The replay viewer in a real browser: every key, the move list, the positions against
``basra replay --step N --json``, support's dispute log, and the banner of a match that does
not verify."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from app.store.decoding import decode_row
from app.store.sqlite_reader import SQLiteStreams
from domain.events import RoundScored
from replays.cursor import MatchCursor, Step
from replays.session import Session
from tests.e2e.test_serve import SUPPORT, serve_process
from tests.e2e.web.conftest import NO_LIMITS, open_page, screenshot
from tests.replays import replay_keys
from tests.replays.replay_keys import browser_key, terminal_key
from tests.stored_rows import stream_of, write_recorded

pytestmark = pytest.mark.e2e


def bots_match(url: str, ruleset: str = "classic") -> tuple[str, list[dict[str, Any]]]:
    """A table of two bots, played through at creation: its id and its public replay lines."""
    created = httpx.post(f"{url}/matches", json={"ruleset": ruleset, "seats": 2, "bots": [0, 1]})
    match_id = str(created.json()["match_id"])
    text = httpx.get(f"{url}/matches/{match_id}/replay").text
    return match_id, [json.loads(line) for line in text.splitlines()]


def shown_seq(page: Any) -> int:
    return int(page.locator("[data-testid=seq]").inner_text())


def cli_position(db: Path, match_id: str, seq: int) -> dict[str, Any]:
    """``basra replay ID --step SEQ --json``: the position as the command line shows it."""
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "replay", match_id, "--step", str(seq), "--json"],
        capture_output=True,
        check=True,
        env=os.environ | {"BASRA_DB": str(db)},
    ).stdout
    view: dict[str, Any] = json.loads(out)["view"]
    return view


BOARD = """() => {
  const cards = (root) => [...root.querySelectorAll('[data-card]')].map(e => e.dataset.card);
  return {
    floor: cards(document.querySelector('[data-testid=floor]')),
    hands: [...document.querySelectorAll('#hands .hand-row')].map(cards),
    totals: [...document.querySelectorAll('[data-testid=scores] .score-value')]
      .map(e => Number(e.textContent)),
  };
}"""


def board(page: Any) -> dict[str, Any]:
    """The floor, every seat's shown cards and the totals on the viewer's board."""
    return dict(page.evaluate(BOARD))


def stored_cursor(db: Path, match_id: str) -> MatchCursor:
    """The match as ``basra replay`` reads it from the store: the cursor its session steps."""
    streams = SQLiteStreams(db)
    try:
        return MatchCursor(streams.events(match_id))
    finally:
        streams.close()


def press_both(page: Any, session: Session, key: str) -> None:
    """Press one documented key (by the table's name) in the browser and in the terminal."""
    page.keyboard.press(browser_key(key))
    session.feed(terminal_key(key))


def jump_both(page: Any, session: Session, seq: int) -> None:
    """``g NUMBER Enter`` in the browser and in the terminal."""
    row = replay_keys.jump_row()
    for key in (*row.forward[:1], *str(seq), "Enter"):
        press_both(page, session, key)


def test_every_documented_key_lands_where_basra_replay_lands(
    new_page: Any, served: tuple[str, Path]
) -> None:
    # given an ended match of two bots, opened in the viewer (public: every hand after the end)
    url, db = served
    match_id, _lines = bots_match(url)
    cursor = stored_cursor(db, match_id)
    session = Session(cursor)
    viewer = new_page()
    viewer.goto(f"/replay/{match_id}")
    page = viewer.page
    page.wait_for_function("() => document.querySelector('[data-testid=seq]').textContent !== ''")
    assert shown_seq(page) == session.seq == 1
    plays = cursor.landmarks(Step.PLAY)
    deals = cursor.landmarks(Step.DEAL)
    rounds = cursor.landmarks(Step.ROUND)
    starts = [1, plays[5], deals[1], rounds[1], rounds[1] + 3, cursor.last_seq]
    keys = replay_keys.position_keys()
    assert {"n", "p", ">", "<", "}", "{", "]", "[", "^", "$"} <= set(keys)
    landed: set[int] = set()
    for start in starts:
        # when the viewer jumps to a position with g NUMBER Enter, as the terminal does
        jump_both(page, session, start)
        assert shown_seq(page) == session.seq == start
        for key in keys:
            # and each documented key is pressed from there
            press_both(page, session, key)
            # then the browser lands on the seq the terminal session lands on
            assert shown_seq(page) == session.seq, (key, start)
            landed.add(session.seq)
            jump_both(page, session, start)
    # and the board at every landing is the position the command line shows there
    for seq in sorted(landed)[:: max(1, len(landed) // 8)]:
        jump_both(page, session, seq)
        position = cli_position(db, match_id, seq)
        shown = board(page)
        assert shown["floor"] == list(position["floor"]), seq
        assert shown["hands"] == [list(h) for h in position["hands"]], seq
        assert shown["totals"] == list(position["scores"]), seq
    # when a seq outside the match is asked for, then the viewer stays and says so
    jump_both(page, session, 7)
    for key in ("g", *str(cursor.last_seq + 50), "Enter"):
        page.keyboard.press(browser_key(key))
    assert shown_seq(page) == 7
    assert "outside" in page.locator("[data-testid=key-message]").inner_text()
    # when a play of the move list is clicked, then the viewer jumps there and highlights it
    item = page.locator("[data-testid=moves] li:not(.round-head)").nth(6)
    item.click()
    jumped = int(item.get_attribute("data-seq"))
    assert shown_seq(page) == jumped
    assert "current" in (item.get_attribute("class") or "")
    # and the score chart has a point per round (and the start) for each side
    scored = sum(1 for item in cursor.events() if isinstance(item.event, RoundScored))
    circles = page.locator("[data-testid=score-chart] circle.s0").count()
    assert circles == scored + 1
    screenshot(page, "replay")


def test_the_key_help_lists_the_documented_keys(new_page: Any, server: str) -> None:
    # given an ended match opened in the viewer
    match_id, _lines = bots_match(server)
    viewer = new_page()
    viewer.goto(f"/replay/{match_id}")
    page = viewer.page
    page.wait_for_function("() => document.querySelector('[data-testid=seq]').textContent !== ''")
    help_box = page.locator("[data-testid=key-help]")
    assert help_box.is_hidden()
    # when ? is pressed, then the key help shows every key the table documents
    page.keyboard.press("?")
    help_box.wait_for()
    text = help_box.inner_text()
    for row in replay_keys.key_table():
        for key in row.forward + row.backward:
            assert key in text, (key, text)
    # and the line of keys beside seq names the round keys and the deal keys as the table does
    summary = page.locator("[data-testid=key-summary]").inner_text()
    assert "]/[" in summary and "}/{" in summary
    assert summary.index("}/{") < summary.index("]/[")  # deal, then round, as in the table
    # when ? is pressed again, then the help is hidden
    page.keyboard.press("?")
    help_box.wait_for(state="hidden")


def test_support_sees_every_hand_and_the_dispute_log_before_the_end(
    new_page: Any, server: str
) -> None:
    # given a match in play (a person at seat 0, the bot at seat 1)
    created = httpx.post(f"{server}/matches", json={"ruleset": "egyptian", "seats": 2, "bots": [1]})
    match_id = created.json()["match_id"]
    httpx.post(f"{server}/matches/{match_id}/seats/0", json={"name": "Amal"}).raise_for_status()
    viewer = new_page()
    viewer.goto(f"/replay/{match_id}")
    page = viewer.page
    # then the public cannot open it before the end
    page.locator("#error").filter(has_text="after the end").wait_for()
    # when support opens it with the support token
    page.select_option("#viewer", "support")
    page.fill("#support-token", SUPPORT)
    page.click("#open")
    page.locator("#log-panel").wait_for()
    page.keyboard.press("End")
    # then every hand is shown and the log has one row per event with who caused it
    text = httpx.get(
        f"{server}/matches/{match_id}/replay", headers={"Authorization": f"Bearer {SUPPORT}"}
    ).text
    lines = [json.loads(line) for line in text.splitlines()]
    assert page.locator("#log tr").count() == len(lines)  # a heading row and one per event
    causes = page.locator("#log tr td:nth-child(3)").all_inner_texts()
    assert causes == [line["caused_by"] for line in lines[1:]]
    support_view = httpx.get(
        f"{server}/matches/{match_id}/view", headers={"Authorization": f"Bearer {SUPPORT}"}
    ).json()
    assert board(page)["hands"] == [list(hand) for hand in support_view["hands"]]
    assert board(page)["floor"] == list(support_view["floor"])
    assert page.locator("[data-testid=seq]").inner_text() == str(lines[-1]["seq"])


def test_a_match_that_does_not_verify_shows_a_banner_naming_the_seq(
    browser: Any, tmp_path: Path
) -> None:
    # given a match of bots played through, then one stored play changed in the file
    db = tmp_path / "tampered.db"
    with serve_process(tmp_path, "--db", str(db), env=NO_LIMITS) as (url, _process):
        match_id, lines = bots_match(url)
    play = next(line for line in lines[1:] if line["type"] == "card_played" and line["seq"] > 20)
    with sqlite3.connect(db) as connection:
        seq, topic, state = connection.execute(
            "SELECT originator_version, topic, state FROM stored_events"
            " WHERE originator_id = ? AND originator_version = ?",
            (stream_of(connection, match_id), play["seq"]),
        ).fetchone()
        recorded = decode_row(match_id, seq, topic, state)
        changed = msgspec.structs.replace(
            recorded, event=msgspec.structs.replace(recorded.event, basra=20)
        )
        write_recorded(connection, match_id, changed)
    # when its replay is opened on a server over that file
    with serve_process(tmp_path, "--db", str(db), env=NO_LIMITS) as (url, _process):
        viewer = open_page(browser, url)
        try:
            viewer.goto(f"/replay/{match_id}")
            banner = viewer.page.locator("[data-testid=verify-banner]")
            banner.wait_for()
            # then the banner names the first seq that fails, as the verification route does
            verification = httpx.get(f"{url}/matches/{match_id}/verification").json()
            failing = verification["divergence"]["seq"]
            assert failing == play["seq"]
            assert banner.get_attribute("data-seq") == str(failing)
            assert f"seq {failing}" in banner.inner_text()
        finally:
            viewer.page.context.close()


def _practice_to_the_end(url: str, seed: str) -> tuple[str, list[str]]:
    """A person at seat 0 against the easy bot, one round (target 1), always playing the last
    card of the hand: the match id and the cards seat 0 played."""
    created = httpx.post(
        f"{url}/matches",
        json={"ruleset": "classic", "seats": 2, "bots": [1], "target": 1, "seed": seed},
    )
    assert created.status_code == 201, created.text
    match_id = str(created.json()["match_id"])
    sat = httpx.post(f"{url}/matches/{match_id}/seats/0", json={"name": "Amal"})
    auth = {"Authorization": f"Bearer {sat.json()['token']}"}
    played: list[str] = []
    while True:
        view = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()
        if view["status"] == "ended":
            return match_id, played
        card = view["hand"][-1]
        answer = httpx.post(f"{url}/matches/{match_id}/plays", json={"card": card}, headers=auth)
        assert answer.status_code == 200, answer.text
        played.append(card)


def test_the_analysis_of_the_current_play_is_shown_beside_the_move_list(
    new_page: Any, server: str
) -> None:
    # given an ended match of a person against the bot, and its analysis from the API
    match_id, played = _practice_to_the_end(server, "web-analysis")
    analysis = httpx.get(f"{server}/matches/{match_id}/analysis", timeout=60).json()
    plays = {p["seq"]: p for p in analysis["plays"]}
    assert [p["played"] for p in analysis["plays"]] == played
    mistakes = {p["seq"] for p in analysis["mistakes"]}
    assert mistakes, "this seed's plays are meant to include a mistake"
    # when the replay is opened (public: the match has ended)
    viewer = new_page()
    viewer.goto(f"/replay/{match_id}")
    page = viewer.page
    panel = page.locator("[data-testid=analysis]")
    page.locator("[data-testid=moves] li.mistake").first.wait_for()
    # then the move list marks exactly the mistakes the analysis lists
    marked = page.locator("[data-testid=moves] li.mistake").evaluate_all(
        "els => els.map(e => Number(e.dataset.seq))"
    )
    assert set(marked) == mistakes
    # and each person's play, chosen in the move list, shows its own analysis beside it
    for seq in sorted(plays)[:4] + sorted(mistakes)[:2]:
        page.locator(f"[data-testid=moves] li[data-seq='{seq}']").click()
        page.wait_for_function(
            "seq => document.querySelector('[data-testid=analysis] .analysis-line')"
            "?.dataset.seq === String(seq)",
            arg=seq,
        )
        text = panel.inner_text()
        assert f"cost {plays[seq]['cost']:.1f}" in text, (seq, text)
        shown_mistake = panel.locator("[data-testid=analysis-mistake]").count() == 1
        assert shown_mistake == plays[seq]["mistake"], (seq, text)
        if plays[seq]["reason"]:
            assert plays[seq]["reason"] in text
    screenshot(page, "replay-analysis")
    # and a bot's play is said to be not analysed
    bot_play = page.locator("[data-testid=moves] li:not(.round-head)", has_text="easy bot")
    bot_play.first.click()
    panel.filter(has_text="not analysed").wait_for()
    assert panel.locator(".analysis-line").count() == 0
