"""The hash chain (docs/fairness.md, "The chain"): its vectors, its blinding, and that every
stored field of every event is held by it at its own seq."""

from __future__ import annotations

import hashlib
from itertools import permutations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.chain import (
    START,
    blind,
    canonical,
    chain_of,
    chained,
    first_break,
    record,
    sealed_hash,
)
from domain.commands import CreateMatch, TakeSeat
from domain.decide import decide
from domain.events import CardsDealt, Event, MatchCreated, SeatTaken
from domain.evolve import evolve
from domain.fairness import commitment
from domain.recorded import RecordedEvent, event_line
from domain.redaction import EVERYONE
from domain.state import INITIAL_STATE
from tests.domain import fairness_reference as ref

S = bytes(range(32))

# The vectors printed in docs/fairness.md.
VECTOR_EVENTS = (
    RecordedEvent(
        seq=1,
        at="2026-01-01T00:00:00.000000Z",
        event=MatchCreated(
            match_id="match-0001",
            ruleset="classic",
            seats=2,
            target=101,
            secret=S.hex(),
            client_seeds=("", ""),
            commitment=commitment("match-0001", S),
            bots=(1,),
            bot_kind="easy",
        ),
        caused_by="server",
        request_id="req-1",
    ),
    RecordedEvent(
        seq=2,
        at="2026-01-01T00:00:01.000000Z",
        event=SeatTaken(seat=0, name="amira", token_id="tok-1", client_seed="alice"),
        caused_by="seat:0/token:tok-1",
        request_id="req-2",
    ),
)
VECTORS = {
    "sealed 1": "5a079015ff0ac9f12ca4a1af5f024618123102c245dc577c24c52396e1dc18d1",
    "record 1": (
        '{"at":"2026-01-01T00:00:00.000000Z","bot_kind":"easy","bots":[1],"client_seeds":["",""],'
        '"commitment":"77e508cfa3d47a87b8d501fb60b1ceabe5fee9a9de0ce02bdcc15e8fea9a0a0e",'
        '"ruleset":"classic","sealed":"5a079015ff0ac9f12ca4a1af5f024618123102c245dc577c24c52396e1dc18d1",'
        '"seats":2,"secret":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",'
        '"seq":1,"target":101,"type":"match_created"}'
    ),
    "blind 1": "461924eb3108ce5b59654e64b13786c180c2cb35b0895417d9c478a998587afc",
    "chain 1": "f52608c4bfb76a04823c8f9680e6bb26c5b3838f9cc08388581d1a11b4d39374",
    "sealed 2": "322aae0808d61ec8a08dbf2408b18b44d855ff6d7b3eef61e78a1bbd52ed351a",
    "record 2": (
        '{"at":"2026-01-01T00:00:01.000000Z","client_seed":"alice","name":"amira",'
        '"sealed":"322aae0808d61ec8a08dbf2408b18b44d855ff6d7b3eef61e78a1bbd52ed351a",'
        '"seat":0,"seq":2,"type":"seat_taken"}'
    ),
    "chain 2": "494c95e8d96aebce7535b9f653bc608de2dc40bc49270cb73c466b767479a5c6",
}


def test_the_vectors_of_the_page() -> None:
    first, second = VECTOR_EVENTS
    # the sealed hashes, canonical records and blinding value, byte for byte
    assert sealed_hash(first) == VECTORS["sealed 1"]
    assert canonical(record(first, sealed_hash(first))).decode() == VECTORS["record 1"]
    assert blind(S, 1).hex() == VECTORS["blind 1"]
    assert sealed_hash(second) == VECTORS["sealed 2"]
    assert canonical(record(second, sealed_hash(second))).decode() == VECTORS["record 2"]
    # the links, from the first (after 32 zero bytes)
    assert START == "00" * 32
    assert chain_of(first, START, S) == VECTORS["chain 1"]
    assert chain_of(second, VECTORS["chain 1"], S) == VECTORS["chain 2"]
    # and the same from the page's formula written out with hashlib alone
    data = b"basra-chain-v1" + bytes(32) + blind(S, 1) + ref.lp(VECTORS["record 1"].encode())
    assert hashlib.sha256(data).hexdigest() == VECTORS["chain 1"]


def _stream() -> list[RecordedEvent]:
    """A 2-seat match against the easy bot, seated and dealt, each event recorded and chained."""
    create = CreateMatch(match_id="m-chain", ruleset="classic", seats=2, secret=S, bots=(1,))
    events: list[tuple[Event, str]] = [(e, "server") for e in decide(INITIAL_STATE, create)]
    state = INITIAL_STATE
    for event, _ in events:
        state = evolve(state, event)
    for event in decide(state, TakeSeat(0, "amira", token_id="tok-a", token_hash="ab" * 32)):
        events.append((event, "seat:0/token:tok-a"))
    recorded = [
        RecordedEvent(
            seq=seq,
            at=f"2026-01-01T00:00:0{seq}.000000Z",
            event=event,
            caused_by=cause,
            request_id=f"req-{seq}",
        )
        for seq, (event, cause) in enumerate(events, 1)
    ]
    return chained(recorded, None, S)


def test_a_2_seat_chain_head_does_not_let_a_seat_test_guesses_of_the_other_hand() -> None:
    # given seat 0's receipts after the deal: it sees its own line of the deal, the floor, and
    # the chain links (and even, to make the attacker stronger, the first two of seat 1's four
    # cards: it is left to try every order of two of the cards it cannot see)
    stream = _stream()
    dealt = next(r for r in stream if isinstance(r.event, CardsDealt))
    before = stream[dealt.seq - 2].chain
    assert before is not None and dealt.chain is not None
    hidden = dealt.event.hands[1]  # type: ignore[attr-defined]
    assert hidden is not None
    line = msgspec.json.decode(event_line(dealt, 0, revealed=False))
    assert line["hands"][1] is None and line["chain"] == dealt.chain
    unseen = [c for c in ref.round_deck(bytes(32), 1) if c not in line["hands"][0]]
    known = list(hidden[:2])
    rest = [c for c in unseen if c not in known]
    guesses = [(*known, a, b) for a in rest for b in rest if a != b]
    assert len(guesses) > 1500 and tuple(hidden) in guesses

    def link_for(guess: tuple[str, ...], blinding: bytes) -> str:
        event = msgspec.structs.replace(dealt.event, hands=(line["hands"][0], guess))
        guessed = msgspec.structs.replace(dealt, event=event)
        body = canonical(record(guessed, line["sealed"]))
        data = b"basra-chain-v1" + bytes.fromhex(before) + blinding + ref.lp(body)
        return hashlib.sha256(data).hexdigest()

    # when it tries every hand it cannot rule out with any blinding value it can compute
    # without the secret (none, zeros, the public commitment, the last link)
    candidates = [b"", bytes(32), bytes.fromhex(commitment("m-chain", S)), bytes.fromhex(before)]
    found = [g for g in guesses for b in candidates if link_for(g, b) == dealt.chain]
    # then no guess matches the chain head
    assert found == []
    # while with the secret's blinding value (revealed only at the end) the same search finds
    # the hand: the search was a real one, and only the blinding stops it
    with_secret = [g for g in guesses if link_for(g, blind(S, dealt.seq)) == dealt.chain]
    assert with_secret == [tuple(hidden)]


def test_the_hands_in_every_order_give_other_links() -> None:
    # the chain holds the order of a hand too (docs/fairness.md: hands keep the order dealt)
    stream = _stream()
    dealt = next(r for r in stream if isinstance(r.event, CardsDealt))
    hand = dealt.event.hands[0]  # type: ignore[attr-defined]
    assert hand is not None
    previous = stream[dealt.seq - 2].chain
    assert previous is not None
    links = set()
    for order in permutations(hand):
        hands = (order, dealt.event.hands[1])  # type: ignore[attr-defined]
        changed = msgspec.structs.replace(
            dealt, event=msgspec.structs.replace(dealt.event, hands=hands)
        )
        links.add(chain_of(changed, previous, S))
    assert len(links) == 24


OUTSIDE = ("match_id", "origin")


def _edits(recorded: RecordedEvent) -> list[tuple[str, RecordedEvent]]:
    """Every stored field of ``recorded`` changed in turn."""
    out = [
        ("at", msgspec.structs.replace(recorded, at="2030-01-01T00:00:00.000000Z")),
        ("caused_by", msgspec.structs.replace(recorded, caused_by="server:forged")),
        ("request_id", msgspec.structs.replace(recorded, request_id="req-forged")),
        ("type", msgspec.structs.replace(recorded, event=_other_type(recorded.event))),
    ]
    fields = msgspec.to_builtins(recorded.event)
    for name, value in fields.items():
        # match_created's id and origin are what an import rewrites: outside the chain, and
        # held by the commitment instead (C is over the id the match was first created under)
        if name == "type" or (isinstance(recorded.event, MatchCreated) and name in OUTSIDE):
            continue
        forged = _forged(value)
        try:
            event = msgspec.convert({**fields, name: forged}, type(recorded.event))
        except msgspec.ValidationError:
            continue
        if event != recorded.event:
            out.append((name, msgspec.structs.replace(recorded, event=event)))
    return out


def _forged(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x" if len(value) != 64 else "f" * 64
    if isinstance(value, list):
        return value[::-1] if len(value) > 1 else [*value, value[0] if value else 0]
    if value is None:
        return "x"
    return value


def _other_type(event: Event) -> Event:
    if isinstance(event, SeatTaken):
        return msgspec.structs.replace(event, player_id="p-forged")  # a name-only seat claimed
    return SeatTaken(seat=0, name="forged")


STREAM = _stream()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_stored_field_changed_breaks_the_chain_at_its_seq(data: st.DataObject) -> None:
    # given a chained stream and one stored field of one event changed
    index = data.draw(st.integers(0, len(STREAM) - 1))
    edits = _edits(STREAM[index])
    name, changed = data.draw(st.sampled_from(edits))
    stream = [*STREAM]
    stream[index] = changed
    # then the chain breaks exactly at that seq
    broken = first_break(stream, S)
    assert broken is not None, name
    assert broken.seq == index + 1, name


def test_every_field_of_every_event_is_covered() -> None:
    # the same for every field of every event, without sampling
    for index, recorded in enumerate(STREAM):
        for name, changed in _edits(recorded):
            stream = [*STREAM]
            stream[index] = changed
            broken = first_break(stream, S)
            assert broken is not None and broken.seq == index + 1, (index, name)


def test_an_intact_stream_and_a_removed_or_reordered_event() -> None:
    assert first_break(STREAM, S) is None
    # an event taken out: the next one no longer follows its link
    shorter = [*STREAM[:2], *(msgspec.structs.replace(r, seq=r.seq - 1) for r in STREAM[3:])]
    broken = first_break(shorter, S)
    assert broken is not None and broken.seq == 3
    # a link left out
    unlinked = [*STREAM]
    unlinked[1] = msgspec.structs.replace(unlinked[1], chain=None)
    broken = first_break(unlinked, S)
    assert broken is not None and broken.seq == 2


@pytest.mark.parametrize("viewer", [EVERYONE, 0, 1])
def test_a_line_shows_its_link_and_sealed_hash_to_every_viewer(viewer: int) -> None:
    for recorded in STREAM:
        line = msgspec.json.decode(event_line(recorded, viewer, revealed=False))
        assert line["chain"] == recorded.chain
        assert line["sealed"] == sealed_hash(recorded)
        assert "caused_by" not in line and "request_id" not in line
