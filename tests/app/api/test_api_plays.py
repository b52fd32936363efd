"""Previews and plays: R24 previews change nothing, 409s, Idempotency-Key, the end of a match."""

from __future__ import annotations

import json
from pathlib import Path

from litestar.testing import TestClient

from app.api.app import create_app
from app.api.settings import ApiSettings
from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import bearer, timeless


def _two_people(api: Api, seed: str) -> tuple[str, dict[int, str]]:
    match_id = api.create(seats=2, seed=seed)["match_id"]
    return match_id, {0: api.sit(match_id, 0, "Amal"), 1: api.sit(match_id, 1, "Badr")}


def test_a_preview_tells_what_a_card_would_take_and_changes_nothing(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="preview")
    view = api.view(match_id, token)
    before = len(api_service.events(match_id))

    previews = []
    for card in view["hand"]:
        response = api.client.post(
            f"/matches/{match_id}/preview", json={"card": card.lower()}, headers=bearer(token)
        )
        assert response.status_code == 200, response.text
        previews.append(response.json())

    assert [p["card"] for p in previews] == view["hand"]  # R1: any case in, upper case out
    assert all(p["seq"] == view["seq"] for p in previews)
    assert len(api_service.events(match_id)) == before
    assert timeless(api.view(match_id, token)) == timeless(view)
    # The preview is what the play then does (R24).
    chosen = previews[0]
    played = api.play(match_id, token, chosen["card"]).json()
    assert played["captured"] == chosen["captured"]
    assert played["basra"] == chosen["basra"]


def test_a_play_returns_the_play_and_the_bot_reply(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="bot-reply")
    view = api.view(match_id, token)

    response = api.play(match_id, token, view["hand"][0])

    assert response.status_code == 200
    body = response.json()
    kinds = [(e["type"], e.get("seat")) for e in body["events"]]
    assert kinds[0] == ("card_played", 0)
    assert ("card_played", 1) in kinds
    assert [e["seq"] for e in body["events"]] == list(range(view["seq"] + 1, body["seq"] + 1))
    assert body["view"]["seq"] == body["seq"] == len(api_service.events(match_id))
    assert body["view"]["turn"] == 0
    stored = api_service.events(match_id)
    assert stored[view["seq"]].caused_by.startswith("seat:0/token:")
    assert stored[view["seq"] + 1].caused_by == "bot:1"


def test_a_play_out_of_turn_is_409_and_appends_nothing(api: Api, api_service: MatchService) -> None:
    match_id, tokens = _two_people(api, "out-of-turn")
    view = api.view(match_id, tokens[0])
    idle = 1 - view["turn"]
    hand = api.view(match_id, tokens[idle])["hand"]
    before = len(api_service.events(match_id))

    response = api.play(match_id, tokens[idle], hand[0])

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "not_your_turn"
    assert len(api_service.events(match_id)) == before


def test_a_play_with_a_stale_seq_is_409(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="stale-seq")
    view = api.view(match_id, token)
    api.play(match_id, token, view["hand"][0], seq=view["seq"])
    before = len(api_service.events(match_id))

    stale = api.play(match_id, token, view["hand"][1], seq=view["seq"])

    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "conflict"
    assert len(api_service.events(match_id)) == before


def test_a_retried_play_with_the_same_key_returns_the_first_result(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="idempotent")
    card = api.view(match_id, token)["hand"][0]
    key = {"headers": {"Idempotency-Key": "play-1"}}

    first = api.play(match_id, token, card, **dict(key))
    after_first = len(api_service.events(match_id))
    again = api.play(match_id, token, card, **dict(key))
    later = api.play(match_id, token, card.lower(), **dict(key))  # the same card (R1)

    assert first.status_code == again.status_code == later.status_code == 200
    assert timeless(again.json()) == timeless(first.json()) == timeless(later.json())
    assert len(api_service.events(match_id)) == after_first


def test_the_first_result_survives_further_plays_and_a_new_process(
    api: Api, api_service: MatchService, api_settings: ApiSettings, api_db: Path
) -> None:
    match_id, token = api.practice(seed="idempotent-later")
    card = api.view(match_id, token)["hand"][0]
    first = api.play(match_id, token, card, headers={"Idempotency-Key": "k-early"})
    api.play(match_id, token, first.json()["view"]["hand"][0])
    count = len(api_service.events(match_id))

    other = MatchService.open(api_db)  # a second API process on the same file
    try:
        with TestClient(create_app(other, settings=api_settings)) as second:
            again = second.post(
                f"/matches/{match_id}/plays",
                json={"card": card},
                headers=bearer(token) | {"Idempotency-Key": "k-early"},
            )
    finally:
        other.close()

    assert again.status_code == 200
    assert timeless(again.json()) == timeless(first.json())
    assert len(api_service.events(match_id)) == count


def test_a_reused_key_with_another_body_is_422(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="reused-key")
    hand = api.view(match_id, token)["hand"]
    api.play(match_id, token, hand[0], headers={"Idempotency-Key": "same"})
    count = len(api_service.events(match_id))

    other_card = api.play(match_id, token, hand[1], headers={"Idempotency-Key": "same"})
    other_seq = api.play(match_id, token, hand[0], seq=3, headers={"Idempotency-Key": "same"})

    for response in (other_card, other_seq):
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "idempotency_key_reused"
    assert len(api_service.events(match_id)) == count


def test_keys_are_per_seat(api: Api) -> None:
    match_id, tokens = _two_people(api, "keys-per-seat")
    first = api.view(match_id, tokens[0])["turn"]
    second = 1 - first

    key = {"Idempotency-Key": "k"}
    a = api.play(match_id, tokens[first], api.view(match_id, tokens[first])["hand"][0], headers=key)
    b = api.play(
        match_id, tokens[second], api.view(match_id, tokens[second])["hand"][0], headers=key
    )

    assert a.status_code == b.status_code == 200
    assert b.json()["seq"] == a.json()["seq"] + 1


def test_a_card_not_in_the_hand_is_422(api: Api, api_service: MatchService) -> None:
    match_id, token = api.practice(seed="not-in-hand")
    support = api.support_view(match_id)
    elsewhere = support["hands"][1][0]
    count = len(api_service.events(match_id))

    play = api.play(match_id, token, elsewhere)
    preview = api.client.post(
        f"/matches/{match_id}/preview", json={"card": elsewhere}, headers=bearer(token)
    )

    for response in (play, preview):
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "card_not_in_hand"
    assert len(api_service.events(match_id)) == count


def test_leaving_forfeits_and_a_play_after_the_end_is_409(
    api: Api, api_service: MatchService
) -> None:
    match_id, token = api.practice(seed="leave")
    hand = api.view(match_id, token)["hand"]

    left = api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))
    after = api.play(match_id, token, hand[0])
    preview = api.client.post(
        f"/matches/{match_id}/preview", json={"card": hand[0]}, headers=bearer(token)
    )
    again = api.client.post(f"/matches/{match_id}/leave", headers=bearer(token))

    assert left.status_code == 200
    ended = left.json()["events"][-1]
    assert ended["type"] == "match_ended" and ended["winner"] == 1 and ended["reason"] == "forfeit"
    assert after.status_code == 409 and after.json()["error"]["code"] == "match_ended"
    assert preview.status_code == 409
    assert again.status_code == 409 and again.json()["error"]["code"] == "match_ended"
    assert api.view(match_id, token)["status"] == "ended"
    assert api_service.events(match_id)[-1].seq == left.json()["seq"]


def test_a_play_before_the_table_is_full_is_409(api: Api) -> None:
    match_id = api.create(seats=2)["match_id"]
    token = api.sit(match_id, 0)

    response = api.play(match_id, token, "AC")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "match_not_started"


def test_a_four_seat_table_of_people_plays_in_turn(api: Api) -> None:
    match_id = api.create(seats=4, seed="four-people")["match_id"]
    tokens = {seat: api.sit(match_id, seat, f"P{seat}") for seat in range(4)}
    turn = api.view(match_id, tokens[0])["turn"]

    seen = []
    for _ in range(8):
        hand = api.view(match_id, tokens[turn])["hand"]
        response = api.play(match_id, tokens[turn], hand[0])
        assert response.status_code == 200, response.text
        seen.append(turn)
        turn = response.json()["view"]["turn"]

    assert seen == [(seen[0] + i) % 4 for i in range(8)]  # R3: the turn passes to the next seat
    body = json.dumps(api.view(match_id, tokens[0]))
    assert '"hand_counts": [2, 2, 2, 2]' in body


def test_every_line_of_a_plays_answer_carries_the_table_after_it_as_the_feed_does(
    api: Api,
) -> None:
    # given a 2-seat practice table against the easy bot
    match_id, token = api.practice(seed="answer-after")
    view = api.view(match_id, token)
    # when the seat plays a card (the bot answers in the same request)
    answer = api.play(match_id, token, view["hand"][0]).json()
    # then each line has `after` with its own seq, and the last one is the view's live turn
    lines = answer["events"]
    assert len(lines) >= 2
    assert [line["after"]["seq"] for line in lines] == [line["seq"] for line in lines]
    last, live = lines[-1]["after"], answer["view"]["after"]
    assert (last["turn"], last["stock"], last["chain"]) == (
        live["turn"],
        live["stock"],
        live["chain"],
    )
    # and the first line, the seat's own play, hands the turn to the bot
    assert lines[0]["after"]["turn"] == 1
