"""``basra simulate``: bot-vs-bot matches from a text seed, each recorded and printed by id."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated, TextIO

import msgspec
import typer

from app.service import MatchService
from cli.common import DbOption, JsonOption, app, dump_json, echo_err, handles_errors, resolve_db
from domain.decide import BOT_KINDS
from domain.fairness import secret_from_text_seed
from domain.state import MatchState
from replays.replay_file import write_replay


class SimulatedMatch(msgspec.Struct, frozen=True, kw_only=True):
    """One simulated match as ``--json`` prints it."""

    match_id: str
    ruleset: str
    seats: int
    bots: str
    seed: str
    target: int
    rounds: int
    plays: int
    totals: tuple[int, ...]
    winner: int | None
    end_reason: str | None
    replay_file: str | None


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
    json: JsonOption = False,
) -> None:
    """Play bot-vs-bot matches, record each in the store and print its id.

    With --json, print instead one JSON list: per match its id, seed, rounds, plays, totals,
    winner (side 0 or 1, null for a draw) and how it ended.
    """
    if bots not in BOT_KINDS:
        raise ValueError(f"unknown bot kind {bots!r}; choose easy or random")
    base = seed if seed is not None else secrets.token_hex(16)
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)
    service = MatchService.open(resolve_db(db))
    played: list[SimulatedMatch] = []
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
                if export is None and not json:
                    typer.echo(match_id)
                    continue
                state = service.load(match_id)
                replay_file = None
                if export is not None:
                    # The replay file is written from the stream as stored, not from memory.
                    stored = service.events(match_id)
                    replay_file = export / f"{match_id}.jsonl"
                    replay_file.write_bytes(write_replay(stored, state.names))
                if json:
                    played.append(_summary(state, match_id, match_seed(base, k), replay_file))
                else:
                    typer.echo(match_id)
    finally:
        service.close()
    if json:
        dump_json(played)
    echo_err(f"{matches} match(es) played and recorded")


def _summary(
    state: MatchState, match_id: str, seed: str, replay_file: Path | None
) -> SimulatedMatch:
    setup = state.setup
    assert setup is not None
    return SimulatedMatch(
        match_id=match_id,
        ruleset=setup.ruleset,
        seats=setup.seats,
        bots=setup.bot_kind,
        seed=seed,
        target=setup.target,
        rounds=state.round,
        plays=state.plays,
        totals=state.totals,
        winner=state.winner,
        end_reason=state.end_reason,
        replay_file=str(replay_file) if replay_file is not None else None,
    )


def _stderr() -> TextIO:
    return sys.stderr
