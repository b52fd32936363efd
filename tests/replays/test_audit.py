"""Re-adjudication: clean streams pass; every kind of tampering is caught at its own seq."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.cards import DECK
from domain.events import (
    CardPlayed,
    CardsDealt,
    FloorDealt,
    MatchCreated,
    MatchEnded,
    RoundScored,
    RoundStarted,
    SideScore,
)
from domain.evolve import fold
from domain.recorded import RecordedEvent
from replays.audit import audit, audit_events
from tests.replays.streams import (
    GOLDEN_NAMES,
    RULESETS,
    bot_match,
    first_seq,
    golden_events,
    swapped,
    tampered,
)


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_every_golden_match_follows_the_rules(name: str) -> None:
    report = audit(golden_events(name))
    assert report.ok, report.divergence
    assert report.seeded and report.match_id == name


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("kind", ["easy", "random"])
def test_bot_matches_of_every_rule_set_follow_the_rules(ruleset: str, kind: str) -> None:
    report = audit(bot_match(ruleset, 4, seed=f"audit-{kind}", bot_kind=kind))
    assert report.ok, report.divergence


@pytest.fixture(scope="module")
def clean() -> list[RecordedEvent]:
    """A clean golden stream with people, bots and an auto play (4 seats, Classic)."""
    return golden_events("golden-classic-4")


def _play(recorded: list[RecordedEvent], *, capturing: bool) -> CardPlayed:
    for item in recorded:
        if isinstance(item.event, CardPlayed) and bool(item.event.captured) == capturing:
            return item.event
    raise LookupError


def test_a_play_that_takes_other_cards_is_caught_at_its_seq(clean: list[RecordedEvent]) -> None:
    # given a capturing play whose haul is cut short in the store
    play = _play(clean, capturing=True)
    seq = first_seq(clean, CardPlayed, seat=play.seat, card=play.card)
    changed = tampered(clean, seq, captured=play.captured[:-1] or ("AS",))
    # when the stream is re-adjudicated
    report = audit(changed)
    # then the divergence is that play, explained by what the rules take
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "play")
    assert "the rules take" in report.divergence.explanation


def test_a_basra_added_to_a_trail_is_caught(clean: list[RecordedEvent]) -> None:
    play = _play(clean, capturing=False)
    seq = first_seq(clean, CardPlayed, seat=play.seat, card=play.card)
    report = audit(tampered(clean, seq, basra=10))
    assert report.divergence is not None and report.divergence.seq == seq
    assert "Basra of 10" in report.divergence.explanation and "R14" in report.divergence.explanation


def test_a_card_the_seat_does_not_hold_is_caught(clean: list[RecordedEvent]) -> None:
    # given a play changed to a card not in that seat's hand
    play = _play(clean, capturing=False)
    seq = first_seq(clean, CardPlayed, seat=play.seat, card=play.card)
    hand = fold(r.event for r in clean[: seq - 1]).hands[play.seat]
    stranger = next(c for c in DECK if c not in hand)
    report = audit(tampered(clean, seq, card=stranger))
    assert report.divergence is not None and report.divergence.seq == seq
    assert "not in seat" in report.divergence.explanation


def test_a_changed_deal_is_caught_at_the_deal(clean: list[RecordedEvent]) -> None:
    # given the second deal of round 1 with one card swapped between two hands
    seq = first_seq(clean, CardsDealt, round=1, deal=2)
    deal = clean[seq - 1].event
    assert isinstance(deal, CardsDealt) and deal.hands[0] and deal.hands[1]
    h0, h1 = deal.hands[0], deal.hands[1]
    hands = ((h1[0], *h0[1:]), (h0[0], *h1[1:]), *deal.hands[2:])
    report = audit(tampered(clean, seq, hands=hands))
    # then the divergence is that deal, and it names the seed (R6)
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "deal")
    assert "the seed deals" in report.divergence.explanation


def test_a_changed_first_floor_or_dealer_is_caught(clean: list[RecordedEvent]) -> None:
    floor_seq = first_seq(clean, FloorDealt, round=1)
    floor = clean[floor_seq - 1].event
    assert isinstance(floor, FloorDealt)
    report = audit(tampered(clean, floor_seq, cards=floor.cards[::-1]))
    assert report.divergence is not None and report.divergence.seq == floor_seq
    round_seq = first_seq(clean, RoundStarted, round=2)
    started = clean[round_seq - 1].event
    assert isinstance(started, RoundStarted)
    report = audit(tampered(clean, round_seq, dealer=(started.dealer + 2) % 4))
    assert report.divergence is not None and report.divergence.seq == round_seq
    assert "R3" in report.divergence.explanation


def test_a_changed_score_is_caught_at_the_score(clean: list[RecordedEvent]) -> None:
    seq = first_seq(clean, RoundScored, round=1)
    scored = clean[seq - 1].event
    assert isinstance(scored, RoundScored)
    side = scored.sides[0]
    sides = (replace(side, total=side.total + 5), scored.sides[1])
    report = audit(tampered(clean, seq, sides=sides))
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "score")
    assert "round total" in report.divergence.explanation and "R21" in report.divergence.explanation
    totals = (scored.totals[0] + 5, scored.totals[1])
    report = audit(tampered(clean, seq, totals=totals))
    assert report.divergence is not None and report.divergence.seq == seq
    assert "match totals" in report.divergence.explanation


def test_a_changed_carry_or_majority_is_caught(clean: list[RecordedEvent]) -> None:
    seq = first_seq(clean, RoundScored, round=1)
    scored = clean[seq - 1].event
    assert isinstance(scored, RoundScored)
    report = audit(tampered(clean, seq, carry=scored.carry + 30))
    assert report.divergence is not None and report.divergence.seq == seq
    assert "R20" in report.divergence.explanation
    fake = SideScore(27, 30, 0, 0, 30)
    report = audit(tampered(clean, seq, sides=(fake, scored.sides[1])))
    assert report.divergence is not None and report.divergence.seq == seq


def test_two_plays_in_each_others_place_are_caught_at_the_first(
    clean: list[RecordedEvent],
) -> None:
    # given two consecutive plays of different seats swapped in the stream
    seq = next(
        r.seq
        for r in clean[:-1]
        if isinstance(r.event, CardPlayed) and isinstance(clean[r.seq].event, CardPlayed)
    )
    report = audit(swapped(clean, seq))
    # then the first of them is out of turn (R3)
    assert report.divergence is not None and report.divergence.seq == seq
    assert "turn" in report.divergence.explanation


def test_a_play_moved_before_a_deal_is_caught(clean: list[RecordedEvent]) -> None:
    # given the last play of deal 1 and the deal that follows it swapped
    seq = first_seq(clean, CardsDealt, round=1, deal=2)
    report = audit(swapped(clean, seq - 1))
    assert report.divergence is not None and report.divergence.seq == seq - 1
    assert report.divergence.kind == "order"


def test_a_stream_that_stops_mid_answer_or_goes_on_after_the_end(
    clean: list[RecordedEvent],
) -> None:
    # the last play of a round without its score: missing at the next seq
    seq = first_seq(clean, RoundScored, round=1)
    report = audit(clean[: seq - 1])
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "missing")
    # an event after the end: extra
    extra = RecordedEvent(seq=len(clean) + 1, at=clean[-1].at, event=clean[-2].event)
    report = audit([*clean, extra])
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (len(clean) + 1, "extra")


def test_a_gap_in_seq_is_caught(clean: list[RecordedEvent]) -> None:
    report = audit(clean[:9] + clean[10:])
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (10, "sequence")


def test_a_bot_play_the_bot_would_not_make_is_caught() -> None:
    # given a random-bot match whose bot play is replaced by a card the stream would not pick
    recorded = bot_match("classic", 2, seed="audit-bot", bot_kind="random")
    seq = first_seq(recorded, CardPlayed)
    play = recorded[seq - 1].event
    assert isinstance(play, CardPlayed)
    hand = fold(r.event for r in recorded[: seq - 1]).hands[play.seat]
    other = next(c for c in hand if c != play.card)
    report = audit(tampered(recorded, seq, card=other, captured=(), groups=(), basra=0))
    # then the bot check names the seat's stream (docs/fairness.md)
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "bot")
    assert f"bot/{play.seat}" in report.divergence.explanation
    # and with bot checks off, the rules still catch whatever else differs later or pass it
    assert audit(tampered(recorded, seq, card=other), bots=False).divergence is not None


def test_an_auto_play_must_be_the_easy_bots_choice(clean: list[RecordedEvent]) -> None:
    seq = next(r.seq for r in clean if isinstance(r.event, CardPlayed) and r.event.auto)
    play = clean[seq - 1].event
    assert isinstance(play, CardPlayed)
    hand = fold(r.event for r in clean[: seq - 1]).hands[play.seat]
    other = next(c for c in hand if c != play.card)
    report = audit(tampered(clean, seq, card=other))
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (seq, "bot")
    assert "R25" in report.divergence.explanation


def test_a_commitment_that_does_not_match_the_secret_is_caught(
    clean: list[RecordedEvent],
) -> None:
    report = audit(tampered(clean, 1, commitment="0" * 64))
    assert report.divergence is not None
    assert (report.divergence.seq, report.divergence.kind) == (1, "setup")
    assert "docs/fairness.md" in report.divergence.explanation


def test_an_imported_match_checks_its_commitment_against_its_origin(
    clean: list[RecordedEvent],
) -> None:
    # given the same stream stored under a new id, with the first id kept as origin
    created = clean[0].event
    assert isinstance(created, MatchCreated)
    moved = tampered(clean, 1, match_id="imp-1", origin=created.match_id)
    assert audit(moved).ok
    # but claiming another origin breaks the commitment
    assert not audit(tampered(clean, 1, match_id="imp-1", origin="someone-else")).ok


def test_an_end_by_target_without_a_score_is_caught(clean: list[RecordedEvent]) -> None:
    seq = first_seq(clean, CardPlayed)
    forged = RecordedEvent(seq=seq, at="x", event=MatchEnded(0, "target", (101, 0)))
    report = audit([*clean[: seq - 1], forged])
    assert report.divergence is not None and report.divergence.seq == seq
    assert "R22" in report.divergence.explanation


def _unseeded(recorded: list[RecordedEvent]) -> list[RecordedEvent]:
    out = tampered(recorded, 1, secret=None)
    last = out[-1].event
    assert isinstance(last, MatchEnded)
    return tampered(out, len(out), seed=None)


def test_without_a_seed_deals_are_taken_as_recorded_and_plays_still_judged(
    clean: list[RecordedEvent],
) -> None:
    # given the stream without its secret (an import from elsewhere)
    unseeded = _unseeded(clean)
    # then it is clean, and not seeded
    report = audit(unseeded)
    assert report.ok, report.divergence
    assert not report.seeded
    # but a deal that gives a card twice, or a play the rules deny, is still caught
    seq = first_seq(unseeded, CardsDealt, round=1, deal=2)
    deal = unseeded[seq - 1].event
    assert isinstance(deal, CardsDealt) and deal.hands[0] and deal.hands[1]
    doubled = ((deal.hands[1][0], *deal.hands[0][1:]), *deal.hands[1:])
    report = audit(tampered(unseeded, seq, hands=doubled))
    assert report.divergence is not None and report.divergence.seq == seq
    assert "twice" in report.divergence.explanation
    play = _play(unseeded, capturing=True)
    seq = first_seq(unseeded, CardPlayed, seat=play.seat, card=play.card)
    report = audit(tampered(unseeded, seq, captured=()))
    assert report.divergence is not None and report.divergence.seq == seq


def test_a_reburied_card_that_has_no_power_is_caught_without_a_seed(
    clean: list[RecordedEvent],
) -> None:
    unseeded = _unseeded(clean)
    seq = first_seq(unseeded, FloorDealt, round=1)
    floor = unseeded[seq - 1].event
    assert isinstance(floor, FloorDealt)
    report = audit(tampered(unseeded, seq, reburied=(*floor.reburied, floor.cards[0])))
    assert report.divergence is not None and report.divergence.seq == seq
    assert "R4" in report.divergence.explanation


def test_leniency_fills_in_groups_a_foreign_file_left_out(clean: list[RecordedEvent]) -> None:
    # given plays with their optional groups and sweep flags removed
    stripped = list(clean)
    for i, item in enumerate(stripped):
        if isinstance(item.event, CardPlayed):
            stripped[i] = replace(item, event=replace(item.event, groups=(), sweep=False))
    # then the strict audit refuses them, the lenient one accepts and completes them
    assert not audit(stripped).ok
    result = audit_events(stripped, lenient=True)
    assert result.report.ok
    assert list(result.events) == [r.event for r in clean]


def _bot_plays_by_kind(recorded: list[RecordedEvent]) -> dict[str, int]:
    """Count the plays the bots made in a stream, read off the events: by bot kind, and
    ``auto`` for the easy bot's cards for a person whose clock ran out (R25)."""
    created = recorded[0].event
    assert isinstance(created, MatchCreated)
    counts: dict[str, int] = {}
    for item in recorded:
        event = item.event
        if not isinstance(event, CardPlayed):
            continue
        if event.seat in created.bots:
            kind = created.bot_kind
        elif event.auto:
            kind = "auto"
        else:
            continue
        counts[kind] = counts.get(kind, 0) + 1
    return counts


@pytest.mark.parametrize("name", ["golden-egyptian-4", "golden-classic-2", "golden-yemeni-4"])
def test_the_audit_counts_each_bot_play_it_re_derived_by_kind(name: str) -> None:
    # given a golden match (random or easy bots, and a card the clock played for a person)
    recorded = golden_events(name)
    # when it is re-adjudicated
    report = audit(recorded)
    # then every bot play and every auto play is counted as re-derived, by kind
    assert report.ok, report.divergence
    expected = _bot_plays_by_kind(recorded)
    assert expected, "each of these golden matches has a bot"
    assert report.bot_plays.by_kind == expected
    assert report.bot_plays.rederived == sum(expected.values())
    assert report.bot_plays.legal_only == {}


def test_without_the_secret_a_random_bot_s_plays_are_checked_as_legal_cards_only() -> None:
    # given a golden match of random bots with its secret taken out (deals as recorded)
    recorded = golden_events("golden-egyptian-4")
    ended = len(recorded)
    hidden = tampered(tampered(recorded, 1, secret=None, commitment=None), ended, seed=None)
    # when it is re-adjudicated
    report = audit(hidden)
    # then its random bot's plays cannot be re-derived (their stream is drawn from the secret)
    assert report.ok and not report.seeded, report.divergence
    expected = _bot_plays_by_kind(recorded)
    assert report.bot_plays.legal_only == {"random": expected["random"]}
    assert report.bot_plays.by_kind == {"auto": expected["auto"]}
