"""MatchService: commands as transactions over every store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import re

import pytest

from app.errors import ConflictError, MatchNotFoundError
from app.service import MatchService
from app.store.match_store import MatchStore
from domain.bots import RandomBot
from domain.commands import CreateMatch
from domain.errors import (
    BasraError,
    CardNotInHandError,
    MatchAlreadyCreatedError,
    NotYourTurnError,
    SeatTakenError,
)
from domain.events import (
    CardPlayed,
    MatchCreated,
    MatchEnded,
    RoundStarted,
    SeatTaken,
)
from domain.evolve import fold
from domain.fairness import deal_key, secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match
from domain.views import seat_view, support_view, table_view
from tests.app.reads import counting_reads

AT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
SECRET = secret_from_text_seed("service")


def seated_match(service: MatchService, match_id: str = "m-h", bot_kind: str = "easy") -> str:
    """A 2-seat match: seat 0 a person (alice), seat 1 a bot; round 1 dealt."""
    service.create_match(
        ruleset="classic", seats=2, bots=(1,), bot_kind=bot_kind, secret=SECRET, match_id=match_id
    )
    service.take_seat(match_id, 0, "alice", token_id="t0", caused_by="seat:0/token:t0")
    return match_id


def test_a_bot_match_is_recorded_whole_as_self_play_plays_it(service: MatchService) -> None:
    # given the same bot-only match played in memory
    expected, final = play_match(
        CreateMatch(match_id="m-b", ruleset="yemeni", seats=4, secret=SECRET, bots=(0, 1, 2, 3))
    )
    # when it is created through the service
    created = service.create_match(
        ruleset="yemeni", seats=4, bots=(0, 1, 2, 3), secret=SECRET, match_id="m-b"
    )
    match_id, recorded = created.match_id, created.events

    # then the stored stream is event for event the same, gapless from seq 1, to the end
    assert match_id == "m-b"
    assert [r.event for r in recorded] == expected
    assert [r.seq for r in recorded] == list(range(1, len(expected) + 1))
    assert service.events("m-b") == recorded
    assert isinstance(recorded[-1].event, MatchEnded)
    assert service.load("m-b") == final
    # and each event says who caused it: the server created it, bots played
    assert recorded[0].caused_by == "server"
    plays = [r for r in recorded if isinstance(r.event, CardPlayed)]
    assert {r.caused_by for r in plays} == {f"bot:{s}" for s in range(4)}
    assert all(r.caused_by == f"bot:{r.event.seat}" for r in plays)  # type: ignore[attr-defined]
    assert all(AT.match(r.at) for r in recorded)


def test_a_fresh_match_gets_a_random_id_and_secret(service: MatchService) -> None:
    first = service.create_match(ruleset="classic", seats=2).match_id
    second = service.create_match(ruleset="classic", seats=2).match_id
    assert first != second
    secrets = [service.events(m)[0].event.secret for m in (first, second)]  # type: ignore[attr-defined]
    assert secrets[0] != secrets[1] and len(bytes.fromhex(secrets[0])) == 32
    assert service.match_ids() == [first, second]


def test_taking_the_last_seat_deals_and_the_bot_on_turn_replies(service: MatchService) -> None:
    # given a match waiting for its person
    service.create_match(
        ruleset="classic", seats=2, bots=(1,), secret=SECRET, match_id="m-s", request_id="r-0"
    )
    assert service.load("m-s").status == "waiting"

    # when alice takes seat 0
    recorded = service.take_seat(
        "m-s",
        0,
        "alice",
        token_id="t0",
        token_hash="h" * 64,
        caused_by="seat:0/token:t0",
        request_id="r-1",
    ).events

    # then her seat, round 1's deal and any bot replies are one append at seqs 2..
    assert [r.seq for r in recorded] == list(range(2, 2 + len(recorded)))
    assert isinstance(recorded[0].event, SeatTaken)
    assert isinstance(recorded[1].event, RoundStarted)
    assert {r.request_id for r in recorded} == {"r-1"}
    dealer = recorded[1].event.dealer
    own = [r for r in recorded if not isinstance(r.event, CardPlayed)]
    assert {r.caused_by for r in own} == {"seat:0/token:t0"}
    bot_plays = [r for r in recorded if isinstance(r.event, CardPlayed)]
    # R3: the seat after the dealer plays first; the bot (seat 1) replies only if it starts
    assert len(bot_plays) == (1 if dealer == 0 else 0)
    assert all(r.caused_by == "bot:1" for r in bot_plays)
    state = service.load("m-s")
    assert state.status == "playing" and state.turn == 0
    assert state.events == recorded[-1].seq


def test_a_play_and_the_bot_replies_are_one_append(service: MatchService) -> None:
    # given alice on turn
    seated_match(service)
    before = service.load("m-h")
    card = before.hands[0][0]

    # when she plays a card (as parse_card writes it: the API reads R1's any-case text once)
    recorded = service.play_card(
        "m-h", 0, card, caused_by="seat:0/token:t0", request_id="r-9"
    ).events

    # then her play comes first, the bot's reply follows under the same request id
    assert recorded[0].event == CardPlayed(
        0,
        card,
        recorded[0].event.captured,
        recorded[0].event.basra,  # type: ignore[attr-defined]
        recorded[0].event.groups,
        recorded[0].event.sweep,  # type: ignore[attr-defined]
    )
    assert recorded[0].caused_by == "seat:0/token:t0"
    assert recorded[0].seq == before.events + 1
    bot = [r for r in recorded if isinstance(r.event, CardPlayed) and r.event.seat == 1]
    assert len(bot) == 1 and bot[0].caused_by == "bot:1"
    assert {r.request_id for r in recorded} == {"r-9"}
    after = service.load("m-h")
    assert after.events == recorded[-1].seq
    assert after.turn == 0 or after.status == "ended"


def test_refused_commands_append_nothing(service: MatchService) -> None:
    # given alice on turn
    seated_match(service)
    state = service.load("m-h")
    missing = next(c for c in ("AC", "2C", "3C", "4C", "5C", "6C") if c not in state.hands[0])

    # when the rules refuse a command, then its error is raised and the stream is unchanged
    with pytest.raises(NotYourTurnError):
        service.play_card("m-h", 1, state.hands[1][0])
    with pytest.raises(CardNotInHandError):
        service.play_card("m-h", 0, missing)
    with pytest.raises(SeatTakenError):
        service.take_seat("m-h", 0, "mallory")
    with pytest.raises(MatchAlreadyCreatedError):
        service.create_match(ruleset="classic", seats=2, match_id="m-h")
    assert service.store.last_seq("m-h") == state.events


def test_an_expected_seq_that_is_not_the_last_is_a_conflict(service: MatchService) -> None:
    # given alice on turn at seq N
    seated_match(service)
    state = service.load("m-h")

    # when she plays expecting an older seq, then it is a conflict and nothing is appended
    with pytest.raises(ConflictError) as caught:
        service.play_card("m-h", 0, state.hands[0][0], expected_seq=state.events - 1)
    assert caught.value.code == "conflict"
    assert service.store.last_seq("m-h") == state.events

    # when she gives the right seq, then the play is recorded
    recorded = service.play_card("m-h", 0, state.hands[0][0], expected_seq=state.events).events
    assert recorded[0].seq == state.events + 1


def test_another_process_play_is_seen_before_deciding(
    service: MatchService, other_service: MatchService
) -> None:
    # given a match both processes have loaded
    seated_match(service)
    stale = service.load("m-h")
    assert other_service.load("m-h") == stale

    # when the other process records alice's play
    other_service.play_card("m-h", 0, stale.hands[0][0])

    # then this process's next load is the new position, not its cached one
    fresh = service.load("m-h")
    assert fresh.events > stale.events
    assert fresh == other_service.load("m-h")
    # and a play of the card already played is refused by the rules, not written twice
    with pytest.raises((CardNotInHandError, NotYourTurnError)):
        service.play_card("m-h", 0, stale.hands[0][0])


def test_a_play_on_a_stale_cached_state_is_decided_again_on_the_stored_one(
    service: MatchService, other_service: MatchService
) -> None:
    # given a match this process cached, then moved on by the other process (alice's play and
    # the bot's reply)
    seated_match(service)
    stale = service.load("m-h")
    other_service.play_card("m-h", 0, stale.hands[0][0])
    fresh = other_service.load("m-h")
    assert fresh.events > stale.events and fresh.turn == 0

    # when alice plays here with the seq of the stale state, then it is the conflict a read
    # first would give, naming the stored seq, and nothing is appended
    card = fresh.hands[0][0]
    with pytest.raises(ConflictError, match=f"at seq {fresh.events}, not {stale.events}"):
        service.play_card("m-h", 0, card, expected_seq=stale.events)
    assert service.store.last_seq("m-h") == fresh.events

    # when she plays with the stored seq (or none), then the play is recorded after it
    recorded = service.play_card("m-h", 0, card, expected_seq=fresh.events).events
    assert recorded[0].seq == fresh.events + 1
    assert service.load("m-h") == service.load_from_stream("m-h")


def test_a_play_without_seq_on_a_stale_cache_is_stored_after_the_last_seq(
    service: MatchService, other_service: MatchService
) -> None:
    # given a cached state the other process has moved on from
    seated_match(service)
    stale = service.load("m-h")
    other_service.play_card("m-h", 0, stale.hands[0][0])
    fresh = other_service.load("m-h")

    # when alice plays a card of her hand as it is now, with no seq, then it is recorded
    # (decided on the stored state; the stale decision was refused by the store or the rules)
    recorded = service.play_card("m-h", 0, fresh.hands[0][-1]).events
    assert recorded[0].seq == fresh.events + 1
    assert isinstance(recorded[0].event, CardPlayed)
    assert service.load("m-h") == other_service.load("m-h") == service.load_from_stream("m-h")


def test_a_play_on_a_current_cached_state_reads_nothing_before_its_append(
    service: MatchService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a match this process has just stored (its cached state is the last seq)
    seated_match(service)
    state = service.load("m-h")
    reads = counting_reads(service, monkeypatch)
    # when alice plays at that seq, then the store is not read: the append's seq is the check
    recorded = service.play_card("m-h", 0, state.hands[0][0], expected_seq=state.events).events
    assert reads == []
    assert recorded[0].seq == state.events + 1
    assert service.load_from_stream("m-h") == service.states.cache.get("m-h")


def test_leaving_forfeits_and_reveals_the_secret(service: MatchService) -> None:
    seated_match(service)
    recorded = service.leave("m-h", 0, caused_by="seat:0/token:t0", request_id="r-l").events
    ended = recorded[-1].event
    assert isinstance(ended, MatchEnded)
    assert (ended.winner, ended.reason, ended.seed) == (1, "forfeit", SECRET.hex())  # R26
    assert recorded[-1].caused_by == "seat:0/token:t0"
    assert service.load("m-h").status == "ended"


def test_the_kept_state_equals_the_stream_folded_from_nothing(service: MatchService) -> None:
    # given a match played through the service, a command at a time
    seated_match(service, "m-p")
    while (state := service.load("m-p")).status == "playing":
        service.play_card("m-p", 0, state.hands[0][-1])

    # when the state kept up to date is compared with the stream folded from its first event
    rebuilt = service.load_from_stream("m-p")
    kept = service.load("m-p")

    # then every per-match projection is the same: table, each seat, support, scores
    assert kept == rebuilt
    assert table_view(kept) == table_view(rebuilt)
    for seat in (0, 1):
        assert seat_view(kept, seat) == seat_view(rebuilt, seat)
    assert support_view(kept) == support_view(rebuilt)
    assert kept.totals == rebuilt.totals and kept.status == "ended"


def test_a_cold_load_starts_from_a_snapshot_and_matches_the_fold(
    store: MatchStore, other_store: MatchStore
) -> None:
    # given a service keeping a snapshot every 10 events, and a long bot match
    service = MatchService(store, snapshot_every=10)
    service.create_match(ruleset="classic", seats=2, bots=(0, 1), secret=SECRET, match_id="m-l")
    snapshot = store.latest_snapshot("m-l")
    assert snapshot is not None and snapshot.events == store.last_seq("m-l")

    # when another process with an empty cache loads it
    cold = MatchService(other_store)
    state = cold.load("m-l")

    # then it equals the stream folded from nothing
    assert state == cold.load_from_stream("m-l")
    assert state.status == "ended"


def test_a_snapshot_then_newer_events_fold_to_the_last_seq(
    service: MatchService, other_store: MatchStore
) -> None:
    # given a snapshot at some seq and events after it
    service.states.snapshot_every = 5
    seated_match(service, "m-n")
    for _ in range(3):
        state = service.load("m-n")
        service.play_card("m-n", 0, state.hands[0][0])
    snap = service.store.latest_snapshot("m-n")
    assert snap is not None
    last = service.store.last_seq("m-n")

    # when a cold service loads, then the state is at the last seq, equal to the full fold
    cold = MatchService(other_store)
    assert cold.load("m-n").events == last
    assert cold.load("m-n") == cold.load_from_stream("m-n")


def test_a_random_bot_resumes_its_stream_across_loads(service: MatchService) -> None:
    # given the same match as a bot-only self-play, with random bots on both seats
    expected, _ = play_match(
        CreateMatch(
            match_id="m-r",
            ruleset="lebanese",
            seats=2,
            secret=SECRET,
            bots=(0, 1),
            bot_kind="random",
        )
    )
    # when seat 0 is a person who picks exactly what the random bot would, and seat 1 a
    # random bot replaying through the service, every load from a cold cache
    service.create_match(
        ruleset="lebanese", seats=2, bots=(1,), bot_kind="random", secret=SECRET, match_id="m-r"
    )
    service.take_seat("m-r", 0, "rita")
    person = RandomBot(deal_key(SECRET, ("", "")), 0)
    while True:
        service.cache.clear()
        state = service.load("m-r")
        if state.status != "playing":
            break
        service.play_card("m-r", 0, person.choose_from(state.hands[0]))

    # then from the first deal on, the stream is the self-play's, event for event
    stored = [r.event for r in service.events("m-r")]
    assert isinstance(stored[1], SeatTaken)
    assert stored[2:] == expected[1:]


def test_listeners_hear_every_append_and_cannot_break_it(service: MatchService) -> None:
    heard: list[tuple[str, list[int]]] = []

    def broken(match_id: str, recorded: list[RecordedEvent]) -> None:
        raise RuntimeError("listener down")

    service.add_listener(broken)
    service.add_listener(lambda m, rs: heard.append((m, [r.seq for r in rs])))
    created = service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-x").events
    taken = service.take_seat("m-x", 0, "ann").events
    assert heard == [("m-x", [r.seq for r in created]), ("m-x", [r.seq for r in taken])]


def test_notifications_follow_appends_of_any_process(
    service: MatchService, other_service: MatchService
) -> None:
    # given appends from two processes
    first = service.create_match(ruleset="classic", seats=2, bots=(1,), match_id="m-1").events
    start = service.notifications_after(0, 100)[-1][0]
    other_service.take_seat("m-1", 0, "ann")

    # when this process follows the log from where it was
    after = service.notifications_after(start, 100)

    # then it gets the other process's events, in order, with their seqs
    assert [(m, s) for _, m, s in after] == [("m-1", s) for s in range(2, 2 + len(after))]
    assert [p for p, _, _ in after] == sorted(p for p, _, _ in after)
    assert service.notifications_after(after[-1][0], 100) == []
    assert len(first) == 1


def test_an_imported_stream_is_stored_as_given(service: MatchService) -> None:
    # given a whole stream recorded elsewhere
    events, final = play_match(
        CreateMatch(match_id="m-i", ruleset="classic", seats=2, secret=SECRET, bots=(0, 1))
    )
    stream = [
        RecordedEvent(seq=i, at="2020-01-02T03:04:05.000006Z", event=e, caused_by="import")
        for i, e in enumerate(events, 1)
    ]
    # when it is imported, then it reads back as given and folds to the same end
    service.append_imported("m-i", stream)
    assert service.events("m-i") == stream
    assert service.load("m-i") == final == fold(events)
    # and a second import under the same id, or a gap, is refused
    with pytest.raises(MatchAlreadyCreatedError):
        service.append_imported("m-i", stream)
    with pytest.raises(BasraError, match="seqs run"):
        service.append_imported("m-i", [stream[0], stream[2]])
    with pytest.raises(BasraError, match="names 'm-i'"):
        service.append_imported("m-j", stream)
    assert service.store.last_seq("m-j") == 0


def test_an_unknown_match_is_not_found(service: MatchService) -> None:
    for call in (
        lambda: service.load("nope"),
        lambda: service.events("nope"),
        lambda: service.events("nope", after_seq=3),
        lambda: service.play_card("nope", 0, "AC"),
        lambda: service.take_seat("nope", 0, "ann"),
    ):
        with pytest.raises(MatchNotFoundError) as caught:
            call()
        assert caught.value.code == "match_not_found"


def test_events_after_a_seq(service: MatchService) -> None:
    recorded = service.create_match(ruleset="classic", seats=2, bots=(0, 1), match_id="m-e").events
    assert service.events("m-e", after_seq=5) == recorded[5:]
    assert service.events("m-e", after_seq=len(recorded)) == []
    assert isinstance(service.events("m-e")[0].event, MatchCreated)
