"""Reading a replay file is a trust boundary: forged trails and cut-short files are refused,
and a file written elsewhere with only the required lines is completed from its header."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.events import CardPlayed, MatchCreated, SeatTaken
from replays.audit import audit
from replays.audit_trail import SYNTHESISED_CAUSE
from replays.errors import ReplayFileError
from replays.importing import imported_stream
from replays.replay_file import write_replay
from replays.replay_reader import load_replay, parse_replay
from tests.replays.streams import bot_match, golden_bytes

Lines = list[dict[str, Any]]


def _lines(name: str) -> Lines:
    """The golden file's lines without its chain: the rules, not the chain, judge these edits."""
    return [_unchained(json.loads(line)) for line in golden_bytes(name).splitlines()]


def _unchained(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k not in ("chain", "sealed")}


def _file(lines: Lines) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _refused(lines: Lines) -> ReplayFileError:
    with pytest.raises(ReplayFileError) as caught:
        load_replay(_file(lines))
    return caught.value


def _with(lines: Lines, seq: int, **fields: Any) -> Lines:
    out = [dict(line) for line in lines]
    out[seq].update(fields)  # line seq + 1 of the file is index seq
    return out


# golden-classic-4: amira (seat 0, tok-amira) and bashir (seat 2, tok-bashir) with easy bots at
# seats 1 and 3. Seq 9 is amira's play, seq 10 the bot at seat 1's reply, seq 4 the first
# round, started by bashir's taking the last seat.
FORGED = [
    (9, {"caused_by": "seat:2/token:tok-bashir"}, "a seat plays only its own cards"),
    (9, {"caused_by": "seat:0/token:tok-forged"}, "a token seat 0 never held"),
    (10, {"caused_by": "bot:3"}, "a bot plays only its own seat's cards"),
    (9, {"caused_by": "bot:0"}, "no bot sits at seat 0"),
    (3, {"caused_by": "seat:0/token:tok-amira"}, "seat 2 is taken, but the cause is seat 0"),
    (4, {"caused_by": "seat:1/token:tok-x"}, "nobody has taken seat 1"),
    (9, {"caused_by": "admin"}, "is not a cause"),
    (9, {"caused_by": "support:nadia"}, "support (every agent) watches a match but never acts"),
    (4, {"caused_by": "support:env"}, "no event of a match is support's"),
    (9, {"at": "2026-11-29T20:00:00.000000Z"}, "times never go backwards"),
]


@pytest.mark.parametrize(("seq", "change", "reason"), FORGED)
def test_a_forged_dispute_trail_is_refused_at_its_line(
    seq: int, change: dict[str, Any], reason: str
) -> None:
    # given a file that follows every rule but whose trail was changed at one event
    lines = _with(_lines("golden-classic-4"), seq, **change)
    # when it is read, then it is refused at that event's line, naming the reason
    error = _refused(lines)
    assert error.line == seq + 1, error.message
    assert error.message.startswith(f"line {seq + 1}: seq {seq}: "), error.message
    assert reason in error.message, error.message
    # and verify finds the same event in the stream
    report = audit(parse_replay(_file(lines)).events)
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "trail")


@pytest.mark.parametrize(
    ("seq", "cause"),
    [(9, "server"), (9, "import"), (9, None), (10, "server"), (4, "server")],
)
def test_causes_that_are_not_seats_stay_valid(seq: int, cause: str | None) -> None:
    # given a file whose play or deal is caused by the server or an import
    lines = _with(_lines("golden-classic-4"), seq, caused_by=cause)
    if cause is None:
        del lines[seq]["caused_by"]
    # then it reads
    assert len(load_replay(_file(lines)).events) == len(lines) - 1


def test_a_persons_own_play_caused_by_the_clock_is_refused() -> None:
    # given a person's own play (not auto) recorded as caused by the clock
    lines = _with(_lines("golden-classic-4"), 9, caused_by="clock")
    # then verify refuses it at its seq: the clock only plays for a seat whose turn ran out (R25)
    report = audit(parse_replay(_file(lines)).events)
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (9, "trail")
    assert "clock" in report.divergence.explanation


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_persons_play_credited_to_the_other_person_is_refused(data: st.DataObject) -> None:
    # given any play of amira or bashir, recorded as caused by the other one's seat and token
    lines = _lines("golden-classic-4")
    plays = [
        line["seq"]
        for line in lines[1:]
        if line["type"] == "card_played" and line["caused_by"].startswith("seat:")
    ]
    seq = data.draw(st.sampled_from(plays))
    other = {0: "seat:2/token:tok-bashir", 2: "seat:0/token:tok-amira"}[lines[seq]["seat"]]
    # then the file is refused at that play's line
    error = _refused(_with(lines, seq, caused_by=other))
    assert error.line == seq + 1 and "only its own cards" in error.message


def _stops_after_a_play(lines: Lines) -> Lines:
    """The file cut right after a play that another play follows (nothing else owed)."""
    for index in range(len(lines) // 2, len(lines) - 1):
        if lines[index]["type"] == lines[index + 1]["type"] == "card_played":
            return lines[: index + 1]
    raise LookupError("no two plays in a row")


def test_a_file_that_reveals_its_seed_and_stops_is_refused() -> None:
    # given a finished match's file, cut short after a play
    lines = _stops_after_a_play(_lines("golden-classic-2"))
    # then it is refused at its last line: the seed is revealed only at the end
    error = _refused(lines)
    assert error.line == len(lines)
    assert "ends too soon" in error.message and "reveals the match secret" in error.message


def test_a_table_of_bots_that_stops_is_refused() -> None:
    # given a bots-only match written without its seed (so the seed check cannot fire)
    recorded = bot_match("yemeni", 2, "trust/bots", "easy")
    lines = [json.loads(line) for line in write_replay(recorded, ["easy bot"] * 2).splitlines()]
    lines[0]["seed"] = None
    lines[1]["secret"] = None
    lines = _stops_after_a_play(lines)
    # then it is refused at its last line: a table of bots plays to its end at once
    error = _refused(lines)
    assert error.line == len(lines)
    assert "ends too soon" in error.message and "every seat is a bot" in error.message


def test_a_support_export_of_a_match_in_progress_still_reads() -> None:
    # given a match between people cut after a play, with no seed (a support export mid-match)
    lines = _stops_after_a_play(_lines("golden-classic-4"))
    lines[0]["seed"] = None
    lines[1]["secret"] = None
    # then it reads: people may still be playing it
    assert len(load_replay(_file(lines)).events) == len(lines) - 1


def _minimal(players: Any) -> Lines:
    """golden-classic-2 as another system might write it: only the required lines and fields."""
    lines = _lines("golden-classic-2")
    header = {
        k: lines[0][k] for k in ("format", "version", "match_id", "ruleset", "seats", "target")
    }
    header["seed"] = None
    if players is not None:
        header["players"] = players
    events = [line for line in lines[1:] if line["type"] not in ("match_created", "seat_taken")]
    out: Lines = [header]
    for seq, line in enumerate(events, 1):
        kept = {k: v for k, v in line.items() if k not in ("caused_by", "request_id", "seed")}
        for optional in ("groups", "sweep", "auto"):
            kept.pop(optional, None)
        out.append({**kept, "seq": seq})
    return out


@pytest.mark.parametrize(
    ("players", "names"),
    [
        (None, ("player 0", "player 1")),
        ([], ("player 0", "player 1")),
        (["amira", "omar"], ("amira", "omar")),
    ],
)
def test_a_file_with_only_the_required_lines_is_completed_from_its_header(
    players: Any, names: tuple[str, str]
) -> None:
    # given a file with no match_created or seat_taken line, no client seeds, commitment or
    # players, and no seed
    lines = _minimal(players)
    # when it is read
    replay = load_replay(_file(lines))
    # then the table and its seats are added from the header, marked as the import's
    assert replay.synthesised == ("match_created", "seat_taken", "seat_taken")
    assert replay.lines[:4] == (0, 0, 0, 2)
    added = replay.events[:3]
    assert {item.caused_by for item in added} == {SYNTHESISED_CAUSE}
    assert {item.at for item in added} == {lines[1]["at"]}
    created = added[0].event
    assert isinstance(created, MatchCreated)
    assert (created.secret, created.commitment, created.client_seeds) == (None, None, ("", ""))
    seats = [item.event for item in added[1:]]
    assert all(isinstance(s, SeatTaken) for s in seats)
    assert tuple(s.name for s in seats if isinstance(s, SeatTaken)) == names
    # and every file event follows, in order, completed by the rules
    assert len(replay.events) == len(lines) - 1 + 3
    plays = [r.event for r in replay.events if isinstance(r.event, CardPlayed)]
    assert any(p.groups for p in plays)
    # and stored under a new id it keeps where it came from
    stream = imported_stream(replay, "imp-new")
    first = stream[0].event
    assert isinstance(first, MatchCreated)
    assert (first.match_id, first.origin) == ("imp-new", "golden-classic-2")
    assert audit(stream).ok


def test_a_minimal_file_that_breaks_the_rules_names_its_own_line() -> None:
    # given a minimal file whose third line scores a Basra that is not one
    lines = _minimal(None)
    index = next(i for i, line in enumerate(lines) if line.get("type") == "card_played")
    lines[index]["basra"] = 10
    # then the error names the file's line and seq, not the stored ones
    error = _refused(lines)
    assert error.line == index + 1
    assert error.message.startswith(f"line {index + 1}: seq {index}: "), error.message
