"""docs/fairness.md is enough to write a second implementation: one written from it alone
(tests/domain/fairness_reference.py) agrees with the server's on every step."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain import fairness
from domain.bots import RandomBot as ServerRandomBot
from domain.commands import PlayCard
from domain.dealing import round_deck
from domain.decide import decide
from domain.events import CardPlayed, CardsDealt, FloorDealt, RoundStarted
from domain.evolve import fold
from domain.rulesets import RULESETS
from tests.domain import fairness_reference as ref
from tests.domain.builders import created

SEQUENTIAL = bytes(range(32))


def test_the_reference_gives_the_vectors_printed_on_the_page() -> None:
    # Given the vectors of docs/fairness.md, then the reference computes each of them
    for seeds, dealer, round_1, round_2 in (
        (["", ""], 1, "4D KD 2H 4S 9C 10C KC QS 6C 9S", "5H JD 5D 8C 4S AC"),
        (["alice", "bob"], 0, "3C QD AS 6S AH AC 5H 10D 6H JH", "7H 9S 5D 9H 4H 7D"),
        (["", "", "", ""], 2, "AH 8H KH JD KS 4S 7S AS 3S 3D", "JC 3S 2D AC AS 5D"),
    ):
        key = ref.deal_key(SEQUENTIAL, seeds)
        assert ref.first_dealer(key, len(seeds)) == dealer
        assert ref.round_deck(key, 1)[:10] == round_1.split()
        assert ref.round_deck(key, 2)[:6] == round_2.split()
    secret = ref.secret_from_text("1000")
    assert secret.hex() == "89b54ce65b01c07f5b245c5cfc9bd60b50c5cc901ca499d01d081df6c827341a"
    key = ref.deal_key(secret, ["", ""])
    assert ref.first_dealer(key, 2) == 0
    assert ref.round_deck(key, 1)[:10] == [
        "JH",
        "10H",
        "6S",
        "3S",
        "6C",
        "4H",
        "7H",
        "AS",
        "5D",
        "3C",
    ]
    assert (
        ref.commitment("match-0001", SEQUENTIAL)
        == "77e508cfa3d47a87b8d501fb60b1ceabe5fee9a9de0ce02bdcc15e8fea9a0a0e"
    )


@settings(max_examples=60, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.lists(st.text(max_size=12), min_size=2, max_size=4),
    st.text(max_size=20),
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=300),
)
def test_the_reference_and_the_server_agree_on_every_step(
    secret: bytes, seeds: list[str], match_id: str, round_number: int, n: int
) -> None:
    # Given any secret, client seeds, match id and round
    key = fairness.deal_key(secret, seeds)
    # Then commitment, key, first dealer, deck and a run of uniform draws are the same
    assert ref.commitment(match_id, secret) == fairness.commitment(match_id, secret)
    assert ref.deal_key(secret, seeds) == key
    assert ref.first_dealer(key, len(seeds)) == fairness.first_dealer(key, len(seeds))
    assert ref.round_deck(key, round_number) == list(round_deck(key, round_number))
    mine, theirs = ref.Stream(key, "x"), fairness.Stream(key, "x")
    assert [mine.uniform(n) for _ in range(40)] == [theirs.uniform(n) for _ in range(40)]
    assert ref.secret_from_text(match_id) == fairness.secret_from_text_seed(match_id)


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(["classic", "egyptian", "lebanese", "yemeni", "jordanian"]),
    st.sampled_from([2, 4]),
    st.text(max_size=6),
)
def test_every_deal_and_every_random_bot_play_of_a_match_follow_the_page(
    ruleset: str, seats: int, seed: str
) -> None:
    # Given a random-bot match played through by the server to its end
    events, state = created(ruleset, seats, seed=seed, bot_kind="random")
    assert state.setup is not None and state.setup.key is not None
    key = state.setup.key
    bots = {s: ServerRandomBot(key, s) for s in range(seats)}
    while state.status == "playing":
        seat = state.turn
        assert seat is not None
        made = decide(state, PlayCard(seat, bots[seat].choose_from(state.hands[seat])))
        events.extend(made)
        state = fold(made, state)
    # Then each round's opening is the page's (dealer, hands in the order dealt, floor) ...
    rules = RULESETS[ruleset]
    for k, event in enumerate(events):
        if isinstance(event, RoundStarted):
            dealt, floor = events[k + 1], events[k + 2]
            assert isinstance(dealt, CardsDealt) and isinstance(floor, FloorDealt)
            hands, turned, _ = ref.opening(
                key, seats, event.round, rules.hand_size, rules.komi_has_power
            )
            assert event.dealer == ref.dealer_of_round(key, seats, event.round)
            assert [list(h or ()) for h in dealt.hands] == hands
            assert list(floor.cards) == turned
    # ... and every card a random bot played is the page's draw over its hand at that moment
    reference_bots = {s: ref.RandomBot(key, s) for s in range(seats)}
    hands_now: list[list[str]] = [[] for _ in range(seats)]
    for event in events:
        if isinstance(event, CardsDealt):
            hands_now = [list(h or ()) for h in event.hands]
        elif isinstance(event, CardPlayed):
            assert reference_bots[event.seat].play(hands_now[event.seat]) == event.card
            hands_now[event.seat].remove(event.card)
