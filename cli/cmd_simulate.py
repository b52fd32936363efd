"""``basra simulate``: bot-vs-bot matches from a text seed, each recorded and printed by id."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer

from app.service import MatchService
from cli.common import DbOption, app, echo_err, handles_errors, resolve_db
from domain.decide import BOT_KINDS
from domain.fairness import secret_from_text_seed
from replays.replay_file import write_replay


def match_seed(seed: str, k: int) -> str:
    """CONTRACT §2: match k takes the text seed S for k = 0 and "S/k" after it."""
    return seed if k == 0 else f"{seed}/{k}"


@app.command()
@handles_errors
def simulate(
    ruleset: Annotated[str, typer.Option(help="classic, egyptian, lebanese, yemeni or jordanian.")],
    seats: Annotated[int, typer.Option(help="2, or 4 in two partnerships.")],
    seed: Annotated[
        str | None, typer.Option(help="Text seed (FAIRNESS.md); random when omitted.")
    ] = None,
    bots: Annotated[str, typer.Option(help="Bot kind: easy or random.")] = "easy",
    matches: Annotated[int, typer.Option(min=1, help="How many matches to play.")] = 1,
    export: Annotated[
        Path | None, typer.Option(help="Write each match's replay file into this folder.")
    ] = None,
    target: Annotated[
        int | None, typer.Option(help="Points to win (default: the rule set's).")
    ] = None,
    db: DbOption = None,
) -> None:
    """Play bot-vs-bot matches, record each in the store and print its id."""
    if bots not in BOT_KINDS:
        raise ValueError(f"unknown bot kind {bots!r}; choose easy or random")
    base = seed if seed is not None else secrets.token_hex(16)
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)
    service = MatchService.open(resolve_db(db))
    try:
        with typer.progressbar(
            range(matches), label="simulating", file=_stderr(), hidden=matches < 2
        ) as progress:
            for k in progress:
                match_id, _ = service.create_match(
                    ruleset=ruleset,
                    seats=seats,
                    target=target,
                    bots=tuple(range(seats)),
                    bot_kind=bots,
                    secret=secret_from_text_seed(match_seed(base, k)),
                    match_id=f"sim-{ruleset}-{seats}-{k}-{secrets.token_hex(4)}",
                    caused_by="server",
                )
                if export is not None:
                    # The replay file is written from the stream as stored, not from memory.
                    stored = service.events(match_id)
                    players = service.load(match_id).names
                    (export / f"{match_id}.jsonl").write_bytes(write_replay(stored, players))
                typer.echo(match_id)
    finally:
        service.close()
    echo_err(f"{matches} match(es) played and recorded")


def _stderr() -> TextIO:
    return sys.stderr
