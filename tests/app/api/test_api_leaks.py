"""R23 through the API: whole matches at 2 and 4 seats, every body and SSE message scanned.

Each seat plays through its own token while a feed per seat (and one for support) is open.
Every response body and every SSE message a seat receives before the match ends is checked
against what that seat could know at that moment (its own deals and every card that has been
face up, from the full stream afterwards): no other card, and never the match secret.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import httpx
import pytest
from litestar import Litestar

from app.service import MatchService
from domain.cards import DECK
from domain.events import CardPlayed, CardsDealt, FloorDealt, MatchCreated, MatchEnded, RoundScored
from domain.recorded import RecordedEvent
from tests.app.api.helpers import (
    SUPPORT_TOKEN,
    HttpSteps,
    SseReader,
    bearer,
    cards_in,
    serving,
)


@dataclass
class Seen:
    """One body a seat received: when (the seq it reflects), what, and any card it sent itself."""

    seat: int
    seq: int
    text: str
    echoed: str | None = None


@dataclass
class Table:
    """A table of people playing through the API, recording everything each seat receives."""

    steps: HttpSteps
    match_id: str
    tokens: dict[int, str]
    seen: list[Seen] = field(default_factory=list)
    last_seq: dict[int, int] = field(default_factory=dict)

    def get(self, seat: int, path: str) -> httpx.Response:
        response = self.steps.http.get(
            f"{self.steps.url}/matches/{self.match_id}{path}", headers=bearer(self.tokens[seat])
        )
        self._record(seat, response)
        return response

    def post(self, seat: int, path: str, body: dict[str, object]) -> httpx.Response:
        response = self.steps.http.post(
            f"{self.steps.url}/matches/{self.match_id}{path}",
            json=body,
            headers=bearer(self.tokens[seat]),
        )
        self._record(seat, response, echoed=str(body.get("card", "")).upper() or None)
        return response

    def _record(self, seat: int, response: httpx.Response, echoed: str | None = None) -> None:
        seq = self.last_seq.get(seat, 0)
        kind = response.headers.get("content-type", "")
        if kind.startswith("application/jsonl"):
            seq = json.loads(response.text.splitlines()[-1]).get("seq", seq)
        elif kind.startswith("application/json"):
            data = response.json()
            if isinstance(data, dict) and isinstance(data.get("seq"), int):
                seq = data["seq"]
        self.last_seq[seat] = seq
        self.seen.append(Seen(seat, seq, response.text, echoed))


def _visible_by_seq(stream: list[RecordedEvent], seat: int) -> list[set[str]]:
    """What ``seat`` could know after each seq (index = seq): its deals and every face-up card."""
    known: set[str] = set()
    out: list[set[str]] = [set()]
    for recorded in stream:
        event = recorded.event
        if isinstance(event, CardsDealt):
            known |= set(event.hands[seat] or ())
        elif isinstance(event, FloorDealt):
            known |= set(event.cards) | set(event.reburied)
        elif isinstance(event, CardPlayed):
            known |= {event.card, *event.captured}
        elif isinstance(event, RoundScored) and event.last_pickup is not None:
            known |= set(event.last_pickup.cards)
        out.append(set(known))
    return out


def _choose(table: Table, seat: int, view: dict[str, object], probe: bool) -> str:
    """Preview the hand (and, when ``probe``, every card of the deck) and pick a card."""
    hand = [str(card) for card in view["hand"]]  # type: ignore[attr-defined]
    best = hand[0]
    for card in hand:
        preview = table.post(seat, "/preview", {"card": card}).json()
        if preview["captured"]:
            best = card
    if probe:
        # No oracle: every card not in the hand is refused in exactly the same words.
        refusals = set()
        for card in DECK:
            if card in hand:
                continue
            response = table.post(seat, "/preview", {"card": card})
            assert response.status_code == 422
            refusals.add(response.text.replace(card, "CARD"))
        assert len(refusals) == 1, refusals
    return best


def _play_through(table: Table, seats: int) -> None:
    turns = 0
    while True:
        views = {seat: table.get(seat, "/view").json() for seat in range(seats)}
        if views[0]["status"] == "ended":
            return
        seat = views[0]["turn"]
        probe = turns % 40 == 0
        card = _choose(table, seat, views[seat], probe)
        if turns % 25 == 7:
            table.get(seat, "/replay")  # the seat's own export, mid-match
        if turns % 25 == 11:
            # The analysis would tell of unseen cards: support's alone until the end.
            refused = table.get(seat, "/analysis")
            assert refused.status_code == 403, refused.text
        if turns % 25 == 13:
            # So would a verification's explanation: support's alone until the end too; the
            # receipts (after.chain) every body carries are blinded (tests/domain/test_chain.py).
            refused = table.get(seat, "/verification")
            assert refused.status_code == 403, refused.text
        response = table.post(seat, "/plays", {"card": card})
        assert response.status_code == 200, response.text
        turns += 1
        assert turns < 2000, "the match did not end"


@pytest.mark.parametrize(
    ("seats", "ruleset", "seed"),
    [(2, "classic", "leak-two"), (4, "egyptian", "leak-four")],
)
def test_no_seat_ever_receives_a_card_it_could_not_see_or_the_secret(
    api_app: Litestar, api_service: MatchService, seats: int, ruleset: str, seed: str
) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id = steps.create(ruleset=ruleset, seats=seats, seed=seed, target=60)["match_id"]
        tokens: dict[int, str] = {}
        feeds: dict[int, SseReader] = {}
        for seat in range(seats):
            tokens[seat] = steps.sit(match_id, seat, f"Player {seat}")
            feeds[seat] = steps.feed(match_id, tokens[seat])
        support_feed = steps.feed(match_id, SUPPORT_TOKEN)
        table = Table(steps, match_id, tokens)
        _play_through(table, seats)
        public = http.get(f"{server.url}/matches/{match_id}").text
        messages = {seat: feed.join() for seat, feed in feeds.items()}
        support_messages = support_feed.join()

    stream = api_service.events(match_id)
    created = stream[0].event
    ended = stream[-1]
    assert isinstance(created, MatchCreated) and created.secret is not None
    assert isinstance(ended.event, MatchEnded)
    secret = created.secret
    hits: list[str] = []
    checked = 0
    for seat in range(seats):
        visible = _visible_by_seq(stream, seat)
        bodies = [s for s in table.seen if s.seat == seat]
        bodies += [Seen(seat, m.id or 0, m.raw) for m in messages[seat]]
        for body in bodies:
            if body.seq >= ended.seq:
                continue  # the match has ended: everything is open (R23)
            checked += 1
            leaked = cards_in(body.text) - visible[body.seq] - {body.echoed}
            if leaked:
                hits.append(f"seat {seat} at seq {body.seq}: {sorted(leaked)} in {body.text[:200]}")
            if secret in body.text:
                hits.append(f"seat {seat} at seq {body.seq}: the secret")
        assert [m.id for m in messages[seat]] == [r.seq for r in stream]
    for message in support_messages:
        if (message.id or 0) < ended.seq and secret in message.raw:
            hits.append(f"support at seq {message.id}: the secret")
    public_cards = set().union(*(_visible_by_seq(stream, s)[-1] for s in range(seats)))
    assert cards_in(public) <= public_cards

    assert checked > 500
    assert hits == []
    # The scan can fail: each seat's own feed does hold its hand, which the others never see.
    own_deal = next(m for m in messages[0] if m.data and m.data["type"] == "cards_dealt")
    assert own_deal.data is not None and own_deal.data["hands"][0]
    assert all(h is None for h in own_deal.data["hands"][1:])
    assert re.search(r'"secret":null', messages[0][0].raw)


def test_tickets_and_agent_tokens_never_come_back_nor_reach_a_log(api_app: Litestar) -> None:
    import logging

    from app.api.edges.logs import REDACTED, RedactTokens
    from app.api.edges.tokens import AGENT_PREFIX, issue_prefixed

    agent, agent_hash = issue_prefixed(AGENT_PREFIX)
    with serving(api_app) as server, httpx.Client(timeout=30) as http:
        api_app.state.runtime.access.add_agent("leaktest", agent_hash)
        steps = HttpSteps(http, server.url)
        match_id, seat0 = steps.practice(seed="leak-tickets")
        url = f"{server.url}/matches/{match_id}"
        assert http.post(f"{url}/leave", headers=bearer(seat0)).status_code == 200
        issued = http.post(f"{url}/tickets", headers=bearer(agent))
        ticket = issued.json()["ticket"]
        bodies = [
            http.get(f"{url}/view", headers=bearer(agent)).text,
            http.get(f"{url}/events?ticket={ticket}").text,
            http.get(f"{url}/events?ticket={ticket}").text,  # spent: refused
            http.get(f"{url}/events", params={"access_token": agent}).text,
            http.get(f"{url}/replay", headers=bearer(agent)).text,
        ]
        api_app.state.runtime.access.revoke_agent("leaktest")
        bodies.append(http.get(f"{url}/view", headers=bearer(agent)).text)

    for body in bodies:
        assert agent not in body and ticket not in body
        assert agent[len(AGENT_PREFIX) :] not in body
    for record in api_app.state.runtime.access.access_log():
        assert agent not in repr(record) and ticket not in repr(record)
    # What an access log line would hold, through the filter every server logger carries.
    line = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s "%s"', ("1.2.3.4", ""), None
    )
    line.args = ("1.2.3.4", f"GET /matches/{match_id}/events?ticket={ticket}&x={agent} HTTP/1.1")
    RedactTokens().filter(line)
    assert ticket not in line.getMessage() and agent not in line.getMessage()
    assert f"ticket={REDACTED}" in line.getMessage()


def test_a_players_match_list_shows_no_card_and_only_their_own_matches(
    api_service: MatchService, api_app: Litestar
) -> None:
    """Given two players at one table mid-round, when each reads their match list, then no
    card of any hand is in it, and neither list names a match the other player alone sits in."""
    from litestar.testing import TestClient

    with TestClient(api_app) as client:
        amal = client.post("/players", json={"name": "Amal"}).json()
        noor = client.post("/players", json={"name": "Noor"}).json()
        shared = client.post("/matches", json={"ruleset": "classic", "seats": 2}).json()
        for seat, player in enumerate((amal, noor)):
            taken = client.post(
                f"/matches/{shared['match_id']}/seats/{seat}", headers=bearer(player["token"])
            )
            assert taken.status_code == 201, taken.text
        alone = client.post("/matches", json={"ruleset": "classic", "seats": 2}).json()
        client.post(f"/matches/{alone['match_id']}/seats/0", headers=bearer(amal["token"]))

        lists = {
            name: client.get("/players/me/matches", headers=bearer(p["token"]))
            for name, p in (("amal", amal), ("noor", noor))
        }

    assert all(r.status_code == 200 for r in lists.values())
    assert cards_in(lists["amal"].text) == cards_in(lists["noor"].text) == set()
    assert alone["match_id"] in lists["amal"].text
    assert alone["match_id"] not in lists["noor"].text
    hands = [r.event for r in api_service.events(shared["match_id"])]
    dealt = {c for e in hands if isinstance(e, CardsDealt) for h in e.hands if h for c in h}
    assert dealt and not dealt & (cards_in(lists["amal"].text) | cards_in(lists["noor"].text))


def test_a_player_token_opens_no_other_seat_and_no_other_players_record(
    api_app: Litestar,
) -> None:
    """Given Amal and Noor at one table, when Noor's token asks for Amal's seat, then 403;
    and /players/me answers only with the token holder's own record."""
    from litestar.testing import TestClient

    with TestClient(api_app) as client:
        amal = client.post("/players", json={"name": "Amal"}).json()
        noor = client.post("/players", json={"name": "Noor"}).json()
        match_id = client.post("/matches", json={"ruleset": "classic", "seats": 2}).json()[
            "match_id"
        ]
        client.post(f"/matches/{match_id}/seats/0", headers=bearer(amal["token"]))
        client.post(f"/matches/{match_id}/seats/1", headers=bearer(noor["token"]))

        other_seat = client.get(f"/matches/{match_id}/view?seat=0", headers=bearer(noor["token"]))
        own = client.get(f"/matches/{match_id}/view", headers=bearer(noor["token"]))
        me = client.get("/players/me", headers=bearer(noor["token"]))

    assert other_seat.status_code == 403
    assert other_seat.json()["error"]["code"] == "wrong_seat"
    assert own.status_code == 200 and own.json()["seat"] == 1
    assert me.json()["player_id"] == noor["player_id"]
    assert amal["player_id"] not in me.text and amal["token"] not in me.text


def _public_by_seq(stream: list[RecordedEvent]) -> list[set[str]]:
    """What anyone could know after each seq (index = seq): every card that has been face up."""
    known: set[str] = set()
    out: list[set[str]] = [set()]
    for recorded in stream:
        event = recorded.event
        if isinstance(event, FloorDealt):
            known |= set(event.cards) | set(event.reburied)
        elif isinstance(event, CardPlayed):
            known |= {event.card, *event.captured}
        elif isinstance(event, RoundScored) and event.last_pickup is not None:
            known |= set(event.last_pickup.cards)
        out.append(set(known))
    return out


@pytest.mark.parametrize(("seats", "seed"), [(2, "spectate-two"), (4, "spectate-four")])
def test_a_spectator_and_the_lobby_never_see_a_hand_or_the_secret(
    api_app: Litestar, api_service: MatchService, seats: int, seed: str
) -> None:
    with serving(api_app) as server, httpx.Client() as http:
        steps = HttpSteps(http, server.url)
        match_id = steps.create(ruleset="classic", seats=seats, seed=seed, target=40)["match_id"]
        tokens = {seat: steps.sit(match_id, seat, f"Player {seat}") for seat in range(seats)}
        spectator = SseReader(f"{server.url}/matches/{match_id}/events", {}).start()
        public: list[tuple[int, str]] = []
        turns = 0
        while True:
            table = http.get(f"{server.url}/matches/{match_id}")
            lobby = http.get(f"{server.url}/matches?status=playing")
            seq = table.json()["seq"]
            public += [(seq, table.text), (seq, lobby.text)]
            if table.json()["status"] == "ended":
                break
            seat = table.json()["turn"]
            card = steps.view(match_id, tokens[seat])["hand"][0]
            played = http.post(
                f"{server.url}/matches/{match_id}/plays",
                json={"card": card},
                headers=bearer(tokens[seat]),
            )
            assert played.status_code == 200, played.text
            turns += 1
            assert turns < 2000, "the match did not end"
        messages = spectator.join()

    stream = api_service.events(match_id)
    created = stream[0].event
    assert isinstance(created, MatchCreated) and created.secret is not None
    ended = stream[-1].seq
    visible = _public_by_seq(stream)
    seen = public + [(m.id or 0, m.raw) for m in messages]
    hits = [
        f"at seq {seq}: {sorted(cards_in(text) - visible[seq])} in {text[:200]}"
        for seq, text in seen
        if seq < ended and (cards_in(text) - visible[seq] or created.secret in text)
    ]
    assert [m.id for m in messages] == [r.seq for r in stream]
    assert len([s for s, _ in seen if s < ended]) > 100
    assert hits == []
    # The scan can fail: the spectator's deals carry the hands as null, the hands exist.
    deal = next(r.event for r in stream if isinstance(r.event, CardsDealt))
    assert all(deal.hands) and any(cards_in(json.dumps(deal.hands)))
