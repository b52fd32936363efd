"""``basra simulate``: bot-vs-bot matches from a text seed, each recorded and printed by id."""

from __future__ import annotations

import hashlib
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TextIO

import msgspec
import typer

from cli.common import DbOption, JsonOption, app, handles_errors
from cli.errors import InvalidOptionError
from cli.shell import dump_json, echo_err, opened
from domain.bot_kinds import BOT_KINDS
from domain.commands import CreateMatch
from domain.decide import decide
from domain.fairness import check_client_seed, lp, secret_from_text_seed
from domain.state import INITIAL_STATE, MatchState
from domain.times import utc_micros, utc_text_us
from replays.replay_file import write_replay

SEEDED_EPOCH_US = utc_micros("2000-01-01T00:00:00Z")
"""A seeded simulation's matches are recorded at times within the year after this instant."""

SECONDS_PER_YEAR = 365 * 24 * 3600
"""The span of a seeded simulation's record times."""


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
    """docs/fairness.md: match k takes the text seed S for k = 0 and "S/k" after it."""
    return seed if k == 0 else f"{seed}/{k}"


def seeded_digest(
    seed: str,
    ruleset: str,
    seats: int,
    bots: str,
    target: int | None,
    client_seeds: tuple[str, ...] = (),
) -> bytes:
    """``H = SHA-256("basra-sim-v1" ‖ lp(seed) ‖ lp(ruleset) ‖ u32be(seats) ‖ lp(bots) ‖
    u32be(target or 0))``: where a seeded match's id and record time come from (docs/fairness.md).
    With a client seed given, ``u32be(n) ‖ lp(cs_0) ‖ … ‖ lp(cs_n-1)`` follows, so another
    client seed is another match.
    """
    data = (
        b"basra-sim-v1"
        + lp(seed.encode("utf-8"))
        + lp(ruleset.encode("utf-8"))
        + seats.to_bytes(4, "big")
        + lp(bots.encode("utf-8"))
        + (target or 0).to_bytes(4, "big")
    )
    if any(client_seeds):
        data += len(client_seeds).to_bytes(4, "big")
        data += b"".join(lp(text.encode("utf-8")) for text in client_seeds)
    return hashlib.sha256(data).digest()


def client_seeds_of(given: list[str] | None, seats: int) -> tuple[str, ...]:
    """``--client-seed SEAT=TEXT`` options as one client seed per seat ("" where none)."""
    seeds = [""] * seats
    named: set[int] = set()
    for option in given or ():
        seat_text, sep, text = option.partition("=")
        if not sep or not seat_text.strip().isdigit():
            raise InvalidOptionError(f"--client-seed takes SEAT=TEXT, e.g. 0=alice, not {option!r}")
        seat = int(seat_text)
        if not 0 <= seat < seats:
            raise InvalidOptionError(f"--client-seed: seat {seat} is not a seat 0..{seats - 1}")
        if seat in named:
            raise InvalidOptionError(f"--client-seed: seat {seat} is given twice")
        named.add(seat)
        seeds[seat] = check_client_seed(text)
    return tuple(seeds)


def seeded_id(k: int, ruleset: str, seats: int, digest: bytes) -> str:
    """Match k's id with a seed: ``sim-RULESET-SEATS-k-`` then H's first 4 bytes in hex."""
    return f"sim-{ruleset}-{seats}-{k}-{digest[:4].hex()}"


def seeded_time(digest: bytes) -> str:
    """A seeded match's record time: 2000-01-01T00:00:00Z plus ``u32be(H[4:8]) mod 31536000`` s."""
    offset = int.from_bytes(digest[4:8], "big") % SECONDS_PER_YEAR
    return utc_text_us(SEEDED_EPOCH_US + offset * 1_000_000)


def seat_kinds(bots: str, seats: int) -> tuple[str, dict[int, str]]:
    """``--bots``: one kind for every seat, or kinds by seat (``strong,easy``: seat 0 strong, seat
    1 easy, and at four seats the pattern again, so each side has one kind): the first kind,
    and the seats whose kind differs from it."""
    kinds = [kind.strip() for kind in bots.split(",")]
    for kind in kinds:
        if kind not in BOT_KINDS:
            raise InvalidOptionError(f"unknown bot kind {kind!r}; choose {', '.join(BOT_KINDS)}")
    if seats % len(kinds):
        raise InvalidOptionError(f"{len(kinds)} bot kinds cannot be spread over {seats} seats")
    by_seat = {seat: kinds[seat % len(kinds)] for seat in range(seats)}
    return kinds[0], {seat: kind for seat, kind in by_seat.items() if kind != kinds[0]}


def _checked(
    ruleset: str, seats: int, bots: str, target: int | None, export: Path | None, budget: int | None
) -> None:
    """Refuse a simulation the rules would refuse before any file or folder is made."""
    kind, kinds = seat_kinds(bots, seats if seats in (2, 4) else 2)
    decide(
        INITIAL_STATE,
        CreateMatch(
            match_id="check",
            ruleset=ruleset,
            seats=seats,
            secret=bytes(32),
            target=target,
            bots=tuple(range(seats)) if seats in (2, 4) else (),
            bot_kind=kind,
            bot_kinds=kinds or None,
            bot_budget=budget,
        ),
    )
    if export is not None and export.exists() and not export.is_dir():
        raise InvalidOptionError(f"--export {export} is a file; give a folder for the replay files")


@app.command()
@handles_errors
def simulate(
    ruleset: Annotated[str, typer.Option(help="classic, egyptian, lebanese, yemeni or jordanian.")],
    seats: Annotated[int, typer.Option(help="2, or 4 in two partnerships.")],
    seed: Annotated[
        str | None,
        typer.Option(
            help="Text seed (docs/fairness.md): the same ids, times and files on every run;"
            " random when omitted."
        ),
    ] = None,
    bots: Annotated[
        str,
        typer.Option(
            help="Bot kind: easy, random or strong; or kinds by seat, e.g. strong,easy"
            " (at 4 seats: the strong pair 0+2 against the easy pair 1+3)."
        ),
    ] = "easy",
    budget: Annotated[
        int | None,
        typer.Option(help="The strong bot's deals sampled per decision (default 8)."),
    ] = None,
    matches: Annotated[int, typer.Option(min=1, help="How many matches to play.")] = 1,
    export: Annotated[
        Path | None, typer.Option(help="Write each match's replay file into this folder.")
    ] = None,
    target: Annotated[
        int | None, typer.Option(help="Points to win (default: the rule set's).")
    ] = None,
    client_seed: Annotated[
        list[str] | None,
        typer.Option(
            "--client-seed",
            help="SEAT=TEXT: that seat's client seed (at most 64 bytes), which enters every"
            " deal with the secret (docs/fairness.md); repeat for other seats.",
        ),
    ] = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Play bot-vs-bot matches, record each in the store and print its id.

    With --json, print instead one JSON list: per match its id, seed, rounds, plays, totals,
    winner (side 0 or 1, null for a draw) and how it ended. With --seed, every run prints the
    same ids and writes the same files; a match an earlier run already recorded is kept as it
    is, not played again. Nothing is created when the options are refused.
    """
    _checked(ruleset, seats, bots, target, export, budget)
    kind, kinds = seat_kinds(bots, seats)
    client_seeds = client_seeds_of(client_seed, seats)
    base = seed if seed is not None else secrets.token_hex(16)
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)
    played: list[SimulatedMatch] = []
    kept = 0
    with (
        opened(db, create=True) as service,
        typer.progressbar(
            range(matches), label="simulating", file=_stderr(), hidden=matches < 2
        ) as progress,
    ):
        for k in progress:
            text_seed = match_seed(base, k)
            if seed is None:
                match_id = f"sim-{ruleset}-{seats}-{k}-{secrets.token_hex(4)}"
            else:
                digest = seeded_digest(text_seed, ruleset, seats, bots, target, client_seeds)
                match_id = seeded_id(k, ruleset, seats, digest)
                service.clock = _fixed(seeded_time(digest))
            if seed is not None and service.store.last_seq(match_id):
                kept += 1  # the same seeded match, recorded by an earlier run: not again
            else:
                service.create_match(
                    ruleset=ruleset,
                    seats=seats,
                    target=target,
                    bots=tuple(range(seats)),
                    bot_kind=kind,
                    bot_kinds=kinds or None,
                    bot_budget=budget,
                    secret=secret_from_text_seed(text_seed),
                    client_seeds=client_seeds,
                    match_id=match_id,
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
                played.append(_summary(state, match_id, text_seed, replay_file))
            else:
                typer.echo(match_id)
    if json:
        dump_json(played)
    if kept:
        echo_err(
            f"{matches - kept} match(es) played and recorded; {kept} already recorded by an"
            " earlier run with this seed, left as they were"
        )
    else:
        echo_err(f"{matches} match(es) played and recorded")


def _fixed(at: str) -> Callable[[], str]:
    """A clock that always reads ``at``."""
    return lambda: at


def _summary(
    state: MatchState, match_id: str, seed: str, replay_file: Path | None
) -> SimulatedMatch:
    setup = state.setup
    assert setup is not None
    return SimulatedMatch(
        match_id=match_id,
        ruleset=setup.ruleset,
        seats=setup.seats,
        bots=",".join(map(setup.kind_at, range(setup.seats)))
        if setup.bot_kinds
        else setup.bot_kind,
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
