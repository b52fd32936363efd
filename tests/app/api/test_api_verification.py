"""``GET``/``POST /matches/{id}/verification``: anyone after the end, support before it;
receipts from play responses are found on the stored chain, and a rewrite is caught by one."""

from __future__ import annotations

import json
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer


def _play_to_end(api: Api, match_id: str, token: str) -> list[dict[str, Any]]:
    """Seat 0 plays its first card until the match ends; every play response's ``after``."""
    afters: list[dict[str, Any]] = []
    while True:
        view = api.view(match_id, token)
        if view["status"] == "ended":
            return afters
        response = api.play(match_id, token, view["hand"][0])
        assert response.status_code == 200, response.text
        afters.append(response.json()["view"]["after"])


def test_before_the_end_only_support_verifies(api: Api, client: TestClient[Litestar]) -> None:
    # given a practice match still being played
    match_id, token = api.practice(seed="verify-before", target=1000)
    url = f"/matches/{match_id}/verification"
    # when anyone, the seat and support ask for its verification
    anonymous = client.get(url)
    seat = client.get(url, headers=bearer(token))
    support = client.get(url, headers=bearer(SUPPORT_TOKEN))
    # then only support is answered, and the stream is clean and chained
    assert anonymous.status_code == 401, anonymous.text
    assert (seat.status_code, seat.json()["error"]["code"]) == (403, "support_only")
    assert support.status_code == 200, support.text
    body = support.json()
    assert (body["ok"], body["chain"], body["divergence"]) == (True, "chained", None)
    # and support's look is recorded in the access log
    access = client.app.state.runtime.access.access_log(match_id=match_id)
    assert [record.what for record in access] == ["verification"]


def test_after_the_end_anyone_verifies_and_receipts_are_found(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given a practice match played to its end, with the after of every play response kept
    match_id, token = api.practice(seed="verify-after", target=1)
    afters = _play_to_end(api, match_id, token)
    receipts = [{"seq": a["seq"], "chain": a["chain"]} for a in afters]
    url = f"/matches/{match_id}/verification"
    # when anyone asks, with and without the receipts
    plain = client.get(url)
    checked = client.post(url, json={"receipts": receipts})
    # then the match verifies, every receipt lies on the stored chain
    assert plain.status_code == 200, plain.text
    assert plain.json()["ok"] is True and plain.json()["chain"] == "chained"
    assert checked.status_code == 200, checked.text
    assert checked.json()["ok"] is True
    assert checked.json()["receipts"] == len(receipts) > 0


def test_a_receipt_off_the_stored_chain_is_named(api: Api, client: TestClient[Litestar]) -> None:
    # given an ended match and one receipt whose chain the stream never had
    match_id, token = api.practice(seed="verify-forged", target=1)
    afters = _play_to_end(api, match_id, token)
    forged = {"seq": afters[0]["seq"], "chain": "ab" * 32}
    # when it is checked
    response = client.post(f"/matches/{match_id}/verification", json={"receipts": [forged]})
    # then the answer names that receipt
    assert response.status_code == 200, response.text
    divergence = response.json()["divergence"]
    assert divergence["kind"] == "receipt" and divergence["seq"] == forged["seq"]
    assert "abababababababab" in divergence["explanation"]


def test_bad_receipts_are_refused(api: Api, client: TestClient[Litestar]) -> None:
    # given an ended match
    match_id, token = api.practice(seed="verify-bad", target=1)
    _play_to_end(api, match_id, token)
    url = f"/matches/{match_id}/verification"
    # when the receipts are malformed
    cases = [
        ({"receipts": []}, 422, "invalid_value"),
        ({"receipts": [{"seq": 0, "chain": "ab" * 32}]}, 422, "wrong_type"),
        ({"receipts": [{"seq": 1, "chain": "XY" * 32}]}, 422, "wrong_type"),
        ({"receipts": [{"seq": "1", "chain": "ab" * 32}]}, 422, "wrong_type"),
        ({"receipts": [{"seq": 1}]}, 422, "wrong_type"),
    ]
    other = {"receipts": [{"seq": 1, "chain": "ab" * 32, "match_id": "m-else"}]}
    cases.append((other, 422, "invalid_receipts"))
    # then each is refused with the precise code, naming the field
    for body, status, code in cases:
        response = client.post(url, json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), body
        assert "receipt" in response.json()["error"]["message"], body


def test_a_stored_event_changed_is_caught_at_its_seq(
    api: Api, client: TestClient[Litestar], api_service: MatchService
) -> None:
    # given an ended match whose stored seat name is then changed in the store
    match_id, token = api.practice(seed="verify-tamper", target=1)
    _play_to_end(api, match_id, token)
    store = api_service.store
    events = store.read(match_id)
    import msgspec

    seat = events[1]
    changed = msgspec.structs.replace(seat, event=msgspec.structs.replace(seat.event, name="Eve"))
    _overwrite(api_service, match_id, changed)
    # when anyone verifies it
    body = client.get(f"/matches/{match_id}/verification").json()
    # then the chain breaks at that seq, before the rules are looked at
    assert body["ok"] is False
    assert (body["divergence"]["kind"], body["divergence"]["seq"]) == ("chain", 2)


def _overwrite(service: MatchService, match_id: str, recorded: Any) -> None:
    """Replace one stored row of the SQLite file in place, as an operator could."""
    import sqlite3

    from tests.stored_rows import write_recorded

    path = service.store.config.sqlite_path
    assert path is not None
    with sqlite3.connect(path) as db:
        write_recorded(db, match_id, recorded)


def test_the_answer_says_how_many_bot_plays_were_re_derived(
    api: Api, client: TestClient[Litestar]
) -> None:
    # given a practice match against the easy bot, played to its end
    match_id, token = api.practice(seed="verify-bots", target=1)
    _play_to_end(api, match_id, token)
    lines = [
        json.loads(line) for line in client.get(f"/matches/{match_id}/replay").text.splitlines()
    ]
    bots = lines[0]["bots"]
    played = sum(1 for e in lines[1:] if e["type"] == "card_played" and e["seat"] in bots)
    assert played > 0
    # when anyone asks for its verification
    response = client.get(f"/matches/{match_id}/verification")
    # then the answer counts every bot play, re-derived from the easy bot's seat view
    assert response.status_code == 200, response.text
    assert response.json()["bot_plays"] == {
        "rederived": played,
        "by_kind": {"easy": played},
        "legal_only": {},
    }
