"""The support console in a real browser through the three complaints (docs/support.md), each
produced for real on a ``basra serve`` whose turn clock is 2 seconds (R25):

- "my card was played for me": the player lets the clock run out at a four-seat table; the
  match page shows the clock's play and the deadline that ran out on its row;
- "I clicked in time but the clock ran out": the player's play arrives after the deadline; the
  match page shows the refused play (``turn_expired``) with its request id and its lateness in µs
  and ms;
- "the bot saw my hand": every bot play of the match is marked as re-derived from its own
  seat's view (``matches``).

Each is reported by the seat, and an agent signed in to the console opens the case and its match.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from domain.times import utc_micros
from tests.e2e.test_serve import serve_process
from tests.e2e.web.conftest import NO_LIMITS, screenshot, wait_for
from tests.e2e.web.steps import add_agent

pytestmark = pytest.mark.e2e

TURN_SECONDS = 2
"""The server's turn time in these tests (R25: the server's may be 1 to 600)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``basra serve`` (test mode, limits off, 2-second turns) on a fresh SQLite file."""
    folder = tmp_path_factory.mktemp("complaints")
    db = folder / "web.db"
    env = NO_LIMITS | {"BASRA_TURN_SECONDS": str(TURN_SECONDS)}
    with serve_process(folder, "--db", str(db), env=env) as (url, _process):
        yield url, db


def _seated(url: str, seats: int, bots: list[int]) -> tuple[str, dict[str, str]]:
    """A table with a person on seat 0 (by name) and bots on ``bots``: (match id, auth)."""
    created = httpx.post(
        f"{url}/matches", json={"ruleset": "classic", "seats": seats, "bots": bots}
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    sat = httpx.post(f"{url}/matches/{match_id}/seats/0", json={"name": "Amal"})
    assert sat.status_code == 201, sat.text
    return match_id, {"Authorization": f"Bearer {sat.json()['token']}"}


def _on_turn(url: str, match_id: str, auth: dict[str, str]) -> dict[str, Any]:
    """Seat 0's view once it is on turn with a deadline (the bots before it have played)."""
    found: dict[str, Any] = {}

    def ready() -> bool:
        found.update(httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json())
        return found.get("turn") == 0 and found.get("deadline") is not None

    wait_for(ready, "seat 0 on turn with a deadline")
    return found


def _report(url: str, match_id: str, auth: dict[str, str], category: str, text: str) -> str:
    filed = httpx.post(
        f"{url}/matches/{match_id}/reports",
        json={"category": category, "text": text},
        headers=auth,
    )
    assert filed.status_code == 201, filed.text
    return str(filed.json()["case_id"])


def _console(new_page: Any, token: str) -> Any:
    agent = new_page()
    agent.goto("/support")
    agent.page.fill("[data-testid=token]", token)
    agent.page.click("[data-testid=sign-in-button]")
    wait_for(lambda: agent.page.locator("[data-testid=agent]").inner_text() != "", "sign-in")
    return agent.page


def _open_match(page: Any, match_id: str) -> Any:
    page.fill("[data-testid=match-id]", match_id)
    page.click("[data-testid=open-match]")
    view = page.locator("[data-testid=view]")
    wait_for(lambda: match_id in view.inner_text() and "verif" in view.inner_text(), "the page")
    return view


def _rows(view: Any) -> list[list[str]]:
    """The timeline's rows as the agent sees them, cell by cell."""
    table = view.locator("table").first
    rows: list[list[str]] = table.evaluate(
        "t => [...t.rows].slice(1).map(r => [...r.cells].map(c => c.innerText))"
    )
    return rows


COLUMNS = ["at", "kind", "what", "seq", "seat", "who", "request", "deadline", "late", "bot"]


def _row(cells: list[str]) -> dict[str, str]:
    return dict(zip(COLUMNS, cells, strict=True))


def test_my_card_was_played_for_me(served: tuple[str, Path], new_page: Any) -> None:
    url, db = served
    # given Amal at a four-seat table with three bots, on turn with a 2-second deadline
    match_id, auth = _seated(url, 4, [1, 2, 3])
    deadline = _on_turn(url, match_id, auth)["deadline"]
    # when she lets it run out: the clock plays a card for her seat (R25) and she reports it
    token = add_agent(db, "nadia")
    support = {"Authorization": f"Bearer {token}"}

    def clock_played() -> bool:
        page = httpx.get(f"{url}/support/matches/{match_id}", headers=support).json()
        return any(e["clock"] and e["what"] == "card_played" for e in page["timeline"])

    wait_for(clock_played, "the clock's play")
    _report(url, match_id, auth, "clock", "my card was played for me")
    # then the agent's match page shows the clock's play on seat 0 and the deadline that ran out
    page = _console(new_page, token)
    view = _open_match(page, match_id)
    clock_rows = [
        row
        for row in map(_row, _rows(view))
        if row["what"] == "card_played" and row["who"] == "clock" and row["seat"] == "0"
    ]
    assert clock_rows, _rows(view)
    assert clock_rows[0]["deadline"] == deadline
    assert utc_micros(clock_rows[0]["at"]) >= utc_micros(deadline)
    assert clock_rows[0]["bot"] == "matches"  # the clock's card re-derived from seat 0's view
    screenshot(page, "support-clock-played")


def test_i_clicked_in_time_but_the_clock_ran_out(served: tuple[str, Path], new_page: Any) -> None:
    url, db = served
    # given Amal on turn at a four-seat table with three bots
    match_id, auth = _seated(url, 4, [1, 2, 3])
    view = _on_turn(url, match_id, auth)
    seq, deadline, card = view["seq"], view["deadline"], view["hand"][0]
    # when her play arrives after the deadline (she "clicked in time")
    time.sleep(max(0.0, (utc_micros(deadline) / 1e6) - time.time()) + 0.2)
    late = httpx.post(
        f"{url}/matches/{match_id}/plays", json={"card": card, "seq": seq}, headers=auth
    )
    assert (late.status_code, late.json()["error"]["code"]) == (409, "turn_expired")
    request_id = late.headers["x-request-id"]
    _report(url, match_id, auth, "clock", "I clicked in time but the clock ran out")
    token = add_agent(db, "omar")
    kept = httpx.get(
        f"{url}/support/matches/{match_id}/refused", headers={"Authorization": f"Bearer {token}"}
    ).json()["refused"]
    [record] = [r for r in kept if r["request_id"] == request_id]
    assert record["late_us"] >= 200_000
    # then the agent's match page shows the refused play, its deadline and its lateness
    page = _console(new_page, token)
    shown = _open_match(page, match_id)
    [row] = [r for r in map(_row, _rows(shown)) if r["request"] == request_id]
    assert (row["kind"], row["what"], row["seat"], row["deadline"]) == (
        "refused",
        "turn_expired",
        "0",
        deadline,
    )
    late_us = record["late_us"]
    assert row["late"] == f"{late_us} µs ({late_us / 1000:.3f} ms)"
    screenshot(page, "support-late-play")


def test_the_bot_saw_my_hand(served: tuple[str, Path], new_page: Any) -> None:
    url, db = served
    # given Amal playing a bot at two seats, a few plays each
    match_id, auth = _seated(url, 2, [1])
    for _ in range(3):
        view = _on_turn(url, match_id, auth)
        played = httpx.post(
            f"{url}/matches/{match_id}/plays",
            json={"card": view["hand"][0], "seq": view["seq"]},
            headers=auth,
        )
        assert played.status_code == 200, played.text
    _report(url, match_id, auth, "bot", "the bot saw my hand")
    # when the agent opens the match
    page = _console(new_page, add_agent(db, "sara"))
    shown = _open_match(page, match_id)
    # then every bot play is marked as re-derived from its own seat's view
    bot_rows = [
        r for r in map(_row, _rows(shown)) if r["what"] == "card_played" and r["seat"] == "1"
    ]
    assert len(bot_rows) >= 3
    assert [r["bot"] for r in bot_rows] == ["matches"] * len(bot_rows)
    assert "verified: ok" in shown.inner_text()
    screenshot(page, "support-bot-plays")
