"""One Idempotency-Key never lands twice, however two processes interleave, on every store.

Two services on one database stand for two API processes, each with its own facts. The second
process's play checks its key, then the first process appends a play under the same key before
the second one's append: the second play must come back as the first one's answer (same body)
or 422 ``idempotency_key_reused`` (another body), never as a second play under the key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.api.edges.errors import IdempotencyKeyReusedError
from app.api.table.ops import play
from app.runtime.facts import FactsCache
from app.service import MatchService
from domain.events import CardPlayed
from domain.fairness import secret_from_text_seed

KEY = "same-key-0001"


def _process(service: MatchService) -> FactsCache:
    """An API process's facts over ``service``, kept current by its own appends."""
    facts = FactsCache(service)
    service.add_listener(facts.on_append)
    return facts


def _table(service: MatchService, match_id: str) -> None:
    """Seat 0 a person, seat 1 an easy bot: after each of seat 0's plays it is seat 0's turn."""
    service.create_match(
        ruleset="classic",
        seats=2,
        bots=(1,),
        secret=secret_from_text_seed(f"idempotency/{match_id}"),
        match_id=match_id,
    )
    service.take_seat(match_id, 0, "alice", token_id="t0", caused_by="seat:0/token:t0")


def _keyed_plays(service: MatchService, match_id: str) -> list[str]:
    return [
        r.event.card
        for r in service.events(match_id)
        if isinstance(r.event, CardPlayed)
        and r.event.seat == 0
        and (r.request_id or "").startswith("idem-")
    ]


def _interleaved(second: MatchService, first_play: Callable[[], Any]) -> Callable[..., Any]:
    """``second.play_card`` that lets the other process append first, once: the moment after
    the second process checked its key and before it appends."""
    original = second.play_card
    done: list[bool] = []

    def play_card(*args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(True)
            first_play()
        return original(*args, **kwargs)

    return play_card


@pytest.mark.parametrize("same_body", [False, True])
def test_a_key_used_by_another_process_between_the_check_and_the_append_lands_once(
    service: MatchService, other_service: MatchService, same_body: bool
) -> None:
    # given a match both processes hold, seat 0 on turn with several cards
    _table(service, "m-key")
    first_facts, second_facts = _process(service), _process(other_service)
    hand = other_service.load("m-key").hands[0]
    assert service.load("m-key").hands[0] == hand and len(hand) >= 2
    first_card = hand[0]
    second_card = hand[0] if same_body else hand[1]

    def first_play() -> Any:
        return play(
            service,
            first_facts,
            match_id="m-key",
            seat=0,
            card_text=first_card,
            expected_seq=None,
            caused_by="seat:0/token:t0",
            idempotency_key=KEY,
        )

    # when the second process sends the same key, and the first appends under it in between
    other_service.play_card = _interleaved(other_service, first_play)  # type: ignore[method-assign]

    def second_play() -> Any:
        return play(
            other_service,
            second_facts,
            match_id="m-key",
            seat=0,
            card_text=second_card,
            expected_seq=None,
            caused_by="seat:0/token:t0",
            idempotency_key=KEY,
        )

    if same_body:
        answer = second_play()
        # then the second gets the first play's answer
        assert answer.card == first_card
    else:
        # then the second is refused: the key was used with another body
        with pytest.raises(IdempotencyKeyReusedError):
            second_play()
    # and exactly one play is stored under the key
    assert _keyed_plays(service, "m-key") == [first_card]
