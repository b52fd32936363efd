"""Receipts against a consistent rewrite: a person's play swapped for another legal card and
everything after it decided again (the rules and the chain then hold) is caught by the receipt
the person was given, and only from that play on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from app.service import MatchService
from cli.main import app
from domain.fairness import secret_from_text_seed
from domain.views import seat_view

ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}
MATCH = "m-receipts"
SWAPPED = 2  # the person's third play is the one rewritten


def run(*args: str) -> Result:
    """``basra ARGS`` through typer's CliRunner."""
    return CliRunner().invoke(app, list(args), env=ISOLATED)


def play(db: Path, swap: int | None = None) -> list[dict[str, Any]]:
    """A match of a person (seat 0, playing the first card of its hand) against the easy bot,
    every event recorded at one fixed time; with ``swap``, that play takes the second card.
    The receipts the person was given, one per play response."""
    service = MatchService.open(db)
    service.clock = lambda: "2026-11-30T12:00:00.000000Z"
    receipts: list[dict[str, Any]] = []
    try:
        service.create_match(
            ruleset="classic",
            seats=2,
            bots=(1,),
            target=1,
            secret=secret_from_text_seed("receipts"),
            match_id=MATCH,
        )
        service.take_seat(MATCH, 0, "amal", token_id="t0", caused_by="seat:0/token:t0")
        while (state := service.load(MATCH)).status == "playing":
            hand = seat_view(state, 0).hand
            card = hand[1] if len(receipts) == swap and len(hand) > 1 else hand[0]
            recorded = service.play_card(
                MATCH, 0, card, caused_by="seat:0/token:t0", request_id=f"r{len(receipts)}"
            ).events
            receipts.append(
                {"match_id": MATCH, "seq": recorded[-1].seq, "chain": recorded[-1].chain}
            )
    finally:
        service.close()
    return receipts


def test_a_consistent_rewrite_of_a_persons_play_is_caught_by_its_receipt(tmp_path: Path) -> None:
    # given the receipts of the match as it was played
    receipts = play(tmp_path / "played.db")
    kept = tmp_path / "receipts.jsonl"
    kept.write_text("".join(json.dumps(r) + "\n" for r in receipts))
    # and a store where that match was rewritten from the third play on, consistently: the
    # rules decided everything after it again and the chain was recomputed with the secret
    forged_db = tmp_path / "forged.db"
    forged = play(forged_db, swap=SWAPPED)
    assert forged[:SWAPPED] == receipts[:SWAPPED]
    # when the rewritten store is verified alone, nothing is wrong with it
    plain = run("verify", MATCH, "--db", str(forged_db))
    assert plain.exit_code == 0, plain.stdout
    assert "chain checked" in plain.stdout
    # but with the person's receipts, the receipt of the rewritten play is named
    checked = run("verify", MATCH, "--receipts", str(kept), "--db", str(forged_db), "--json")
    assert checked.exit_code == 1
    (result,) = json.loads(checked.stdout)
    divergence = result["divergence"]
    assert (divergence["kind"], divergence["seq"]) == ("receipt", receipts[SWAPPED]["seq"])
    assert receipts[SWAPPED]["chain"][:16] in divergence["explanation"]
    # and the receipts all lie on the stream as it was played
    honest = run("verify", MATCH, "--receipts", str(kept), "--db", str(tmp_path / "played.db"))
    assert honest.exit_code == 0, honest.stdout
    assert f"{len(receipts)} receipt(s) found in the stream" in honest.stdout
