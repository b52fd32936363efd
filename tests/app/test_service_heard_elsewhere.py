"""Another process's events, pushed by the database, move this process's cached state and chain
head on (``MatchService.heard_elsewhere``): its next play is decided without reading the store,
and a cache moved on that way is always the state the stream folds to."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.service import MatchService
from app.store.match_store import MatchStore
from domain.fairness import secret_from_text_seed
from tests.app.reads import counting_reads

SECRET = secret_from_text_seed("heard elsewhere")


def seated(service: MatchService, match_id: str) -> None:
    """A 2-seat match: seat 0 a person, seat 1 a bot; round 1 dealt."""
    service.create_match(ruleset="classic", seats=2, bots=(1,), secret=SECRET, match_id=match_id)
    service.take_seat(match_id, 0, "alice", token_id="t0", caused_by="seat:0/token:t0")


def test_a_play_after_events_heard_from_elsewhere_reads_nothing_before_its_append(
    service: MatchService, other_service: MatchService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a match both processes cached, and the other process's play with the bot's reply
    seated(service, "m-e")
    before = service.load("m-e")
    assert other_service.load("m-e") == before
    played = other_service.play_card("m-e", 0, before.hands[0][0]).events
    assert len(played) >= 2  # alice's play and the bot's
    # when this process hears those events, in order
    moved = [service.heard_elsewhere("m-e", recorded) for recorded in played]
    # then its cached state is the stored one, and alice's next play reads nothing first
    assert moved == [True] * len(played)
    stored = other_service.load_from_stream("m-e")
    assert service.cache.get("m-e") == stored
    reads = counting_reads(service, monkeypatch)
    card = stored.hands[0][0]
    recorded = service.play_card("m-e", 0, card, expected_seq=stored.events).events
    assert reads == []
    assert recorded[0].seq == stored.events + 1
    # and what it stored links to the other process's last event: the chain verifies whole
    assert service.load_from_stream("m-e") == service.cache.get("m-e")
    assert other_service.events("m-e")[-len(recorded) :] == list(recorded)


def test_an_event_that_does_not_follow_the_cache_moves_nothing_and_a_load_reads_it(
    service: MatchService, other_service: MatchService
) -> None:
    # given a match this process cached, and two plays by the other process
    seated(service, "m-g")
    cached = service.load("m-g")
    first = other_service.play_card("m-g", 0, cached.hands[0][0]).events
    middle = other_service.load("m-g")
    second = other_service.play_card("m-g", 0, middle.hands[0][0]).events
    # when this process hears only the second one (the first one's push was lost)
    moved = service.heard_elsewhere("m-g", second[0])
    # then its cache stays where it was, and a load reads both plays from the store
    assert not moved and first
    assert service.cache.get("m-g") == cached
    assert service.load("m-g") == other_service.load_from_stream("m-g")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), plays=st.integers(1, 30), heard_every=st.integers(1, 4))
def test_a_cache_moved_on_by_heard_events_is_always_the_stream_folded(
    seed: int, plays: int, heard_every: int
) -> None:
    # given a match played by another process, this one hearing its events, some plays of its
    # own in between (every ``heard_every``-th play is made here)
    store = MatchStore.memory()
    here, elsewhere = MatchService(store), MatchService(store.reopen())
    match_id = f"m-{seed}"
    here.create_match(
        ruleset="classic",
        seats=2,
        bots=(1,),
        secret=secret_from_text_seed(str(seed)),
        match_id=match_id,
    )
    here.take_seat(match_id, 0, "alice", token_id="t0", caused_by="seat:0/token:t0")
    for n in range(plays):
        state = here.load_from_stream(match_id)
        if state.status != "playing":
            break
        card = state.hands[0][seed % len(state.hands[0])]
        if n % heard_every == 0:
            outcome = here.play_card(match_id, 0, card, expected_seq=state.events)
        else:
            outcome = elsewhere.play_card(match_id, 0, card)
            for recorded in outcome.events:
                here.heard_elsewhere(match_id, recorded)
        # then whatever this process cached is the stream folded from its first event
        assert here.cache.get(match_id) == here.load_from_stream(match_id)
    store.close()
