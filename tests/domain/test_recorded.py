"""The record shared by the store and the replay tooling: numbering and the event line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import InvalidNameError
from domain.events import SeatTaken
from domain.names import bot_name, seat_name
from domain.recorded import RecordedEvent, event_line, misnumbered
from domain.redaction import SUPPORT


@given(st.lists(st.integers(min_value=-3, max_value=12), max_size=12))
def test_misnumbered_names_the_first_seq_out_of_place(seqs: list[int]) -> None:
    # given any list of seqs, when it is checked
    wrong = misnumbered(seqs)

    # then it is None exactly for 1, 2, 3…, and otherwise names the first seq out of place
    if seqs == list(range(1, len(seqs) + 1)):
        assert wrong is None
    else:
        assert wrong is not None
        found, expected = wrong
        assert seqs[: expected - 1] == list(range(1, expected))
        assert seqs[expected - 1] == found != expected


def test_a_gap_and_a_repeat_are_both_misnumbered() -> None:
    assert misnumbered([1, 2, 4]) == (4, 3)
    assert misnumbered([1, 2, 2, 3]) == (2, 3)
    assert misnumbered([]) is None


def test_the_cause_and_request_id_are_on_the_support_line_only() -> None:
    # given a recorded seat with its support-only metadata
    recorded = RecordedEvent(
        seq=2,
        at="2020-01-02T03:04:05.000006Z",
        event=SeatTaken(seat=0, name="rita"),
        caused_by="seat:0/token:t",
        request_id="r-1",
    )

    # when it is written for support and for a seat
    support = json.loads(event_line(recorded, SUPPORT, False))
    seat = json.loads(event_line(recorded, 0, False))

    # then seq comes first, and only support sees who caused it and the request
    assert list(support)[:2] == ["seq", "at"]
    assert (support["caused_by"], support["request_id"]) == ("seat:0/token:t", "r-1")
    assert "caused_by" not in seat and "request_id" not in seat
    assert seat["type"] == "seat_taken" and seat["name"] == "rita"


@given(st.sampled_from(["easy", "random", "strong", "Easy"]))
def test_a_bot_seat_name_is_one_a_person_cannot_take(kind: str) -> None:
    # the name a bot sits under is refused to a person, so the two never read alike
    with pytest.raises(InvalidNameError):
        seat_name(bot_name(kind))
