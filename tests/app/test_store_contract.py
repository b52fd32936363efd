"""The event store's contract, run against the in-memory store, SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest
from eventsourcing.persistence import StoredEvent

from app.errors import ConflictError, CorruptEventError
from app.store.compact import COMPACT_TOPICS
from app.store.decoding import TOPICS
from app.store.mapper import SNAPSHOT_TOPIC
from app.store.match_store import MatchStore
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.events import CardPlayed, Event, MatchCreated, event_tag
from domain.evolve import fold
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match


def bot_match(match_id: str, seed: str = "contract") -> list[Event]:
    """A finished bot-only match played in memory (no store involved)."""
    events, _ = play_match(
        CreateMatch(
            match_id=match_id,
            ruleset="classic",
            seats=2,
            secret=secret_from_text_seed(seed),
            bots=(0, 1),
        )
    )
    return events


def recorded(events: list[Event], first_seq: int = 1, cause: str = "server") -> list[RecordedEvent]:
    """The events at consecutive seqs with metadata, as a service would record them."""
    return [
        RecordedEvent(
            seq=first_seq + i,
            at=f"2026-11-29T21:44:{i % 60:02d}.123456Z",
            event=e,
            caused_by=cause,
            request_id=f"req-{first_seq + i}",
        )
        for i, e in enumerate(events)
    ]


def test_a_stream_reads_back_exactly_as_appended(store: MatchStore) -> None:
    # given a whole match appended in one transaction
    stream = recorded(bot_match("m-1"))
    store.append("m-1", stream)

    # when it is read back, then every event, seq, time, cause and request id is the same
    assert store.read("m-1") == stream
    assert store.last_seq("m-1") == len(stream)
    assert store.read("m-1", after_seq=10, upto_seq=12) == stream[10:12]
    assert store.read("m-1", after_seq=len(stream)) == []


def test_an_unknown_match_has_no_events(store: MatchStore) -> None:
    assert store.read("nobody") == []
    assert store.last_seq("nobody") == 0


def test_a_stale_writer_loses_and_writes_nothing(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given a stream of 5 events, read by two writers
    events = bot_match("m-2")
    store.append("m-2", recorded(events[:5]))
    # when the first appends seqs 6-8 and the second, stale, appends seqs 6-9
    store.append("m-2", recorded(events[5:8], first_seq=6, cause="winner"))
    with pytest.raises(ConflictError) as caught:
        other_store.append("m-2", recorded(events[5:9], first_seq=6, cause="loser"))

    # then the loser gets a conflict naming the match, and none of its events is stored
    assert caught.value.code == "conflict"
    assert "m-2" in caught.value.message
    stored = store.read("m-2")
    assert [r.seq for r in stored] == list(range(1, 9))
    assert all(r.caused_by != "loser" for r in stored)


def test_a_batch_is_all_or_nothing(store: MatchStore) -> None:
    # given a stream of 3 events
    events = bot_match("m-3")
    store.append("m-3", recorded(events[:3]))
    batch = recorded(events[3:6], first_seq=4)
    # when a batch fails on its last row (seq 4 twice)
    with pytest.raises(ConflictError):
        store.append("m-3", [*batch[:2], batch[0]])

    # then none of its rows was kept, and the stream can still grow
    assert store.last_seq("m-3") == 3
    store.append("m-3", batch)
    assert store.last_seq("m-3") == 6


def test_racing_writers_exactly_one_wins(store: MatchStore, other_store: MatchStore) -> None:
    # given a match in play, read by two writers at the same seq
    events = bot_match("m-race")
    prefix = events[:4]  # created, round started, dealt, floor dealt
    store.append("m-race", recorded(prefix))
    state = fold(prefix)
    seat = state.turn
    assert seat is not None
    # each writer decides a different card for the same turn
    hand = state.hands[seat]
    choices = [decide(state, PlayCard(seat, card)) for card in hand[:2]]
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def write(handle: MatchStore, plays: tuple[Event, ...], name: str) -> None:
        barrier.wait()
        try:
            handle.append("m-race", recorded(list(plays), first_seq=5, cause=name))
            outcomes.append(name)
        except ConflictError:
            outcomes.append("conflict")

    # when both append at once
    threads = [
        threading.Thread(target=write, args=(store, choices[0], "a")),
        threading.Thread(target=write, args=(other_store, choices[1], "b")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # then exactly one wins and the stream holds the winner's events only
    assert sorted(outcomes) in (["a", "conflict"], ["b", "conflict"])
    winner = next(o for o in outcomes if o != "conflict")
    tail = store.read("m-race", after_seq=4)
    assert [r.caused_by for r in tail] == [winner] * len(tail)
    assert [r.event for r in tail] == list(choices[0] if winner == "a" else choices[1])


def test_the_global_log_lists_every_event_in_append_order(store: MatchStore) -> None:
    # given two matches appended in interleaved transactions
    a, b = bot_match("m-a", "a"), bot_match("m-b", "b")
    store.append("m-a", recorded(a[:10]))
    store.append("m-b", recorded(b[:7]))
    store.append("m-a", recorded(a[10:12], first_seq=11))

    # when the log is followed from the start, a page at a time
    seen: list[tuple[str, int]] = []
    position = 0
    while page := store.log_after(position, 4):
        assert [e.position for e in page] == sorted(e.position for e in page)
        assert page[0].position > position
        seen.extend((e.match_id, e.seq) for e in page)
        position = page[-1].position

    # then it holds each event once, in the order the transactions were committed
    expected = [("m-a", s) for s in range(1, 11)] + [("m-b", s) for s in range(1, 8)]
    expected += [("m-a", 11), ("m-a", 12)]
    assert seen == expected
    assert store.max_position() == position
    assert store.match_ids() == ["m-a", "m-b"]


def test_stored_topics_are_the_stable_tags_not_module_paths(store: MatchStore) -> None:
    # given a stored match
    events = bot_match("m-t")
    store.append("m-t", recorded(events))

    # when the raw rows are read, then each topic is the kind's one letter of the compact form
    rows = store.recorder.select_events(store.streams.originator("m-t"))
    assert [row.topic for row in rows] == [COMPACT_TOPICS[type(e)] for e in events]
    assert TOPICS[CardPlayed] == "basra:card_played" and COMPACT_TOPICS[CardPlayed] == "p"
    assert all("domain" not in row.topic for row in rows)
    # and the log names each entry by its kind's stable tag, whatever the row's form
    assert [e.topic for e in store.log_after(0, 1000)] == [f"basra:{event_tag(e)}" for e in events]


def test_a_corrupt_event_is_named_and_the_rest_of_the_store_works(store: MatchStore) -> None:
    # given two matches, one with an undecodable event at seq 3 and one with an unknown type
    good, bad = bot_match("m-good", "g"), bot_match("m-bad", "b")
    store.append("m-good", recorded(good))
    store.append("m-bad", recorded(bad[:2]))
    stream = store.streams.originator("m-bad")
    store.recorder.insert_events(
        [StoredEvent(stream, 3, TOPICS[CardPlayed], b'{"event": {"type": "card_pl')]
    )
    store.recorder.insert_events([StoredEvent(stream, 4, "basra:comet_struck", b"{}")])

    # when the bad stream is read, then the error names the match and the event's position
    with pytest.raises(CorruptEventError) as caught:
        store.read("m-bad")
    assert caught.value.code == "corrupt_event"
    assert (caught.value.match_id, caught.value.seq) == ("m-bad", 3)
    assert "m-bad" in caught.value.message and "seq 3" in caught.value.message
    with pytest.raises(CorruptEventError, match=r"seq 4.*comet_struck"):
        store.read("m-bad", after_seq=3)
    # and the events before it, the other match and the log still read
    assert len(store.read("m-bad", upto_seq=2)) == 2
    assert store.read("m-good") == recorded(good)
    assert len(store.log_after(0, 10_000)) == len(good) + 4


def test_snapshots_keep_the_latest_state_of_this_shape(store: MatchStore) -> None:
    # given a match folded to two positions, each kept as a snapshot
    events = bot_match("m-s")
    early, late = fold(events[:20]), fold(events[:60])
    assert store.latest_snapshot("m-s") is None
    store.save_snapshot("m-s", early)
    store.save_snapshot("m-s", late)
    store.save_snapshot("m-s", late)  # a second copy at the same seq is left alone

    # when the latest is asked for, then it is the later state, exactly
    assert store.latest_snapshot("m-s") == late

    # when a snapshot of another shape of state lies on top, then it is ignored
    store.snapshots.insert_events([StoredEvent("m-s", 90, "basra:snapshot/old", b"{}")])
    assert SNAPSHOT_TOPIC != "basra:snapshot/old"
    assert store.latest_snapshot("m-s") is None

    # when the snapshots are dropped, then none is left
    assert store.drop_snapshots() == 3
    assert store.latest_snapshot("m-s") is None


def test_another_handle_sees_what_one_appended(store: MatchStore, other_store: MatchStore) -> None:
    # given a match appended through one handle
    stream = recorded(bot_match("m-h"))
    store.append("m-h", stream)
    # when another handle (another process) reads, then it sees it all
    assert other_store.read("m-h") == stream
    assert other_store.max_position() == store.max_position()


def test_a_stream_continues_from_a_folded_state(store: MatchStore) -> None:
    # given the start of a match with a person's seat, stored
    created = decide(
        fold([]),
        CreateMatch(match_id="m-c", ruleset="lebanese", seats=2, secret=secret_from_text_seed("c")),
    )
    assert isinstance(created[0], MatchCreated)
    store.append("m-c", recorded(list(created)))
    state = fold(r.event for r in store.read("m-c"))

    # then the state folded from the store is the state folded in memory
    assert state == fold(created)
    assert state.status == "waiting"
    assert state.events == store.last_seq("m-c") == 1
