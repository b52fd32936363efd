"""The compact form's golden rows: today's encoder writes exactly the bytes stored up to now.

``tests/data/golden/compact_rows.jsonl`` holds 900 rows as the first compact encoder wrote them
(``make_compact_rows.py`` beside it says where each event comes from: the golden replay files,
bot matches of every rule set, the fixture stores, every kind with each defaulted field as the
last one set, and Hypothesis's examples). Every stored row of every store must keep reading the
same, and a row written today must be byte for byte the row an earlier build wrote for the same
event, or a migrated store and a fresh one would differ.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from app.store.compact import COMPACT_TOPICS, decode_compact, encode_compact
from domain.events import EVENT_TYPES, AnyEvent
from domain.recorded import RecordedEvent

GOLDEN = Path(__file__).parent.parent.parent / "data" / "golden" / "compact_rows.jsonl"


class _Recorded(msgspec.Struct, kw_only=True):
    seq: int
    at: str
    event: AnyEvent
    caused_by: str | None = None
    request_id: str | None = None
    chain: str | None = None
    sealed: str | None = None


class _GoldenRow(msgspec.Struct):
    recorded: _Recorded
    topic: str
    state: str


def golden_rows() -> list[tuple[RecordedEvent, str, bytes]]:
    """The golden rows: (recorded event, topic, state bytes)."""
    decoder = msgspec.json.Decoder(_GoldenRow)
    rows = []
    for line in GOLDEN.read_bytes().splitlines():
        row = decoder.decode(line)
        recorded = RecordedEvent(**msgspec.structs.asdict(row.recorded))
        rows.append((recorded, row.topic, bytes.fromhex(row.state)))
    return rows


ROWS = golden_rows()


def test_the_golden_rows_cover_every_kind_and_many_shapes() -> None:
    # given the golden file, then it holds every event kind, many rows of each
    kinds = {type(recorded.event) for recorded, _, _ in ROWS}
    assert kinds == set(EVENT_TYPES)
    assert len(ROWS) > 800
    # and rows whose time or chain are stored as text, not only as numbers and raw bytes
    assert any(len(r.at) != len("2026-12-04T10:00:00.000000Z") for r, _, _ in ROWS)
    assert any(r.chain is not None and len(r.chain) != 64 for r, _, _ in ROWS)


def test_todays_encoder_writes_the_golden_bytes() -> None:
    # when each golden event is encoded today, then it is the very row stored before
    wrong = [
        (recorded.seq, type(recorded.event).__name__)
        for recorded, topic, state in ROWS
        if encode_compact(recorded) != (topic, state)
    ]
    assert wrong == []


def test_the_golden_bytes_decode_to_their_events() -> None:
    # when each golden row is read, then it is the event it was written from
    for recorded, topic, state in ROWS:
        assert topic == COMPACT_TOPICS[type(recorded.event)]
        assert decode_compact("m-golden", recorded.seq, topic, state) == recorded


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_each_kind_round_trips_through_its_golden_rows(cls: type) -> None:
    # given the golden rows of one kind, when decoded and encoded again, then unchanged
    mine = [(r, t, s) for r, t, s in ROWS if type(r.event) is cls]
    assert mine
    for recorded, topic, state in mine:
        back = decode_compact("m", recorded.seq, topic, state)
        assert encode_compact(back) == (topic, state)
