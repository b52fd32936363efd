"""The compact stored form (app/store/compact.py): every event reads back exactly as written.

The hash chain, replays and every tool work on the decoded RecordedEvent, so the form is right
exactly when decoding gives back what was encoded, for every kind and every value a field can
hold, and when the bytes of a stored row never change meaning (the golden rows below).
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import CorruptEventError
from app.store.compact import (
    COMPACT_TOPICS,
    LAYOUTS,
    decode_compact,
    encode_compact,
    is_compact_topic,
)
from app.store.decoding import TOPICS, decode_row
from app.store.mapper import EventMapper
from domain.cards import DECK
from domain.commands import CreateMatch
from domain.events import (
    EVENT_TYPES,
    CardPlayed,
    CardsDealt,
    Event,
    FloorDealt,
    LastPickup,
    MatchCreated,
    MatchEnded,
    RematchCreated,
    RoundScored,
    RoundStarted,
    SeatTaken,
    SideScore,
)
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

UNSET = msgspec.UNSET
cards = st.sampled_from(DECK)
card_tuples = st.lists(cards, max_size=6).map(tuple)
small = st.integers(min_value=0, max_value=400)
text = st.text(max_size=12)
hex64 = st.binary(min_size=32, max_size=32).map(bytes.hex)


def unset_or(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    """A table setting: absent (UNSET) or a value."""
    return st.one_of(st.just(UNSET), strategy)


EVENTS: st.SearchStrategy[Event] = st.one_of(
    st.builds(
        MatchCreated,
        match_id=text,
        ruleset=st.sampled_from(["classic", "egyptian", "lebanese", "yemeni", "jordanian"]),
        seats=st.sampled_from([2, 4]),
        target=small,
        secret=st.one_of(st.none(), hex64),
        client_seeds=st.lists(text, max_size=4).map(tuple),
        commitment=st.one_of(st.none(), hex64),
        bots=st.lists(st.integers(0, 3), max_size=4).map(tuple),
        bot_kind=st.sampled_from(["easy", "random", "strong"]),
        origin=st.one_of(st.none(), text),
        turn_seconds=unset_or(small),
        private=unset_or(st.booleans()),
        spectators=unset_or(st.booleans()),
        rematch_of=unset_or(text),
        bot_kinds=unset_or(st.dictionaries(st.sampled_from("0123"), text, max_size=2)),
        bot_budget=unset_or(small),
        bot_logic=unset_or(st.integers(1, 3)),
        reserved=unset_or(st.lists(st.one_of(st.none(), text), max_size=4).map(tuple)),
    ),
    st.builds(
        SeatTaken,
        seat=st.integers(0, 3),
        name=text,
        token_id=st.one_of(st.none(), text),
        token_hash=st.one_of(st.none(), hex64),
        player_id=unset_or(text),
        client_seed=unset_or(text),
    ),
    st.builds(RoundStarted, round=small, dealer=st.integers(0, 3)),
    st.builds(
        CardsDealt,
        round=small,
        deal=st.integers(1, 6),
        hands=st.lists(st.one_of(st.none(), card_tuples), max_size=4).map(tuple),
    ),
    st.builds(
        FloorDealt, round=small, cards=card_tuples, reburied=card_tuples, deadline=unset_or(text)
    ),
    st.builds(
        CardPlayed,
        seat=st.integers(0, 3),
        card=cards,
        captured=card_tuples,
        basra=st.sampled_from([0, 10, 20, 30]),
        groups=st.lists(card_tuples, max_size=3).map(tuple),
        sweep=st.booleans(),
        auto=st.booleans(),
        deadline=unset_or(text),
    ),
    st.builds(
        RoundScored,
        round=small,
        last_pickup=st.one_of(
            st.none(), st.builds(LastPickup, side=st.integers(0, 1), cards=card_tuples)
        ),
        sides=st.lists(
            st.builds(
                SideScore, cards=small, majority=small, points=small, basra=small, total=small
            ),
            max_size=2,
        ).map(tuple),
        carry=small,
        totals=st.lists(small, max_size=2).map(tuple),
    ),
    st.builds(
        MatchEnded,
        winner=st.one_of(st.none(), st.integers(0, 1)),
        reason=text,
        totals=st.lists(small, max_size=2).map(tuple),
        seed=st.one_of(st.none(), hex64),
        seat=st.one_of(st.none(), st.integers(0, 3)),
    ),
    st.builds(RematchCreated, match_id=text),
)

TIMES = st.one_of(
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")),
    st.just("2026-11-29T21:44:00Z"),  # an imported file's: no fraction
    st.just("2026-11-29T21:44:00.5Z"),
    text,
)
DIGESTS = st.one_of(st.none(), hex64, hex64.map(str.upper), text)

RECORDED = st.builds(
    RecordedEvent,
    seq=st.integers(1, 10_000),
    at=TIMES,
    event=EVENTS,
    caused_by=st.one_of(st.none(), st.sampled_from(["server", "bot:1", "clock"]), text),
    request_id=st.one_of(st.none(), text),
    chain=DIGESTS,
    sealed=DIGESTS,
)


@settings(max_examples=400, deadline=None)
@given(RECORDED)
def test_any_recorded_event_reads_back_exactly(recorded: RecordedEvent) -> None:
    # given any recorded event, when it is stored in the compact form and read back
    topic, state = encode_compact(recorded)
    back = decode_compact("m-x", recorded.seq, topic, state)
    # then it is the same event with the same trail, chain and seal
    assert back == recorded
    assert is_compact_topic(topic) and topic == COMPACT_TOPICS[type(recorded.event)]
    # and the store's row reader (which also reads the JSON form) agrees
    assert decode_row("m-x", recorded.seq, topic, state) == recorded


@pytest.mark.parametrize("ruleset", ["classic", "egyptian", "lebanese", "yemeni", "jordanian"])
@pytest.mark.parametrize("seats", [2, 4])
def test_every_event_of_whole_matches_reads_back_and_is_a_quarter_of_the_json(
    ruleset: str, seats: int
) -> None:
    # given a whole bot match of each rule set and table size, with chain links
    events, _ = play_match(
        CreateMatch(
            match_id=f"m-{ruleset}-{seats}",
            ruleset=ruleset,
            seats=seats,
            secret=secret_from_text_seed(f"compact/{ruleset}/{seats}"),
            bots=tuple(range(seats)),
        )
    )
    stream = [
        RecordedEvent(
            seq=n,
            at=f"2026-12-02T10:{n // 60 % 60:02d}:{n % 60:02d}.{n:06d}Z",
            event=e,
            caused_by="server" if n == 1 else f"bot:{n % seats}",
            chain=secret_from_text_seed(f"link/{n}").hex(),
        )
        for n, e in enumerate(events, 1)
    ]
    mapper = EventMapper()
    compact = json = 0
    for recorded in stream:
        # when each is stored and read back
        row = mapper.to_stored_event("11", recorded)
        # then it is the event as recorded
        assert mapper.to_recorded(row, "m") == msgspec.structs.replace(recorded)
        compact += len(row.state)
        json += len(mapper.to_json_stored_event("11", recorded).state)
    # and the compact rows take under a third of the JSON ones' bytes
    assert compact * 3 < json


GOLDEN = [
    (
        RecordedEvent(
            seq=5,
            at="2000-07-05T02:26:13.000000Z",
            event=CardPlayed(
                seat=1,
                card="JD",
                captured=("3S", "3H"),
                basra=0,
                groups=(("3S",), ("3H",)),
            ),
            caused_by="bot:1",
            chain="03c8e1e3454afd55f27eb7f05e30f2dc2fd736cee958330459e4b1bd1419e623",
        ),
        "p",
        "9595011792291c00929129911ccf00036ba0f49cfb40a5626f743a31c0c42003c8e1e3454afd55f27eb7f05e"
        "30f2dc2fd736cee958330459e4b1bd1419e623",
    ),
    (
        RecordedEvent(
            seq=2,
            at="2000-07-05T02:26:13.5Z",
            event=RoundStarted(round=1, dealer=0),
            caused_by="server",
            request_id="req-1",
            sealed="not a digest",
        ),
        "r",
        "98920100b6323030302d30372d30355430323a32363a31332e355aa6736572766572a57265712d31c0c0c0"
        "ac6e6f74206120646967657374",
    ),
]


@pytest.mark.parametrize(("recorded", "topic", "state"), GOLDEN)
def test_stored_bytes_never_change_meaning(recorded: RecordedEvent, topic: str, state: str) -> None:
    # given rows as this form was first written, when read, then they are these events
    assert decode_compact("m", recorded.seq, topic, bytes.fromhex(state)) == recorded
    # and the same events are still written as those very bytes
    assert encode_compact(recorded) == (topic, bytes.fromhex(state))


def test_every_field_of_every_event_has_its_place_in_the_layout() -> None:
    # a field added to an event and not to its stored layout (at the end) would not be stored
    for cls in EVENT_TYPES:
        names = [f.name for f in msgspec.structs.fields(cls)]
        assert sorted(LAYOUTS[cls]) == sorted(names), cls.__name__
    # and the compact topics are one letter each, distinct, and no JSON form's topic
    letters = list(COMPACT_TOPICS.values())
    assert len(set(letters)) == len(EVENT_TYPES) and all(len(t) == 1 for t in letters)
    assert not set(letters) & set(TOPICS.values())


@pytest.mark.parametrize(
    "state",
    [b"", b"\x00garbage", b"\x91\x90", b"\x92\x93\x01\x01\x91\x91\x7f\x00", b"{not json"],
)
def test_a_damaged_row_is_a_corrupt_event_naming_match_and_seq(state: bytes) -> None:
    # given a compact row whose bytes are damaged (or a card index past the deck)
    # when it is read, then the error names the match and the seq
    with pytest.raises(CorruptEventError) as caught:
        decode_compact("m-bad", 7, "d", state)
    assert (caught.value.match_id, caught.value.seq) == ("m-bad", 7)
