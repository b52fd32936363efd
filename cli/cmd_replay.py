"""``basra replay``, ``basra import`` and ``basra verify``: step through, load and audit matches."""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from cli.common import (
    AsSeatOption,
    DbOption,
    JsonOption,
    SupportOption,
    app,
    handles_errors,
)
from cli.errors import InvalidOptionError
from cli.reading import (
    inverted_time_lines,
    named_events,
    replay_step,
    verify_line,
    verify_one,
)
from cli.shell import dump_json, echo_err, opened, reading, viewer_of
from domain.events import MatchCreated
from replays.analysis import strong_picks_checked
from replays.cursor import MatchCursor, Viewer
from replays.dispute import dispute_log, render_log
from replays.importing import imported_stream
from replays.replay_reader import load_replay
from replays.session import Session
from replays.verification import Receipt, Verification, parse_receipts

CLEAR_SCREEN = "\x1b[H\x1b[2J"
"""Home the cursor and clear the terminal before each frame."""


@contextmanager
def _keys() -> Iterator[Callable[[], str]]:
    """Single keys, as typed: the terminal in cbreak mode for the whole session, or piped input.

    The mode is set once, without flushing, so keys typed while a frame is drawn are kept.
    """
    if not sys.stdin.isatty():
        yield lambda: sys.stdin.read(1)
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)

    def read() -> str:
        try:
            return os.read(fd, 32).decode("utf-8", "replace")
        except KeyboardInterrupt:
            return ""

    try:
        yield read
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _terminal_size() -> tuple[int, int]:
    """The terminal's columns and rows, read again for every frame (a window may be resized)."""
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
    except OSError:
        size = os.terminal_size((0, 0))
    if not size.columns or not size.lines:
        size = shutil.get_terminal_size()  # $COLUMNS and $LINES, else 80 × 24
    return size.columns, size.lines


def _interactive(session: Session) -> None:
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    with _keys() as read_key:
        while True:
            if not session.pending_escape():
                if tty:
                    # The whole frame fits the terminal, so the seq and the event never scroll off.
                    sys.stdout.write(CLEAR_SCREEN + session.screen(*_terminal_size()))
                else:
                    sys.stdout.write(session.frame() + "\n")
                sys.stdout.flush()
            try:
                keys = read_key()
            except KeyboardInterrupt:
                return
            if not session.feed(keys):
                return


@app.command()
@handles_errors
def replay(
    match_id: Annotated[str, typer.Argument(help="The match to step through.")],
    step: Annotated[
        int | None,
        typer.Option(
            "--step", help="Print the position after event seq N and exit (no keys).", min=1
        ),
    ] = None,
    as_seat: AsSeatOption = None,
    support: SupportOption = False,
    log: Annotated[
        bool,
        typer.Option(
            "--log", help="Print every event with its time and cause (who played what, when)."
        ),
    ] = False,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Step through a recorded match with single keys (on a terminal; ? lists them).

    With --step N the position after event seq N is printed and the command exits (--json
    prints it as data; the last position without --step). Without a terminal, keys are read
    from standard input (e.g. `printf 'nn>q' | basra replay ID`).
    """
    if (step is not None or json) and not log:
        replay_step(match_id, step, as_seat, support, db, json)
        return
    viewer: Viewer = viewer_of(as_seat, support)
    with reading(db) as streams:
        events = named_events(streams, match_id)
    cursor = MatchCursor(events)
    cursor.check_viewer(viewer)
    if log:
        entries = dispute_log(cursor, viewer)
        if json:
            dump_json(entries)
        else:
            sys.stdout.write(render_log(entries))
        return
    _interactive(Session(cursor, viewer))


@app.command("import")
@handles_errors
def import_(
    file: Annotated[Path, typer.Argument(help="A replay file (basra-replay version 1).")],
    match_id: Annotated[
        str | None,
        typer.Option("--id", help="Store the match under this id (default: a fresh one)."),
    ] = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Check a replay file line by line and rule by rule, then store it as a new match.

    Prints the new match id (with --json: its id, the id it was first created as and its number
    of events). A malformed file, or one that breaks the rules, is refused with its line number
    and the reason, and nothing is stored.
    """
    data = file.read_bytes()
    replay_file = load_replay(data)
    new_id = match_id or f"imp-{secrets.token_hex(8)}"
    stream = imported_stream(replay_file, new_id)
    with opened(db, create=True) as service:
        service.append_imported(new_id, stream)
    created = stream[0].event
    assert isinstance(created, MatchCreated)
    first_id = created.origin or created.match_id
    added = list(replay_file.synthesised)  # events the file left out, taken from its header
    if json:
        dump_json(
            {
                "match_id": new_id,
                "first_created_as": first_id,
                "events": len(stream),
                "added": added,
            }
        )
    else:
        typer.echo(new_id)
    echo_err(f"imported {len(stream)} events from {file} (first created as {first_id})")
    if added:
        echo_err(f"added from the header, as the file left them out: {', '.join(added)}")


def _bot_plays_summary(results: list[Verification]) -> str:
    """``verify --all``'s last line: the bot plays of every match, added up."""
    from replays.audit_bots import bot_plays_text, total_bot_plays

    return "in all: " + bot_plays_text(total_bot_plays(r.bot_plays for r in results))


@app.command()
@handles_errors
def verify(
    match_id: Annotated[
        str | None, typer.Argument(help="The match to re-adjudicate (or --all).")
    ] = None,
    all_matches: Annotated[
        bool, typer.Option("--all", help="Verify every stored match, with a progress bar.")
    ] = False,
    receipts_file: Annotated[
        Path | None,
        typer.Option(
            "--receipts",
            help='A file of receipt lines {"seq", "chain"} kept by a client: each must'
            " lie on the stored stream's chain (one MATCH_ID only).",
        ),
    ] = None,
    strong_bots: Annotated[
        bool,
        typer.Option(
            "--bots",
            help="Also re-run every strong bot's pick from its seat's view (slow); without it a"
            " strong bot's play is checked to be a legal card of its own hand.",
        ),
    ] = False,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Verify stored matches: the hash chain, any receipts, every deal from the seed, every
    play, every score.

    Prints one line per match: `ID ok` or `ID seq N` and why that event does not follow from
    the rules (kind `chain`: a stored field changed after it was recorded; `receipt`: a
    receipt the stored stream contradicts). Exits 0 only when every match is clean.
    """
    if (match_id is None) == (not all_matches):
        raise InvalidOptionError("give a MATCH_ID or --all (not both)")
    receipts: list[Receipt] = []
    if receipts_file is not None:
        if match_id is None:
            raise InvalidOptionError("--receipts checks one MATCH_ID, not --all")
        receipts = parse_receipts(receipts_file.read_bytes(), match_id)
    started = time.perf_counter()
    results: list[Verification] = []
    with reading(db) as streams:
        ids = streams.match_ids() if all_matches else [match_id or ""]
        with typer.progressbar(
            ids, label="verifying", file=sys.stderr, hidden=not all_matches
        ) as progress:
            for one in progress:
                result = verify_one(streams, one, receipts)
                if strong_bots and result.ok:
                    result = strong_picks_checked(streams.events(one), result)
                results.append(result)
                if not json:
                    typer.echo(verify_line(result))
                    for note in inverted_time_lines(result):
                        echo_err(note)
    if json:
        dump_json(results)
    bad = sum(1 for r in results if not r.ok)
    if all_matches:
        elapsed = time.perf_counter() - started
        rate = len(results) / elapsed if elapsed > 0 else 0.0
        echo_err(
            f"verified {len(results)} match(es) in {elapsed:.2f} s ({rate:.1f}/s):"
            f" {len(results) - bad} clean, {bad} diverging"
        )
        echo_err(_bot_plays_summary(results))
    if bad:
        raise typer.Exit(1)
