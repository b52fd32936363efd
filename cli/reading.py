"""The read-only commands' work, without typer: matches, export, replay --step, verify ID.

The typer commands call these, and so does the quick start (cli.quick) that answers the same
command lines without loading typer; both print exactly the same bytes. Streams are read through
``reading`` (sqlite3 alone on a SQLite store), so none of these loads eventsourcing there.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from cli.shell import Streams, checked_status, dump_json, echo_err, opened, reading, viewer_of
from replays.divergence import Divergence

if TYPE_CHECKING:
    from app.readmodels.matches import MatchSummaryView
    from app.readmodels.models import ReadModels
    from domain.recorded import RecordedEvent
    from replays.verification import Receipt
    from replays.verification import Verification as VerifyResult

HEADER = (
    "MATCH",
    "RULESET",
    "SEATS",
    "STATUS",
    "TOTALS",
    "RESULT",
    "ROUNDS",
    "PLAYS",
    "CREATED",
    "PLAYERS",
    "PROBLEM",
)
"""The columns of ``basra matches``, printed as its first line."""


def _catch_up(read: ReadModels) -> int:
    return read.catch_up()


def list_matches(
    db: Path | None,
    status: str | None,
    limit: int | None,
    json: bool,
    *,
    catch_up: Callable[[ReadModels], int] = _catch_up,
) -> None:
    """``basra matches``: the read models brought up to date, then one line per match."""
    status = checked_status(status)
    from cli.projections import projections_of

    with opened(db) as service, projections_of(service) as projections:
        read = projections.matches
        catch_up(read)
        rows = read.matches(status=status, limit=limit)
        rows = named_rows(rows, read.shown_names(row_player_ids(rows)))
    print_matches(rows, status, json)


def list_fresh_matches(db: Path | None, status: str | None, limit: int | None, json: bool) -> bool:
    """``basra matches`` when the read models have nothing left to fold (sqlite3 alone).

    False, having printed nothing, when they have entries to fold or the store is not a SQLite
    file: then ``list_matches`` answers.
    """
    from app.config import existing_store, readmodel_path, resolve_store
    from app.readmodels.reader import fresh_matches, fresh_names
    from app.store.sqlite_reader import SQLiteStreams

    status = checked_status(status)
    config = existing_store(resolve_store(db))
    if config.sqlite_path is None:
        return False
    streams = SQLiteStreams(config.sqlite_path)
    try:
        position = streams.max_position()
        path = readmodel_path(config)
        rows = fresh_matches(path, config.identity(), position, status=status, limit=limit)
        if rows is None:
            return False
        ids = row_player_ids(rows)
        shown = fresh_names(path, streams.player_versions(ids)) if ids else {}
    finally:
        streams.close()
    if shown is None:
        return False  # a player renamed or erased since the directory last looked: fold first
    print_matches(named_rows(rows, shown), status, json)
    return True


def row_player_ids(rows: list[MatchSummaryView]) -> list[str]:
    """The registered players seated in ``rows``, each once, in id order."""
    return sorted({pid for row in rows for pid in row.player_ids if pid is not None})


def named_rows(rows: list[MatchSummaryView], shown: dict[str, str]) -> list[MatchSummaryView]:
    """``rows`` with each registered player's seat under the name ``shown`` gives now."""
    from domain.players import shown_seat_names

    return [
        msgspec.structs.replace(
            row, players=list(shown_seat_names(row.players, row.player_ids, shown))
        )
        if row.player_ids
        else row
        for row in rows
    ]


def named_events(streams: Streams, match_id: str) -> list[RecordedEvent]:
    """The stream of ``match_id`` with each registered player's seat under their name now.

    A seat records who sat down by id; a rename shows everywhere, and an erased name shows as
    ``deleted player`` (domain.players.shown_seat_events, as the HTTP API shows them). The
    names are read from the players' own streams, so they are never behind.
    """
    from domain.players import seated_player_ids, shown_seat_events

    events = streams.events(match_id)
    ids = sorted(set(seated_player_ids(events)))
    if not ids:
        return events  # nobody registered sat here: nothing to look up
    return shown_seat_events(events, shown_names(streams, ids))


def shown_names(streams: Streams, player_ids: list[str]) -> dict[str, str]:
    """The name each of these players shows under now, read from the store."""
    from app.store.sqlite_reader import SQLiteStreams

    if isinstance(streams, SQLiteStreams):
        return {pid: p.shown_name for pid, p in streams.players(player_ids).items()}
    from app.service import MatchService
    from app.service.players import PlayerService

    assert isinstance(streams, MatchService)
    return PlayerService(streams.store).shown_names(player_ids)


def print_matches(rows: list[MatchSummaryView], status: str | None, json: bool) -> None:
    """The output of ``basra matches``: a header and one line per match, or JSON."""
    if json:
        dump_json(rows)
        return
    if not rows:
        echo_err(f"no {status} matches recorded" if status else "no matches recorded")
        return
    lines = ["\t".join(HEADER)]
    lines.extend(match_line(row) for row in rows)
    sys.stdout.write("\n".join(lines) + "\n")


def result_text(row: MatchSummaryView) -> str:
    """How a match ended, e.g. ``side 1 won (forfeit)`` or ``draw (round_limit)``; else empty."""
    if row.status != "ended":
        return ""
    who = "draw" if row.winner is None else f"side {row.winner} won"
    return f"{who} ({row.end_reason})" if row.end_reason else who


def match_line(row: MatchSummaryView) -> str:
    """One match as a line of ``basra matches`` (tab-separated, the columns of HEADER)."""
    return "\t".join(
        [
            row.match_id,
            row.ruleset or "?",
            str(row.seats or "?"),
            row.status,
            "-".join(str(t) for t in row.totals),
            result_text(row) or "-",
            str(row.rounds),
            str(row.plays),
            row.created or "-",
            ", ".join(p or "(open)" for p in row.players) or "-",
            row.problem or "-",
        ]
    )


def export_match(
    match_id: str, output: Path | None, as_seat: int | None, support: bool, db: Path | None
) -> None:
    """``basra export``: the replay file of a stored stream, for support or one seat."""
    from domain.evolve import fold
    from replays.cursor import MatchCursor
    from replays.replay_file import write_replay

    viewer = viewer_of(as_seat, support)
    with reading(db) as streams:
        recorded = named_events(streams, match_id)
    MatchCursor(recorded).check_viewer(viewer)
    data = write_replay(recorded, fold(r.event for r in recorded).names, viewer)
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.write_bytes(data)
        echo_err(f"wrote {output} ({len(recorded)} events)")


def replay_step(
    match_id: str,
    step: int | None,
    as_seat: int | None,
    support: bool,
    db: Path | None,
    json: bool,
) -> None:
    """``basra replay ID --step N`` (or ``--json``): one position, printed or as data."""
    from replays.banner import divergence_at
    from replays.cursor import MatchCursor
    from replays.render import render_frame, report

    viewer = viewer_of(as_seat, support)
    with reading(db) as streams:
        events = named_events(streams, match_id)
    cursor = MatchCursor(events)
    cursor.check_viewer(viewer)
    position = cursor.position(step if step is not None else cursor.last_seq, viewer)
    # A match that does not verify says so from its first bad event on.
    divergence = divergence_at(cursor, position.seq, viewer)
    if json:
        dump_json(report(position, divergence))
    else:
        sys.stdout.write(render_frame(position, divergence))


_CHAIN_WORDS: Final = {
    "chained": "chain checked",
    "unchained": "no chain (recorded before it, or imported without one)",
    "unchecked": "chain unchecked (the secret is not revealed)",
}


def verify_one(streams: Streams, match_id: str, receipts: Sequence[Receipt] = ()) -> VerifyResult:
    """Verify one stored match: its chain, ``receipts``, then the rules; a stored event that
    cannot be read is a divergence."""
    from app.errors import CorruptEventError
    from replays.verification import Verification, verify_stream  # the chain and the rules

    try:
        events = streams.events(match_id)
    except CorruptEventError as error:
        divergence = Divergence(seq=error.seq, kind="corrupt", explanation=error.message)
        return Verification(
            match_id=match_id,
            ok=False,
            events=0,
            seeded=False,
            chain="unchained",
            divergence=divergence,
        )
    return verify_stream(match_id, events, receipts)


def verify_line(result: VerifyResult) -> str:
    """``ID ok …`` or ``ID seq N kind: why`` for the plain output of ``basra verify``."""
    from replays.audit_bots import bot_plays_text  # loaded with the rules, once verified

    if result.divergence is None:
        seeded = "deals checked against the seed" if result.seeded else "deals as recorded"
        chain = _CHAIN_WORDS.get(result.chain, result.chain)
        receipts = f", {result.receipts} receipt(s) found in the stream" if result.receipts else ""
        return (
            f"{result.match_id}\tok\t{result.events} events, {seeded}, {chain}{receipts}, "
            + bot_plays_text(result.bot_plays)
        )
    d = result.divergence
    return f"{result.match_id}\tseq {d.seq}\t{d.kind}: {d.explanation}"


def inverted_time_lines(result: VerifyResult) -> list[str]:
    """One line per record time that goes backwards inside the intact chain of an ``ok`` match
    (``ID note: …``): a known fault of earlier builds, not a divergence."""
    return [f"{result.match_id}\tnote: {found.explanation}" for found in result.inverted_times]


def verify_match(match_id: str, db: Path | None, json: bool) -> int:
    """``basra verify ID``: one line (or JSON list) for the match; exit status 0 only if clean."""
    with reading(db) as streams:
        result = verify_one(streams, match_id)
    if json:
        dump_json([result])
    else:
        sys.stdout.write(verify_line(result) + "\n")
        for note in inverted_time_lines(result):
            sys.stderr.write(note + "\n")
    return 0 if result.ok else 1
