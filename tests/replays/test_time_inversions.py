"""Record times that go backwards: a known fault inside an intact chain, tampering otherwise.

Builds before the fix recorded a play that lost a race between server processes with the time it
had first read, a fraction of a millisecond before the event that won. The chain covers ``at``,
so such matches cannot be rewritten: verify and import name the inversion and accept the match
when the chain holds and the step back is within the race window; an unchained stream, a broken
chain or a larger step back is still a divergence of the trail.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from msgspec.structs import replace

from domain.chain import chained
from domain.events import MatchCreated
from domain.recorded import RecordedEvent
from domain.times import utc_micros, utc_text_us
from replays.audit_trail import RACE_WINDOW, TimeInversion
from replays.errors import ReplayFileError
from replays.replay_file import write_replay
from replays.replay_reader import load_replay
from replays.verification import verify_stream
from tests.replays.streams import golden_events

RACED = 11
"""golden-classic-4's seq 11 is bashir's play, a request of its own after seq 10 (a bot's)."""
PLAYERS = ["amira", "easy bot", "bashir", "easy bot"]


def _secret(events: list[RecordedEvent]) -> bytes:
    created = events[0].event
    assert isinstance(created, MatchCreated) and created.secret is not None
    return bytes.fromhex(created.secret)


def _recorded_back(events: list[RecordedEvent], seq: int, back_us: int) -> list[RecordedEvent]:
    """``seq`` (and the rest of its request) recorded ``back_us`` before the event before it,
    as the race fault recorded a play decided again; every later event keeps its time."""
    before = utc_micros(events[seq - 2].at)
    request = events[seq - 1].request_id
    out = list(events)
    for index in range(seq - 1, len(out)):
        if out[index].request_id != request:
            break
        out[index] = replace(out[index], at=utc_text_us(before - back_us))
    return out


def _rechained(events: list[RecordedEvent]) -> list[RecordedEvent]:
    """Every link recomputed, as the server computed them when it recorded the stream."""
    unlinked = [replace(e, chain=None, sealed=None) for e in events]
    return chained(unlinked, None, _secret(events))


def _unchained(events: list[RecordedEvent]) -> list[RecordedEvent]:
    return [replace(e, chain=None, sealed=None) for e in events]


@pytest.fixture(scope="module")
def golden() -> list[RecordedEvent]:
    return golden_events("golden-classic-4")


def test_a_race_inversion_inside_an_intact_chain_verifies_and_is_named(
    golden: list[RecordedEvent],
) -> None:
    # given a match whose seq 11 was recorded 510 µs before seq 10, its chain intact
    events = _rechained(_recorded_back(golden, RACED, 510))
    # when it is verified
    result = verify_stream("golden-classic-4", events)
    # then it is ok, chained, and the inversion is named for what it is
    assert result.ok and result.divergence is None and result.chain == "chained"
    assert result.inverted_times == (
        TimeInversion(
            seq=RACED,
            at=events[RACED - 1].at,
            earlier_seq=RACED - 1,
            earlier_at=events[RACED - 2].at,
        ),
    )
    assert "lost a race" in result.inverted_times[0].explanation


def test_a_clean_match_reports_no_inversion(golden: list[RecordedEvent]) -> None:
    result = verify_stream("golden-classic-4", golden)
    assert result.ok and result.inverted_times == ()


def test_the_same_inversion_without_a_chain_is_a_divergence_of_the_trail(
    golden: list[RecordedEvent],
) -> None:
    # given the same inversion in a stream with no chain to vouch for its times
    events = _unchained(_recorded_back(golden, RACED, 510))
    # then verify fails it at that seq, as the trail
    result = verify_stream("golden-classic-4", events)
    assert not result.ok and result.divergence is not None
    assert (result.divergence.seq, result.divergence.kind) == (RACED, "trail")
    assert "times never go backwards" in result.divergence.explanation


def test_a_time_changed_after_it_was_recorded_breaks_the_chain(
    golden: list[RecordedEvent],
) -> None:
    # given the stored time of seq 11 moved back without the secret (the chain not recomputed)
    events = _recorded_back(golden, RACED, 510)
    # then the chain breaks there: tampering, not the race fault
    result = verify_stream("golden-classic-4", events)
    assert not result.ok and result.divergence is not None
    assert (result.divergence.seq, result.divergence.kind) == (RACED, "chain")


def test_a_step_back_beyond_the_race_window_is_a_divergence_even_inside_a_chain(
    golden: list[RecordedEvent],
) -> None:
    # given an intact chain whose seq 11 falls farther back than any race could put it
    beyond = RACE_WINDOW + timedelta(milliseconds=1)
    events = _rechained(_recorded_back(golden, RACED, beyond // timedelta(microseconds=1)))
    # then verify fails it as the trail
    result = verify_stream("golden-classic-4", events)
    assert not result.ok and result.divergence is not None
    assert (result.divergence.seq, result.divergence.kind) == (RACED, "trail")
    assert result.inverted_times == ()


def test_an_export_with_a_race_inversion_imports(golden: list[RecordedEvent]) -> None:
    # given the full export of a match with the race inversion inside its intact chain
    events = _rechained(_recorded_back(golden, RACED, 510))
    data = write_replay(events, PLAYERS)
    # when it is read for import, then it is accepted whole
    replay = load_replay(data)
    assert len(replay.events) == len(events)
    # and the same file unchained is refused at that line
    with pytest.raises(ReplayFileError, match="times never go backwards"):
        load_replay(write_replay(_unchained(_recorded_back(golden, RACED, 510)), PLAYERS))
