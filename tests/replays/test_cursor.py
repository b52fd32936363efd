"""The cursor: positions after any event for a seat or support, and stepping by kind."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from domain.cards import DECK
from domain.events import CardPlayed, CardsDealt, FloorDealt, MatchEnded, RoundStarted
from domain.evolve import fold
from domain.redaction import EVERYONE, SUPPORT
from domain.views import SeatView, SupportView, TableView
from replays.cursor import MatchCursor, Step, hands_of
from replays.errors import StepOutOfRangeError, StreamError, UnknownViewerError
from tests.replays.streams import bot_match, golden_events


@pytest.fixture(scope="module")
def four_seats() -> MatchCursor:
    """A whole 4-seat Classic bot match."""
    return MatchCursor(bot_match("classic", 4, seed="cursor-4"))


def test_every_position_is_the_fold_of_the_events_up_to_it() -> None:
    # given a recorded match
    recorded = bot_match("lebanese", 2, seed="cursor-fold", bot_kind="random")
    cursor = MatchCursor(recorded)
    # when each position is asked for (jumping about, not in order)
    order = list(range(cursor.last_seq, 0, -7)) + list(range(1, cursor.last_seq + 1, 5))
    for seq in order:
        # then it is the state folded from the first seq events
        expected = fold(r.event for r in recorded[:seq])
        assert cursor.state(seq) == expected
        view = cursor.position(seq).view
        assert isinstance(view, SupportView)
        assert view.hands == expected.hands
        assert view.floor == expected.floor
        assert view.seq == seq


def test_a_seat_never_sees_another_seats_cards_at_any_position(four_seats: MatchCursor) -> None:
    # given every position of a match, as seen by each seat
    for seq in range(1, four_seats.last_seq + 1):
        state = four_seats.state(seq)
        ended = state.status == "ended"
        for viewer in range(4):
            position = four_seats.position(seq, viewer)
            text = msgspec.json.encode(position).decode()
            view = position.view
            # then it holds its own hand and no card of any other hand (R23) ...
            assert isinstance(view, SeatView) and view.hand == state.hands[viewer]
            for other in range(4):
                if other != viewer:
                    for card in state.hands[other]:
                        assert f'"{card}"' not in text, (seq, viewer, card)
            # ... nor the secret before the end, nor who caused the event
            setup = state.setup
            assert setup is not None and setup.secret is not None
            assert (setup.secret.hex() in text) == ended
            assert position.caused_by is None and position.request_id is None


def test_a_deal_is_redacted_for_a_seat_and_whole_for_support(four_seats: MatchCursor) -> None:
    # given the first deal of the match
    seq = next(
        s
        for s in range(1, four_seats.last_seq + 1)
        if isinstance(four_seats.recorded(s).event, CardsDealt)
    )
    # when seat 2 and support look at it
    as_seat = four_seats.position(seq, 2).event
    as_support = four_seats.position(seq, SUPPORT).event
    # then seat 2 sees only its own hand, support every hand
    assert isinstance(as_seat, CardsDealt) and isinstance(as_support, CardsDealt)
    assert [h is not None for h in as_seat.hands] == [False, False, True, False]
    assert all(h is not None for h in as_support.hands)


def test_support_sees_every_hand_but_the_secret_only_at_the_end(four_seats: MatchCursor) -> None:
    # given a position mid-match and the last position
    middle = four_seats.position(four_seats.last_seq // 2, SUPPORT)
    last = four_seats.position(four_seats.last_seq, SUPPORT)
    # then support sees the hands at once, the seed and the stock order only at the end (R23)
    assert isinstance(middle.view, SupportView) and isinstance(last.view, SupportView)
    assert middle.view.seed is None and middle.view.stock_order is None
    assert last.view.seed == four_seats.created.secret
    assert middle.caused_by is not None and middle.at


def test_everyone_sees_no_hand(four_seats: MatchCursor) -> None:
    # when the public looks at a position in play
    position = four_seats.position(10, EVERYONE)
    # then it is the table with no hand at all
    assert type(position.view) is TableView
    assert hands_of(position.view) == (None, None, None, None)


def test_stepping_by_play_stops_only_at_plays(four_seats: MatchCursor) -> None:
    # given the start of the match
    seq, seen = 1, []
    # when stepping forward play by play to the end
    while True:
        after = four_seats.next(seq, Step.PLAY)
        if after == seq:
            break
        seq = after
        seen.append(seq)
    # then every stop but the last (the end) is a play, and every play is a stop
    plays = [
        s
        for s in range(1, four_seats.last_seq + 1)
        if isinstance(four_seats.recorded(s).event, CardPlayed)
    ]
    assert seen[:-1] == plays
    assert seen[-1] == four_seats.last_seq
    assert isinstance(four_seats.recorded(seen[-1]).event, MatchEnded)


def test_stepping_by_round_lands_on_each_rounds_opening_floor(four_seats: MatchCursor) -> None:
    # given the round stops
    rounds = four_seats.landmarks(Step.ROUND)
    # then each is a round's first floor, one per round started
    started = [
        s
        for s in range(1, four_seats.last_seq + 1)
        if isinstance(four_seats.recorded(s).event, RoundStarted)
    ]
    assert len(rounds) == len(started) >= 2
    assert all(isinstance(four_seats.recorded(s).event, FloorDealt) for s in rounds)
    # and from mid round 1, next round is round 2's opening and previous round is round 1's
    middle = rounds[0] + 3
    assert four_seats.next(middle, Step.ROUND) == rounds[1]
    assert four_seats.previous(middle, Step.ROUND) == rounds[0]
    # and before the first round there is only the start
    assert four_seats.previous(rounds[0], Step.ROUND) == 1


def test_stepping_by_deal_stops_where_each_deal_is_complete(four_seats: MatchCursor) -> None:
    # given the deal stops of round 1 (3 deals at 4 seats, R5)
    deals = four_seats.landmarks(Step.DEAL)
    first_round = [s for s in deals if four_seats.state(s).round == 1]
    # then round 1 has 3 stops: its first floor, then each later deal
    assert len(first_round) == 3
    assert isinstance(four_seats.recorded(first_round[0]).event, FloorDealt)
    for seq in first_round[1:]:
        event = four_seats.recorded(seq).event
        assert isinstance(event, CardsDealt) and event.deal > 1
    # and stepping goes through them in order both ways
    assert four_seats.next(first_round[0], Step.DEAL) == first_round[1]
    assert four_seats.previous(first_round[2], Step.DEAL) == first_round[1]


def test_stepping_by_event_stays_inside_the_stream(four_seats: MatchCursor) -> None:
    assert four_seats.next(5) == 6
    assert four_seats.previous(5) == 4
    assert four_seats.previous(1) == 1
    assert four_seats.next(four_seats.last_seq) == four_seats.last_seq


def test_a_step_outside_the_stream_is_refused(four_seats: MatchCursor) -> None:
    with pytest.raises(StepOutOfRangeError, match=f"from 1 to {four_seats.last_seq}"):
        four_seats.position(four_seats.last_seq + 1)
    with pytest.raises(StepOutOfRangeError):
        four_seats.position(0)


def test_a_viewer_that_is_not_a_seat_is_refused(four_seats: MatchCursor) -> None:
    with pytest.raises(UnknownViewerError, match="seat 4"):
        four_seats.position(3, 4)


def test_a_stream_with_a_gap_or_no_creation_is_refused() -> None:
    recorded = golden_events("golden-classic-2")
    with pytest.raises(StreamError, match="without gaps"):
        MatchCursor(recorded[:5] + recorded[6:])
    with pytest.raises(StreamError, match="starts with match_created"):
        MatchCursor([replace(r, seq=r.seq - 1) for r in recorded[1:]])
    with pytest.raises(StreamError, match="no events"):
        MatchCursor([])


def test_a_stream_that_cannot_be_replayed_names_the_seq() -> None:
    # given a stream whose play at some seq names a card the seat does not hold
    recorded = golden_events("golden-classic-2")
    seq = next(r.seq for r in recorded if isinstance(r.event, CardPlayed))
    item = recorded[seq - 1]
    assert isinstance(item.event, CardPlayed)
    hand = fold(r.event for r in recorded[: seq - 1]).hands[item.event.seat]
    stranger = next(c for c in DECK if c not in hand)
    recorded[seq - 1] = replace(item, event=replace(item.event, card=stranger))
    cursor = MatchCursor(recorded)
    # when a later position is asked for, then the error names that seq and points to verify
    with pytest.raises(StreamError, match=f"seq {seq} cannot be replayed"):
        cursor.position(cursor.last_seq)
