"""R23 hidden information in views and event redaction; R24 previews change nothing."""

from __future__ import annotations

import pytest

from domain.cards import DECK
from domain.commands import CreateMatch, PlayCard
from domain.decide import decide
from domain.errors import CardNotInHandError
from domain.events import EVENT_ENCODER, CardPlayed, CardsDealt, MatchCreated, SeatTaken
from domain.fairness import secret_from_text_seed
from domain.redaction import EVERYONE, SUPPORT, redact_event, redact_stream
from domain.selfplay import play_match
from domain.views import preview_play, seat_view, support_view, table_view
from tests.domain.builders import created, position


def test_r23_a_seat_sees_its_own_hand_and_only_counts_of_the_others() -> None:
    _, state = created("classic", 4)
    view = seat_view(state, 1)
    assert view.hand == state.hands[1]
    body = EVENT_ENCODER.encode(view).decode()
    for seat in (0, 2, 3):
        for card in state.hands[seat]:
            assert f'"{card}"' not in body
    assert view.hand_counts == (4, 4, 4, 4) and view.stock == len(state.stock)


def test_r23_support_sees_every_hand_but_not_the_stock_order_or_secret_before_the_end() -> None:
    _, state = created("classic", 2)
    view = support_view(state)
    assert view.hands == state.hands and view.stock_order is None and view.seed is None
    body = EVENT_ENCODER.encode(view).decode()
    assert secret_from_text_seed("test").hex() not in body


def test_r23_after_the_end_everything_is_open_to_support() -> None:
    _, state = play_match(CreateMatch("m", "classic", 2, secret_from_text_seed("o"), bots=(0, 1)))
    view = support_view(state)
    assert view.seed == secret_from_text_seed("o").hex() and view.stock_order is not None


def test_r23_the_public_table_has_no_hand() -> None:
    _, state = created()
    body = EVENT_ENCODER.encode(table_view(state)).decode()
    for hand in state.hands:
        for card in hand:
            assert f'"{card}"' not in body or card in state.floor


def test_r23_redaction_hides_other_hands_the_secret_and_token_hashes() -> None:
    events, _ = created("classic", 2)
    events = [*events, SeatTaken(seat=0, name="x", token_id="t1", token_hash="ab" * 32)]
    for viewer in (0, 1, EVERYONE):
        for event in redact_stream(events, viewer):
            if isinstance(event, MatchCreated):
                assert event.secret is None
            if isinstance(event, CardsDealt):
                assert all(h is None for s, h in enumerate(event.hands) if s != viewer)
            if isinstance(event, SeatTaken):
                assert event.token_hash is None and event.token_id is None
    support = [redact_event(e, SUPPORT) for e in events]
    dealt = next(e for e in support if isinstance(e, CardsDealt))
    assert all(h is not None for h in dealt.hands)
    assert next(e for e in support if isinstance(e, MatchCreated)).secret is None
    assert next(e for e in support if isinstance(e, SeatTaken)).token_id == "t1"


def test_r23_a_finished_match_is_open_to_all() -> None:
    events, _ = play_match(CreateMatch("m", "classic", 2, secret_from_text_seed("f"), bots=(0, 1)))
    created_event = redact_event(events[0], 0, revealed=True)
    assert isinstance(created_event, MatchCreated) and created_event.secret is not None


def test_r24_preview_says_what_a_card_takes_and_changes_nothing() -> None:
    state = position("classic", hands=[["5H", "KH"], ["QC", "QD"]], floor=["2S", "3D"])
    preview = preview_play(state, 0, "5H")
    assert preview.captured == ("2S", "3D") and preview.basra == 10
    assert preview_play(state, 0, "KH").captured == ()
    played = decide(state, PlayCard(0, "5H"))[0]
    assert isinstance(played, CardPlayed)
    assert (played.captured, played.basra) == (preview.captured, preview.basra)
    # A seat may preview when it is not on turn, only with its own cards
    assert preview_play(state, 1, "QC").captured == ()
    with pytest.raises(CardNotInHandError):
        preview_play(state, 1, "5H")


def test_r23_every_card_is_somewhere_exactly_once_in_a_support_view() -> None:
    _, state = created("classic", 4)
    cards = [c for h in state.hands for c in h] + list(state.floor) + list(state.stock)
    assert sorted(cards) == sorted(DECK)
