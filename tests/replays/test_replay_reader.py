"""Reading replay files: the writer's output reads back; faults are refused by line and reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.bots import EasyBot
from domain.commands import CreateMatch, PlayCard, TakeSeat
from domain.decide import decide
from domain.events import CardPlayed, MatchCreated
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.redaction import SUPPORT
from domain.state import INITIAL_STATE
from domain.views import seat_view
from replays.errors import ReplayFileError
from replays.importing import imported_stream
from replays.replay_file import write_replay
from replays.replay_reader import load_replay, parse_replay
from tests.replays.streams import GOLDEN_NAMES, golden_bytes


def _lines(name: str = "golden-classic-2") -> list[dict[str, Any]]:
    """The golden file's lines without its chain: the rules, not the chain, judge these edits."""
    lines = [json.loads(line) for line in golden_bytes(name).splitlines()]
    return [{k: v for k, v in line.items() if k not in ("chain", "sealed")} for line in lines]


def _file(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines)


def _refused(data: bytes) -> ReplayFileError:
    with pytest.raises(ReplayFileError) as caught:
        load_replay(data)
    return caught.value


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_a_golden_file_reads_back_and_writes_the_same_bytes(name: str) -> None:
    # given a golden file
    data = golden_bytes(name)
    # when it is read, checked and written again
    replay = load_replay(data)
    again = write_replay(replay.events, replay.header.players, SUPPORT)
    # then nothing changed, byte for byte
    assert again == data
    assert replay.header.match_id == name


def test_an_imported_stream_keeps_everything_but_the_id() -> None:
    # given a golden file imported under a new id
    replay = load_replay(golden_bytes("golden-yemeni-4"))
    stream = imported_stream(replay, "imp-7")
    # when it is exported again
    lines = write_replay(stream, replay.header.players).splitlines()
    original = golden_bytes("golden-yemeni-4").splitlines()
    # then only the header and match_created differ: the new id, and the first id as origin
    assert lines[2:] == original[2:]
    for new, old in zip(lines[:2], original[:2], strict=True):
        a, b = json.loads(new), json.loads(old)
        assert (a["match_id"], a["origin"]) == ("imp-7", "golden-yemeni-4")
        a.update(match_id=b["match_id"], origin=b["origin"])
        assert a == b


def test_an_event_with_no_cause_is_marked_as_imported() -> None:
    lines = _lines()
    for line in lines[1:]:
        line.pop("caused_by")
        line.pop("request_id")
    stream = imported_stream(load_replay(_file(lines)), "imp-1")
    assert {r.caused_by for r in stream} == {"import"}


@pytest.mark.parametrize(
    ("change", "line", "reason"),
    [
        (lambda ls: [], 1, "the file is empty"),
        (lambda ls: [{"format": "csv"}, *ls[1:]], 1, '"format" is not "basra-replay"'),
        (lambda ls: [{**ls[0], "version": 2}, *ls[1:]], 1, "version 2 is not supported"),
        (lambda ls: [{k: v for k, v in ls[0].items() if k != "seed"}, *ls[1:]], 1, "`seed`"),
        (lambda ls: [{**ls[0], "seats": 3}, *ls[1:]], 1, "2 or 4 seats"),
        (lambda ls: [{**ls[0], "ruleset": "poker"}, *ls[1:]], 1, "unknown rule set"),
        (lambda ls: [{**ls[0], "seed": "ABC"}, *ls[1:]], 1, "lowercase hex"),
        (lambda ls: ls[:1], 2, "ends after its header"),
        (lambda ls: [*ls[:5], ls[6], *ls[7:]], 6, "seq 6 where seq 5 belongs"),
        (lambda ls: [*ls[:3], {**ls[3], "type": "card_flipped"}, *ls[4:]], 4, "unknown event"),
        (lambda ls: [*ls[:3], {**ls[3], "at": "yesterday"}, *ls[4:]], 4, "is not a UTC time"),
        (lambda ls: [*ls[:3], {**ls[3], "at": "2026-02-30T10:00:00Z"}, *ls[4:]], 4, "real date"),
        (lambda ls: [*ls[:3], {**ls[3], "round": "one"}, *ls[4:]], 4, "seq 3: expected `int`"),
        (lambda ls: [ls[0], {**ls[1], "match_id": "other"}, *ls[2:]], 2, "differs from the header"),
        (lambda ls: [{**ls[0], "players": ["x", "y"]}, *ls[1:]], 1, "differ from the seats taken"),
    ],
)
def test_a_malformed_file_is_refused_with_its_line(change: Any, line: int, reason: str) -> None:
    error = _refused(_file(change(_lines())))
    assert error.line == line
    assert reason in error.message, error.message
    assert error.message.startswith(f"line {line}: ")


def test_broken_json_and_blank_lines_name_their_line() -> None:
    data = golden_bytes("golden-classic-2").splitlines(keepends=True)
    assert _refused(b"".join([*data[:6], b'{"seq": 6, "type"\n', *data[7:]])).line == 7
    assert "not valid JSON" in _refused(b"".join([*data[:6], b"{oops\n", *data[7:]])).message
    assert _refused(b"".join([*data[:6], b"\n", *data[6:]])).line == 7
    assert _refused(b"\xff\xfe" + b"".join(data)).line == 1


def test_a_card_that_is_not_a_card_is_refused() -> None:
    lines = _lines()
    seq = next(i for i, line in enumerate(lines) if line.get("type") == "card_played")
    lines[seq]["card"] = "7d"
    error = _refused(_file(lines))
    assert error.line == seq + 1 and "'7d' is not a card" in error.message


def test_a_play_that_breaks_the_rules_is_refused_at_its_line() -> None:
    # given a file whose capturing play is made to take nothing
    lines = _lines()
    index = next(
        i for i, line in enumerate(lines) if line.get("type") == "card_played" and line["captured"]
    )
    lines[index].update(captured=[], groups=[], basra=0, sweep=False)
    # then the error names that line and its seq, and why
    error = _refused(_file(lines))
    assert error.line == index + 1
    assert f"seq {lines[index]['seq']}:" in error.message and "the rules take" in error.message


def test_a_file_that_stops_mid_answer_is_refused() -> None:
    lines = _lines()
    scored = next(i for i, line in enumerate(lines) if line.get("type") == "round_scored")
    error = _refused(_file(lines[:scored]))
    assert error.line == scored and "ends too soon" in error.message


def test_a_deal_the_seed_does_not_make_is_refused() -> None:
    lines = _lines()
    index = next(i for i, line in enumerate(lines) if line.get("type") == "cards_dealt")
    hands = lines[index]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    error = _refused(_file(lines))
    assert error.line == index + 1 and "the seed deals" in error.message


def test_without_a_seed_the_deals_are_taken_as_recorded() -> None:
    # given a file with the seed and secret left out (recorded elsewhere)
    lines = _lines()
    lines[0]["seed"] = None
    lines[1]["secret"] = None
    lines[-1]["seed"] = None
    # then it reads and is judged, deals as recorded
    replay = load_replay(_file(lines))
    first = replay.events[0].event
    assert isinstance(first, MatchCreated) and first.secret is None
    # but the same file with a card dealt twice is refused at that deal
    index = next(i for i, line in enumerate(lines) if line.get("type") == "cards_dealt")
    lines[index]["hands"][0][0] = lines[index]["hands"][1][0]
    error = _refused(_file(lines))
    assert error.line == index + 1 and "twice" in error.message


def test_a_foreign_file_may_leave_match_created_and_optional_fields_to_the_header() -> None:
    # given a file whose match_created line holds only its seq, type and time, and whose plays
    # carry only the fields docs/replay-format.md requires
    lines = _lines()
    lines[1] = {"seq": 1, "type": "match_created", "at": lines[1]["at"]}
    for line in lines[2:]:
        if line["type"] == "card_played":
            for optional in ("groups", "sweep", "auto", "caused_by", "request_id"):
                line.pop(optional, None)
    lines[0]["bots"] = [1]
    # then it reads, and the plays are completed by the rules
    replay = load_replay(_file(lines))
    plays = [r.event for r in replay.events if isinstance(r.event, CardPlayed)]
    assert any(p.groups for p in plays) and any(p.sweep for p in plays)


def test_a_seats_export_before_the_end_is_refused_for_its_hidden_hands() -> None:
    # given a match between two people, a few plays in, exported for seat 0
    state = INITIAL_STATE
    recorded: list[RecordedEvent] = []
    commands = [
        CreateMatch(
            match_id="half", ruleset="classic", seats=2, secret=secret_from_text_seed("half")
        ),
        TakeSeat(0, "amira"),
        TakeSeat(1, "bashir"),
    ]
    for command in commands:
        for event in decide(state, command):
            state = evolve(state, event)
            recorded.append(
                RecordedEvent(seq=len(recorded) + 1, at="2026-11-29T20:00:00.000000Z", event=event)
            )
    for _ in range(3):
        seat = state.turn
        assert seat is not None
        card = EasyBot().choose(seat_view(state, seat))
        for event in decide(state, PlayCard(seat, card)):
            state = evolve(state, event)
            recorded.append(
                RecordedEvent(seq=len(recorded) + 1, at="2026-11-29T20:00:01.000000Z", event=event)
            )
    data = write_replay(recorded, state.names, viewer=0)
    # then reading works, loading refuses at the deal: the other hand cannot be checked
    assert parse_replay(data).header.seed is None
    error = _refused(data)
    dealt = next(r.seq for r in recorded if r.event.__struct_config__.tag == "cards_dealt")
    assert error.line == dealt + 1 and "hidden" in error.message
    # while support's export of the same position loads (deals as recorded: no seed yet)
    assert load_replay(write_replay(recorded, state.names, viewer=SUPPORT)).header.seed is None
