"""Steps a player takes on the table page, shared by the browser tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ENDED_OR_MY_TURN = """() => {
  const result = document.querySelector('[data-testid=result]');
  if (result && !result.hidden) return 'ended';
  // A turn is one with cards to play: between a hand's last play and the next deal the banner
  // already says it is this seat's turn while the hand is still empty.
  if (!document.querySelector('[data-testid=hand] [data-card]')) return null;
  return document.querySelector('[data-testid=banner] .turn.yours') ? 'turn' : null;
}"""


def hand(page: Any) -> list[str]:
    """The cards of the hand, in the order shown."""
    return [
        str(c)
        for c in page.locator("[data-testid=hand] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def floor(page: Any) -> list[str]:
    """The floor, in floor order."""
    return [
        str(c)
        for c in page.locator("[data-testid=floor] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def taken(page: Any) -> list[str]:
    """The floor cards marked data-take."""
    return [
        str(c)
        for c in page.locator("[data-testid=floor] [data-card][data-take]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def wait_turn_or_end(page: Any) -> str:
    """Wait until it is this seat's turn or the match has ended: 'turn' or 'ended'."""
    return str(page.wait_for_function(ENDED_OR_MY_TURN).json_value())


def pick(page: Any, card: str) -> None:
    """Tap a card of the hand and wait for its preview."""
    page.locator(f"[data-testid=hand] [data-card='{card}']").click()
    page.wait_for_function(
        "card => document.querySelector('#preview').textContent.includes(':')"
        " && document.querySelector(`[data-testid=hand] [data-card='${card}']`)"
        "?.classList.contains('selected')",
        arg=card,
    )


def play_by_tapping(page: Any, card: str, *, on_floor: bool = False) -> None:
    """Tap the card, then tap it again (or the floor): it leaves the hand."""
    pick(page, card)
    tap_again(page, card, on_floor=on_floor)


def tap_again(page: Any, card: str, *, on_floor: bool = False) -> None:
    """Tap the card picked up again (or the floor): it is played, and the table moves on.

    The table's seq is what shows the play landed, not the card leaving the hand: a round is
    dealt from a fresh pack, so the card just played may be dealt to this hand again in the
    very reply to the play (the last play of a round).
    """
    before = int(page.locator("[data-testid=banner]").get_attribute("data-seq"))
    if on_floor:
        page.locator("[data-testid=floor]").click()
    else:
        page.locator(f"[data-testid=hand] [data-card='{card}']").click()
    try:
        page.wait_for_function(
            "before => Number(document.querySelector('[data-testid=banner]').dataset.seq) > before"
            " || !document.querySelector('[data-testid=result]').hidden",
            arg=before,
        )
    except Exception as error:
        state = page.evaluate(
            "() => [document.querySelector('#error').textContent,"
            " document.querySelector('[data-testid=banner]').outerHTML,"
            " document.querySelector('#preview').textContent,"
            " document.querySelector('[data-testid=hand]').outerHTML,"
            " performance.getEntriesByType('resource').slice(-8).map(e => e.name)]"
        )
        raise AssertionError(f"{card} was not played: {state}") from error


def keep_seat(page: Any, match_id: str, seat: int, token: str, *, pace: int | None = None) -> None:
    """Keep a seat's token in the page's browser (as the lobby does), and the table's pace when
    given; the page must show a page of the server's origin first."""
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"basra.seat.{match_id}", json.dumps({"seat": seat, "token": token})],
    )
    if pace is not None:
        page.evaluate("p => localStorage.setItem('basra.pace', String(p))", pace)


def shown_seq(page: Any) -> int:
    """The seq of the position the table shows."""
    return int(page.locator("[data-testid=banner]").get_attribute("data-seq"))


def move_list(page: Any) -> list[int]:
    """The seqs of the move list's entries, in order."""
    return [
        int(s)
        for s in page.locator("[data-testid=move-list] [data-seq]").evaluate_all(
            "els => els.map(e => e.dataset.seq)"
        )
    ]


def add_agent(db: Path, name: str) -> str:
    """A named support agent added with ``basra support add`` to the store ``db``; its token."""
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "support", "add", name, "--db", str(db)],
        capture_output=True,
        check=True,
        env=os.environ,
        text=True,
    ).stdout
    return out.strip()
