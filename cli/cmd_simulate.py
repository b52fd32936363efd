"""``basra simulate``: bot-vs-bot matches from a text seed, each recorded and printed by id."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated

import typer

from cli.common import DbOption, app, echo_err, handles_errors
from domain.commands import CreateMatch
from domain.decide import BOT_KINDS
from domain.fairness import secret_from_text_seed
from domain.selfplay import play_match
from replays.recorded import RecordedEvent
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
    target: Annotated[int | None, typer.Option(help="Points to win (default: the rule set's).")] = None,
    db: DbOption = None,
) -> None:
    """Play bot-vs-bot matches and print each match id."""
    if bots not in BOT_KINDS:
        raise ValueError(f"unknown bot kind {bots!r}; choose easy or random")
    base = seed if seed is not None else secrets.token_hex(16)
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)
    with typer.progressbar(
        range(matches), label="simulating", file=_stderr(), hidden=matches < 2
    ) as progress:
        for k in progress:
            text = match_seed(base, k)
            match_id = f"sim-{ruleset}-{seats}-{k}-{secrets.token_hex(4)}"
            events, state = play_match(
                CreateMatch(
                    match_id=match_id,
                    ruleset=ruleset,
                    seats=seats,
                    secret=secret_from_text_seed(text),
                    target=target,
                    bots=tuple(range(seats)),
                    bot_kind=bots,
                )
            )
            if export is not None:
                recorded = [
                    RecordedEvent(seq=i, at="1970-01-01T00:00:00.000000Z", event=e)
                    for i, e in enumerate(events, 1)
                ]
                (export / f"{match_id}.jsonl").write_bytes(write_replay(recorded, state.names))
            typer.echo(match_id)
    echo_err(f"{matches} match(es) played")


def _stderr():  # type: ignore[no-untyped-def]
    import sys

    return sys.stderr
