"""R1 cards and R6 / docs/fairness.md determinism, with the published test vectors."""

from __future__ import annotations

import pytest

from domain.cards import DECK, INDEX, VALUE, display, parse_card
from domain.errors import InvalidClientSeedError, InvalidSecretError, UnknownCardError
from domain.fairness import (
    Stream,
    check_client_seed,
    commitment,
    deal_key,
    first_dealer,
    reference_shuffled_deck,
    secret_from_text_seed,
    shuffled_deck,
)

VECTOR_SECRET = bytes(range(32))


def test_r1_text_form_is_rank_then_suit_in_upper_case() -> None:
    assert parse_card("10d") == "10D"
    assert parse_card("qh") == "QH"
    assert parse_card("AC") == "AC"
    assert display("7D") == "7♦"


@pytest.mark.parametrize("text", ["", "1C", "11H", "ZZ", "7X", "10", "J", "AC ", "joker"])
def test_r1_unknown_card_text_is_refused_with_its_own_error(text: str) -> None:
    if text == "AC ":
        assert parse_card(text) == "AC"  # surrounding blanks are forgiven
        return
    with pytest.raises(UnknownCardError):
        parse_card(text)


def test_r1_fairness_card_index_order() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    assert (INDEX["AC"], INDEX["10C"], INDEX["AD"], INDEX["KS"]) == (0, 9, 13, 51)


def test_r7_values_ace_one_faces_none() -> None:
    assert [VALUE[c] for c in ("AS", "2C", "10H", "JD", "QC", "KS")] == [1, 2, 10, 0, 0, 0]


@pytest.mark.parametrize(
    ("seeds", "dealer", "round1", "round2"),
    [
        (["", ""], 1, "4D KD 2H 4S 9C 10C KC QS 6C 9S", "5H JD 5D 8C 4S AC"),
        (["alice", "bob"], 0, "3C QD AS 6S AH AC 5H 10D 6H JH", "7H 9S 5D 9H 4H 7D"),
        (["", "", "", ""], 2, "AH 8H KH JD KS 4S 7S AS 3S 3D", "JC 3S 2D AC AS 5D"),
    ],
)
def test_r6_fairness_test_vectors(seeds: list[str], dealer: int, round1: str, round2: str) -> None:
    key = deal_key(VECTOR_SECRET, seeds)
    assert first_dealer(key, len(seeds)) == dealer
    assert " ".join(shuffled_deck(key, 1)[:10]) == round1
    assert " ".join(shuffled_deck(key, 2)[:6]) == round2


def test_r6_text_seed_vector() -> None:
    secret = secret_from_text_seed("1000")
    assert secret.hex() == "89b54ce65b01c07f5b245c5cfc9bd60b50c5cc901ca499d01d081df6c827341a"
    key = deal_key(secret, ["", ""])
    assert first_dealer(key, 2) == 0
    assert " ".join(shuffled_deck(key, 1)[:10]) == "JH 10H 6S 3S 6C 4H 7H AS 5D 3C"


def test_r6_commitment_vector() -> None:
    assert (
        commitment("match-0001", VECTOR_SECRET)
        == "77e508cfa3d47a87b8d501fb60b1ceabe5fee9a9de0ce02bdcc15e8fea9a0a0e"
    )


def test_r6_every_shuffle_is_a_permutation_of_the_deck() -> None:
    key = deal_key(VECTOR_SECRET, ["", ""])
    for r in range(1, 31):
        assert sorted(shuffled_deck(key, r)) == sorted(DECK)
    assert shuffled_deck(key, 1) != shuffled_deck(key, 2)


def test_r6_shuffle_equals_the_reference_fisher_yates_on_many_keys() -> None:
    # Given many deal keys, when every round is shuffled, then the one-pass shuffle and the
    # shuffle written with Stream.uniform give the same stock.
    for k in range(40):
        key = deal_key(secret_from_text_seed(f"shuffle/{k}"), ["", "x"][: 1 + k % 2])
        for r in (1, 2, 7, 30):
            assert shuffled_deck(key, r) == reference_shuffled_deck(key, r)


def test_r6_shuffle_falls_back_to_the_reference_when_a_number_is_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import domain.fairness as fairness

    # Given limits so low that uniform rejects half the numbers (white-box: real rejections
    # come about once in seven million rounds)
    low = (0, *(2**31 for _ in range(1, len(fairness._LIMITS))))
    monkeypatch.setattr(fairness, "_LIMITS", low)
    calls = []
    reference = fairness.reference_shuffled_deck

    def spy(key: bytes, round_number: int) -> tuple[str, ...]:
        calls.append(round_number)
        return reference(key, round_number)

    monkeypatch.setattr(fairness, "reference_shuffled_deck", spy)
    key = deal_key(VECTOR_SECRET, ["", ""])
    # When round 1 is shuffled
    deck = fairness.shuffled_deck(key, 1)
    # Then the reference ran, with the same rejections, and gave a full deck
    assert calls == [1]
    assert deck == reference(key, 1)
    assert sorted(deck) == sorted(DECK)


def test_r6_uniform_rejects_numbers_at_or_above_the_limit() -> None:
    # Given a stream whose next numbers are forced: the first is in the biased tail for n = 3.
    stream = Stream(b"k" * 32, "x")
    limit = 2**32 - (2**32 % 3)
    stream._buffer = (limit, limit + 1, 7)  # white-box: the tail must be skipped
    stream._pos = 0
    # When drawing uniform(3), then the two tail numbers are rejected and 7 % 3 is returned.
    assert stream.uniform(3) == 7 % 3


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 52, 63, 64, 65, 1000, 2**31 + 1])
def test_r6_uniform_limit_is_2_to_the_32_minus_its_remainder_for_every_n(n: int) -> None:
    # Given a stream whose next number is the last one below the limit, then the first one at it
    limit = 2**32 - (2**32 % n)
    stream = Stream(b"k" * 32, "x")
    stream._buffer = (limit - 1, limit, 5)  # white-box: force the numbers drawn
    stream._pos = 0
    # When drawing twice, then the first is kept and the one at the limit is skipped
    assert stream.uniform(n) == (limit - 1) % n
    assert stream.uniform(n) == 5 % n


@pytest.mark.parametrize("n", [0, -1, -52])
def test_r6_uniform_needs_at_least_one_choice(n: int) -> None:
    with pytest.raises(ValueError, match="n >= 1"):
        Stream(b"k" * 32, "x").uniform(n)


def test_r6_stream_blocks_are_hmac_of_label_and_counter() -> None:
    import hashlib
    import hmac
    import struct

    key = deal_key(VECTOR_SECRET, ["", ""])
    stream = Stream(key, "dealer")
    first_block = hmac.new(
        key, struct.pack(">I", 6) + b"dealer" + struct.pack(">Q", 0), hashlib.sha256
    )
    expected = struct.unpack(">8I", first_block.digest())
    assert tuple(stream.next_u32() for _ in range(8)) == expected


def test_secret_must_be_32_bytes_and_client_seeds_64_bytes() -> None:
    with pytest.raises(InvalidSecretError):
        deal_key(b"short", ["", ""])
    with pytest.raises(InvalidClientSeedError):
        check_client_seed("x" * 65)
    assert check_client_seed("é" * 32) == "é" * 32
