"""Following a table as it happens, in real browsers: two seats and a spectator at a 2-seat table
and at a 4-seat one, each page's move list equal to the stored stream; Basras announced at once;
no page far behind the stream at the default pace; the round summary equal to `round_scored`;
the clock's play and a leave said in words on every page; and no `/view` asked per play."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.e2e.web.conftest import Page, screenshot
from tests.e2e.web.steps import keep_seat, move_list, shown_seq

pytestmark = pytest.mark.e2e

BEHIND_MS = 3000
"""No page is ever further behind the stream than this at the default pace."""


@dataclass
class Watcher:
    """A page at the table, and every GET of a view or the public table it sent after loading."""

    page: Page
    seat: int | None
    reads: list[str] = field(default_factory=list)
    loaded: bool = False


def _watch(page: Page, match_id: str, seat: int | None, token: str | None) -> Watcher:
    """Open the table in the page (as seat ``seat`` when given); count its view reads after load."""
    watcher = Watcher(page, seat)
    view_paths = {f"/matches/{match_id}", f"/matches/{match_id}/view"}

    def on_request(request: Any) -> None:
        path = request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        if request.method == "GET" and "/" + path in view_paths and watcher.loaded:
            watcher.reads.append(request.url)

    page.page.on("request", on_request)
    page.goto("/assets/css/basra.css")
    if seat is not None and token is not None:
        keep_seat(page.page, match_id, seat, token)
    page.goto(f"/play/{match_id}")
    page.page.wait_for_selector("#live[data-state=live]")
    page.page.wait_for_function("() => document.querySelector('[data-testid=banner]').dataset.seq")
    watcher.loaded = True
    return watcher


def _stream(url: str, match_id: str, token: str) -> list[dict[str, Any]]:
    """The stored stream's event lines, as the seat of ``token`` may read them."""
    text = httpx.get(
        f"{url}/matches/{match_id}/replay", headers={"Authorization": f"Bearer {token}"}
    ).text
    return [json.loads(line) for line in text.splitlines()[1:]]


def _best_card(url: str, match_id: str, token: str, *, look: bool = True) -> str:
    """The seat's card that makes a Basra, else takes the most, else (or without ``look``)
    the first."""
    auth = {"Authorization": f"Bearer {token}"}
    hand = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()["hand"]
    if not look:
        return str(hand[0])
    previews = [
        httpx.post(f"{url}/matches/{match_id}/preview", headers=auth, json={"card": c}).json()
        for c in hand
    ]
    best = max(previews, key=lambda p: (p["basra"], len(p["captured"])))
    return str(best["card"])


def _play(url: str, match_id: str, token: str, card: str) -> tuple[dict[str, Any], float]:
    """Play ``card`` for the seat: (the answer, when it came, in ms)."""
    answer = httpx.post(
        f"{url}/matches/{match_id}/plays",
        headers={"Authorization": f"Bearer {token}"},
        json={"card": card},
    )
    assert answer.status_code == 200, answer.text
    return answer.json(), time.time() * 1000


def _timings(watcher: Watcher) -> dict[int, dict[str, float | None]]:
    """When each event reached the page, started to be shown and was announced (page clock)."""
    rows = watcher.page.page.evaluate("() => window.basraTimings")
    return {int(row["seq"]): row for row in rows}


def _settle(watchers: list[Watcher], seq: int) -> None:
    for watcher in watchers:
        watcher.page.page.wait_for_function(
            "seq => Number(document.querySelector('[data-testid=banner]').dataset.seq) >= seq"
            " && document.body.dataset.queue === '0'",
            arg=seq,
        )


def _summary_cells(page: Any, row: str) -> list[str]:
    return [
        str(text)
        for text in page.locator(f"[data-testid=round-summary] tr[data-row={row}] td").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
    ]


def _check_round_summary(watcher: Watcher, scored: dict[str, Any]) -> None:
    """The page's summary of the round equals ``round_scored`` side by side."""
    page = watcher.page.page
    page.locator(f"[data-testid=round-summary][data-round='{scored['round']}']").wait_for()
    sides = scored["sides"]
    assert _summary_cells(page, "cards") == [str(s["cards"]) for s in sides]
    assert _summary_cells(page, "majority") == [
        str(s["majority"]) if s["majority"] else "—" for s in sides
    ]
    assert _summary_cells(page, "basra") == [str(s["basra"]) for s in sides]
    assert _summary_cells(page, "round") == [str(s["total"]) for s in sides]
    assert _summary_cells(page, "total") == [str(total) for total in scored["totals"]]
    points = _summary_cells(page, "points")
    assert [cell.rsplit("= ", 1)[1] for cell in points] == [str(s["points"]) for s in sides]


def _check_moves(watcher: Watcher, stream: list[dict[str, Any]]) -> None:
    """The page's move list is every play of the stream, in order, each with its card."""
    plays = [e for e in stream if e["type"] == "card_played"]
    assert move_list(watcher.page.page) == [e["seq"] for e in plays]
    texts = watcher.page.page.locator("[data-testid=move-list] [data-seq]").all_inner_texts()
    suits = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    for text, e in zip(texts, plays, strict=True):
        assert e["card"][:-1] + suits[e["card"][-1]] in text, (text, e)
        assert ("Basra" in text) == bool(e["basra"]), (text, e)


def test_a_two_seat_table_followed_by_both_seats_and_a_spectator(
    new_page: Any, server: str
) -> None:
    # given a 2-seat table of Amal and Badr, both seats and a spectator each in a browser
    created = httpx.post(
        f"{server}/matches", json={"ruleset": "classic", "seats": 2, "seed": "follow-2-4"}
    ).json()
    match_id = created["match_id"]
    tokens = [
        httpx.post(f"{server}/matches/{match_id}/seats/{s}", json={"name": n}).json()["token"]
        for s, n in ((0, "Amal"), (1, "Badr"))
    ]
    watchers = [_watch(new_page(), match_id, s, tokens[s]) for s in (0, 1)]
    watchers.append(_watch(new_page(), match_id, None, None))
    # then every page shows both seats connected now (each has its feed open)
    for watcher in watchers:
        for seat in (0, 1):
            watcher.page.page.wait_for_selector(
                f".seat-box[data-seat='{seat}'] .presence[data-connected=true]"
            )
    # when the seats play (over HTTP, a Basra whenever one is there), a little faster than
    # the pace, until a round has been scored with a Basra in it
    answered: dict[int, float] = {}
    plays = 0
    scored: dict[str, Any] | None = None
    basras: list[int] = []
    turn = httpx.get(f"{server}/matches/{match_id}").json()["turn"]
    while scored is None or not basras:
        card = _best_card(server, match_id, tokens[turn], look=not basras)
        answer, at = _play(server, match_id, tokens[turn], card)
        seq = int(answer["seq"])
        played = int(answer["events"][0]["seq"])
        answered[played] = at
        plays += 1
        basras += [played] if answer["basra"] else []
        turn = answer["view"]["after"]["turn"]
        rounds = [e for e in answer["events"] if e["type"] == "round_scored"]
        if rounds and scored is None:
            scored = rounds[0]
            _settle(watchers, seq)
            # then every page sums the round up with the numbers of round_scored
            for watcher in watchers:
                _check_round_summary(watcher, scored)
            screenshot(watchers[0].page.page, "table-round-summary")
            # and a tap closes it (another closes by itself later)
            watchers[0].page.page.locator("[data-testid=round-summary] button").click()
            assert watchers[0].page.page.locator("[data-testid=round-summary]").is_hidden()
        assert plays < 120, "no Basra in the plays so far: choose another seed"
        time.sleep(0.25)
    last = seq
    _settle(watchers, last)
    stream = _stream(server, match_id, tokens[0])
    for watcher in watchers:
        # then each page's move list is the stored stream, play by play
        _check_moves(watcher, stream)
        timings = _timings(watcher)
        # a Basra was announced at once, with its points, when it reached the head of the queue
        for seq in basras:
            row = timings[seq]
            assert row["announced"] is not None and row["shown"] is not None
            assert float(row["announced"]) - float(row["shown"]) <= 1000
            shown = watcher.page.page.locator(f"[data-testid=move-list] [data-seq='{seq}']")
            assert "Basra +" in shown.inner_text()
        # and the page was never more than 3 s behind the stream
        for seq, at in answered.items():
            behind = float(timings[seq]["shown"] or 0) - at
            assert behind <= BEHIND_MS, (watcher.seat, seq, behind)
        # and it never asked for the view or the table again while following
        assert watcher.reads == [], watcher.reads
    # when Badr closes his page, the others show his seat no longer connected
    watchers[1].page.page.close()
    for watcher in (watchers[0], watchers[2]):
        watcher.page.page.wait_for_selector(
            ".seat-box[data-seat='1'] .presence[data-connected=false]"
        )
    watchers = [watchers[0], watchers[2]]
    # when Badr leaves
    httpx.post(
        f"{server}/matches/{match_id}/leave", headers={"Authorization": f"Bearer {tokens[1]}"}
    ).raise_for_status()
    # then every page says so in words, and Amal's says she won by forfeit
    expected = {0: "Badr left the table", None: "Badr left the table"}
    for watcher in watchers:
        line = watcher.page.page.locator("[data-testid=announce] [data-kind=leave]")
        line.wait_for()
        assert line.inner_text() == expected[watcher.seat]
    verdict = watchers[0].page.page.locator("[data-testid=result] .verdict")
    assert verdict.inner_text() == "Badr left: you win by forfeit"
    spectator = watchers[1].page.page.locator("[data-testid=result] .verdict")
    assert spectator.inner_text() == "Badr left: Amal win by forfeit"
    screenshot(watchers[1].page.page, "table-spectator-ended")


def _places(page: Any) -> dict[str, int]:
    """Which seat each place around the table shows."""
    out = {}
    for place in ("bottom", "right", "top", "left"):
        box = page.locator(f"#seat-{place} .seat-box")
        if box.count():
            out[place] = int(box.get_attribute("data-seat"))
    return out


def test_a_four_seat_table_seats_partners_across_and_says_the_clocks_play(
    new_page: Any, server: str
) -> None:
    # given a 4-seat table to 1 point on a 5-second clock: Amal at 0 and her partner Hana at 2,
    # bots at 1 and 3; both and a spectator in browsers
    created = httpx.post(
        f"{server}/matches",
        json={
            "ruleset": "classic",
            "seats": 4,
            "bots": [1, 3],
            "target": 1,
            "turn_seconds": 5,
            "seed": "follow-4",
        },
    ).json()
    match_id = created["match_id"]
    tokens = {
        s: httpx.post(f"{server}/matches/{match_id}/seats/{s}", json={"name": n}).json()["token"]
        for s, n in ((0, "Amal"), (2, "Hana"))
    }
    watchers = [_watch(new_page(), match_id, s, tokens[s]) for s in (0, 2)]
    watchers.append(_watch(new_page(), match_id, None, None))
    opened_at = shown_seq(watchers[2].page.page)
    # then each page puts its own seat at the bottom and the partner across, never mirrored
    assert _places(watchers[0].page.page) == {"bottom": 0, "right": 1, "top": 2, "left": 3}
    assert _places(watchers[1].page.page) == {"bottom": 2, "right": 3, "top": 0, "left": 1}
    assert _places(watchers[2].page.page) == {"bottom": 0, "right": 1, "top": 2, "left": 3}
    screenshot(watchers[0].page.page, "table-4-seats")
    # when the people play, except that once Hana lets her clock run out
    plays = 0
    let_run_out = True
    while True:
        table = httpx.get(f"{server}/matches/{match_id}").json()
        if table["status"] == "ended":
            break
        turn = table["turn"]
        if turn == 2 and let_run_out:
            let_run_out = False
            # the seat on turn shows its clock in m:ss
            clock = watchers[1].page.page.locator("[data-testid=seat-clock][data-seat='2']")
            clock.wait_for()
            assert re.fullmatch(r"0:0[0-5]", clock.inner_text()), clock.inner_text()
            deadline = time.time() + 20
            while httpx.get(f"{server}/matches/{match_id}").json()["turn"] == 2:
                assert time.time() < deadline, "the clock did not play for Hana"
                time.sleep(0.3)
            continue
        card = _best_card(server, match_id, tokens[turn], look=False)
        _play(server, match_id, tokens[turn], card)
        plays += 1
        time.sleep(0.15)
    stream = _stream(server, match_id, tokens[0])
    last = stream[-1]["seq"]
    _settle(watchers, last)
    # (a clock may also have run out while the pages were opening: only later ones count)
    auto = [e for e in stream if e["type"] == "card_played" and e["auto"] and e["seq"] > opened_at]
    assert any(e["seat"] == 2 for e in auto)
    suits = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    names = {0: "Amal", 2: "Hana"}
    for watcher in watchers:
        # then each page's move list is the stored stream, play by play
        _check_moves(watcher, stream)
        # and each clock's play was said in words on every page, in the live region too
        spoken = watcher.page.page.locator("#spoken").inner_text()
        timings = _timings(watcher)
        for e in auto:
            card_text = e["card"][:-1] + suits[e["card"][-1]]
            who = names[e["seat"]] + (" (you)" if watcher.seat == e["seat"] else "")
            said = f"The clock played {card_text} for {who} (time ran out)"
            assert said in spoken, (watcher.seat, e)
            assert timings[e["seq"]]["announced"] is not None
        assert watcher.reads == [], watcher.reads
    assert plays >= 10


PACER_BURST = """
async () => {
  const { Pacer } = await import("/assets/js/pacer.js");
  const pushed = new Map();
  const shown = [];
  const pacer = new Pacer({
    pace: () => 600,
    isPaced: () => true,
    show: (item) => { shown.push([item, performance.now() - pushed.get(item)]); },
  });
  const push = (item) => { pushed.set(item, performance.now()); pacer.push(item); };
  push(0);
  await new Promise((r) => setTimeout(r, 50));
  for (let k = 1; k <= 8; k += 1) push(k);
  await new Promise((r) => setTimeout(r, 4000));
  return shown;
}
"""


def test_a_burst_of_plays_is_shown_in_order_and_the_last_waits_at_most_the_pacers_bound(
    new_page: Any,
) -> None:
    # given the table's pacer at the default pace (600 ms a play) in a real browser
    page = new_page()
    page.goto("/assets/css/basra.css")
    # when one play is on screen and eight more arrive at once
    shown = page.page.evaluate(PACER_BURST)
    # then all nine are shown, in order, none dropped
    assert [item for item, _ in shown] == list(range(9))
    # and even the last waited no longer than the pacer's bound (2.5 s) behind its arrival:
    # the play on screen gave up its time to those waiting
    waits = [ms for _, ms in shown]
    assert max(waits) <= 2500 + 150, waits
    # while each play still stayed on screen for a person to see it (2.5 s shared by 9)
    assert waits[-1] >= 8 * (2500 // 9) - 150, waits
