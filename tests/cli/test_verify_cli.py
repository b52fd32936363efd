"""``basra verify``: stored matches re-adjudicated; tampering in the database found at its seq."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from app.service import MatchService
from cli.main import app
from domain.bots import EasyBot
from domain.fairness import secret_from_text_seed
from domain.views import seat_view
from tests.chain_rewrite import rechain_sqlite
from tests.stored_rows import json_row, json_rows, stream_of, write_json_row, write_raw_row

ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def run(*args: str) -> Result:
    """``basra ARGS`` through typer's CliRunner, with stdout and stderr apart."""
    return CliRunner().invoke(app, list(args), env=ISOLATED)


@pytest.fixture(scope="module")
def recorded_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A SQLite store with matches recorded by the service: bots only, and a person with bots.

    The person's match is played request by request through the service, so its random bots
    resume their streams between requests as they do behind the HTTP API.
    """
    path = tmp_path_factory.mktemp("verify") / "basra.db"
    service = MatchService.open(path)
    ids: dict[str, str] = {}
    try:
        ids["bots"] = service.create_match(
            ruleset="classic", seats=2, bots=(0, 1), secret=secret_from_text_seed("verify/bots")
        ).match_id
        ids["people"] = service.create_match(
            ruleset="yemeni",
            seats=4,
            bots=(1, 3),
            bot_kind="random",
            secret=secret_from_text_seed("verify/people"),
        ).match_id
        for seat in (0, 2):
            service.take_seat(
                ids["people"],
                seat,
                f"p{seat}",
                token_id=f"t{seat}",
                caused_by=f"seat:{seat}/token:t{seat}",
            )
        while (state := service.load(ids["people"])).status == "playing":
            seat = state.turn
            assert seat in (0, 2)
            card = EasyBot().choose(seat_view(state, seat))
            service.play_card(
                ids["people"],
                seat,
                card,
                expected_seq=state.events,
                caused_by=f"seat:{seat}/token:t{seat}",
                request_id=f"r{state.events}",
            )
    finally:
        service.close()
    return path, ids


@pytest.fixture
def db(recorded_store: tuple[Path, dict[str, str]], tmp_path: Path) -> Path:
    """A private copy of the recorded store, free to tamper with."""
    copy = tmp_path / "basra.db"
    shutil.copy(recorded_store[0], copy)
    return copy


@pytest.fixture
def ids(recorded_store: tuple[Path, dict[str, str]]) -> dict[str, str]:
    """The recorded matches' ids by kind."""
    return recorded_store[1]


def rows(db: Path, match_id: str) -> list[dict[str, Any]]:
    """The stored events of a match, as the JSON the store keeps, by seq from 1."""
    with sqlite3.connect(db) as connection:
        return json_rows(connection, match_id)


def rewrite(
    db: Path,
    match_id: str,
    seq: int,
    change: Callable[[dict[str, Any]], None],
    *,
    consistent: bool = True,
) -> None:
    """Change the stored event at ``seq`` in place, as someone with database access could;
    ``consistent`` also recomputes the chain after it (knowing the secret), so the rules, not
    the chain, are what catches it."""
    with sqlite3.connect(db) as connection:
        stored = json_row(connection, match_id, seq)
        change(stored["event"])
        write_json_row(connection, match_id, seq, stored)
    if consistent:
        rechain_sqlite(db, match_id)


def swap(db: Path, match_id: str, seq: int) -> None:
    """Put the stored events at ``seq`` and ``seq + 1`` in each other's place."""
    with sqlite3.connect(db) as connection:
        stream = stream_of(connection, match_id)
        found = connection.execute(
            "SELECT originator_version, topic, state FROM stored_events"
            " WHERE originator_id = ? AND originator_version IN (?, ?)",
            (stream, seq, seq + 1),
        ).fetchall()
        (_, topic_a, state_a), (_, topic_b, state_b) = sorted(found)
        for version, topic, state in ((seq, topic_b, state_b), (seq + 1, topic_a, state_a)):
            write_raw_row(connection, match_id, version, state, topic=topic)
    rechain_sqlite(db, match_id)


def first(db: Path, match_id: str, kind: str, **fields: Any) -> int:
    """The seq of the first stored event of type ``kind`` with these field values."""
    for seq, row in enumerate(rows(db, match_id), 1):
        event = row["event"]
        if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
            return seq
    raise LookupError(kind)


def diverges_at(db: Path, match_id: str, seq: int) -> str:
    """Run ``basra verify`` and check it fails at ``seq``; return its line."""
    result = run("verify", match_id, "--db", str(db))
    assert result.exit_code == 1, result.stdout
    assert result.stdout.startswith(f"{match_id}\tseq {seq}\t"), result.stdout
    return result.stdout


def bot_plays(db: Path, match_id: str) -> int:
    """How many plays the bot seats made in a stored match, read off its events."""
    created = rows(db, match_id)[0]["event"]
    return sum(
        1
        for row in rows(db, match_id)
        if row["event"]["type"] == "card_played" and row["event"]["seat"] in created["bots"]
    )


def test_matches_recorded_by_the_service_verify_clean(db: Path, ids: dict[str, str]) -> None:
    for match_id, kind in ((ids["bots"], "easy"), (ids["people"], "random")):
        result = run("verify", match_id, "--db", str(db))
        assert result.exit_code == 0, result.stdout
        played = bot_plays(db, match_id)
        assert result.stdout == (
            f"{match_id}\tok\t{len(rows(db, match_id))} events, deals checked against the seed,"
            f" chain checked, {played} bot plays re-derived from each bot's seat view"
            f" ({kind}: {played})\n"
        )


def test_verify_says_how_many_bot_plays_it_re_derived_in_json_and_for_all(
    db: Path, ids: dict[str, str]
) -> None:
    # given a match of two easy bots and one of people with two random bots
    easy, random = bot_plays(db, ids["bots"]), bot_plays(db, ids["people"])
    assert easy and random
    # when every match is verified as JSON
    result = run("verify", "--all", "--json", "--db", str(db))
    assert result.exit_code == 0, result.stdout
    found = {r["match_id"]: r for r in json.loads(result.stdout)}
    # then each says how many bot plays it re-derived, by kind, and none left unchecked
    assert found[ids["bots"]]["bot_plays"] == {
        "rederived": easy,
        "by_kind": {"easy": easy},
        "legal_only": {},
    }
    assert found[ids["people"]]["bot_plays"] == {
        "rederived": random,
        "by_kind": {"random": random},
        "legal_only": {},
    }
    # and the summary of --all adds them up
    plain = run("verify", "--all", "--db", str(db))
    assert (
        f"{easy + random} bot plays re-derived from each bot's seat view"
        f" (easy: {easy}, random: {random})"
    ) in plain.stderr


def test_verify_all_reports_every_match_with_a_summary(db: Path, ids: dict[str, str]) -> None:
    result = run("verify", "--all", "--db", str(db))
    assert result.exit_code == 0
    assert sorted(line.split("\t")[0] for line in result.stdout.splitlines()) == sorted(
        ids.values()
    )
    assert "verified 2 match(es)" in result.stderr and "2 clean, 0 diverging" in result.stderr


def test_an_altered_play_fails_at_its_seq(db: Path, ids: dict[str, str]) -> None:
    # given a person's capturing play whose haul is emptied in the database
    match_id = ids["people"]
    seq = next(
        s
        for s, row in enumerate(rows(db, match_id), 1)
        if row["event"]["type"] == "card_played"
        and row["event"]["captured"]
        and row["caused_by"].startswith("seat:")
    )
    rewrite(db, match_id, seq, lambda e: e.update(captured=[], groups=[], basra=0, sweep=False))
    # then verify names that seq and says what the rules take
    assert "the rules take" in diverges_at(db, match_id, seq)


def test_an_altered_bot_play_fails_at_its_seq(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["people"]
    seq, row = next(
        (s, r)
        for s, r in enumerate(rows(db, match_id), 1)
        if r["event"]["type"] == "card_played" and r["caused_by"] == "bot:1"
    )
    deal_seq = max(
        s for s, r in enumerate(rows(db, match_id)[:seq], 1) if r["event"]["type"] == "cards_dealt"
    )
    hand = rows(db, match_id)[deal_seq - 1]["event"]["hands"][1]
    other = next(c for c in hand if c != row["event"]["card"])
    rewrite(db, match_id, seq, lambda e: e.update(card=other))
    assert "random bot" in diverges_at(db, match_id, seq)


def test_an_altered_deal_fails_at_the_deal(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["bots"]
    seq = first(db, match_id, "cards_dealt", round=2, deal=3)

    def exchange(event: dict[str, Any]) -> None:
        hands = event["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]

    rewrite(db, match_id, seq, exchange)
    assert "the seed deals" in diverges_at(db, match_id, seq)


def test_an_altered_score_fails_at_the_score(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["bots"]
    seq = first(db, match_id, "round_scored", round=1)

    def cheat(event: dict[str, Any]) -> None:
        event["sides"][1]["basra"] += 10
        event["sides"][1]["total"] += 10
        event["totals"][1] += 10

    rewrite(db, match_id, seq, cheat)
    assert "side 1's Basra points" in diverges_at(db, match_id, seq)


def test_events_in_the_wrong_order_fail_at_the_first(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["bots"]
    seq = first(db, match_id, "card_played")
    swap(db, match_id, seq)
    assert "turn" in diverges_at(db, match_id, seq)


def test_a_changed_secret_fails_at_the_first_event(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["bots"]
    forged = secret_from_text_seed("forged").hex()
    rewrite(db, match_id, 1, lambda e: e.update(secret=forged))
    assert "commitment" in diverges_at(db, match_id, 1)


def test_a_row_that_cannot_be_read_is_reported_at_its_seq(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["bots"]
    with sqlite3.connect(db) as connection:
        write_raw_row(connection, match_id, 7, b"{not json")
    result = run("verify", "--all", "--db", str(db))
    assert result.exit_code == 1
    lines = dict(line.split("\t", 1) for line in result.stdout.splitlines())
    assert lines[match_id].startswith("seq 7\tcorrupt: ")
    assert lines[ids["people"]].startswith("ok")
    assert "1 clean, 1 diverging" in result.stderr


def test_json_reports_the_divergence(db: Path, ids: dict[str, str]) -> None:
    match_id = ids["bots"]
    seq = first(db, match_id, "round_scored", round=1)
    rewrite(db, match_id, seq, lambda e: e.update(carry=e["carry"] + 30))
    result = run("verify", "--all", "--json", "--db", str(db))
    assert result.exit_code == 1
    found = {r["match_id"]: r for r in json.loads(result.stdout)}
    assert found[match_id]["ok"] is False
    assert found[match_id]["divergence"]["seq"] == seq
    assert found[match_id]["divergence"]["kind"] == "score"
    assert found[ids["people"]]["ok"] is True


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        # neither an id nor --all, or both: the command line cannot be run (usage, exit 2)
        (["verify"], "give a MATCH_ID or --all", 2),
        (["verify", "x", "--all"], "give a MATCH_ID or --all", 2),
        (["verify", "no-such"], "no match 'no-such'", 1),
    ],
)
def test_usage_errors_are_one_line(db: Path, args: list[str], message: str, code: int) -> None:
    result = run(*args, "--db", str(db))
    assert result.exit_code == code
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1


def test_an_empty_store_verifies_clean(tmp_path: Path) -> None:
    MatchService.open(tmp_path / "empty.db").close()
    result = run("verify", "--all", "--db", str(tmp_path / "empty.db"))
    assert result.exit_code == 0 and result.stdout == ""
    assert "verified 0 match(es)" in result.stderr


def rewrite_trail(db: Path, match_id: str, seq: int, **fields: Any) -> None:
    """Change who caused, or when, the stored event at ``seq`` (its dispute trail), and
    recompute the chain after it."""
    with sqlite3.connect(db) as connection:
        stored = json_row(connection, match_id, seq)
        stored.update(fields)
        write_json_row(connection, match_id, seq, stored)
    rechain_sqlite(db, match_id)


def persons_play(db: Path, match_id: str, seat: int) -> int:
    """The seq of the first play a person made through their token."""
    return next(
        s
        for s, row in enumerate(rows(db, match_id), 1)
        if row["event"]["type"] == "card_played"
        and row.get("caused_by") == f"seat:{seat}/token:t{seat}"
    )


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"caused_by": "seat:2/token:t2"}, "a seat plays only its own cards"),
        ({"caused_by": "seat:0/token:stolen"}, "a token seat 0 never held"),
        ({"at": "2000-01-01T00:00:00.000000Z"}, "times never go backwards"),
    ],
)
def test_a_forged_dispute_trail_fails_at_its_seq(
    db: Path, ids: dict[str, str], fields: dict[str, str], reason: str
) -> None:
    # given seat 0's play credited to another seat, another token, or an earlier time
    match_id = ids["people"]
    seq = persons_play(db, match_id, 0)
    rewrite_trail(db, match_id, seq, **fields)
    # then verify names that seq as a fault of the trail
    line = diverges_at(db, match_id, seq)
    assert "\ttrail: " in line and reason in line


def test_replay_of_a_match_that_does_not_verify_shows_a_banner_from_the_bad_seq(
    db: Path, ids: dict[str, str]
) -> None:
    # given a person's capturing play whose haul is emptied in the database
    match_id = ids["people"]
    seq = next(
        s
        for s, row in enumerate(rows(db, match_id), 1)
        if row["event"]["type"] == "card_played"
        and row["event"]["captured"]
        and row.get("caused_by", "").startswith("seat:")
    )
    rewrite(db, match_id, seq, lambda e: e.update(captured=[], groups=[], basra=0, sweep=False))
    last = len(rows(db, match_id))
    # when frames before it, at it and after it are printed
    before = run("replay", match_id, "--step", str(seq - 1), "--db", str(db))
    at = run("replay", match_id, "--step", str(seq), "--db", str(db))
    after = run("replay", match_id, "--step", str(last), "--db", str(db))
    # then the frames from it on open with the banner naming the seq and why; earlier ones do not
    assert before.exit_code == 0 and "does not verify" not in before.stdout
    for shown in (at, after):
        assert shown.exit_code == 0, shown.stderr
        assert shown.stdout.startswith(f"!! this match does not verify: seq {seq} ")
        assert "the rules take" in " ".join(shown.stdout.split())
    # and the JSON form carries the divergence
    data = json.loads(run("replay", match_id, "--json", "--db", str(db)).stdout)
    assert (data["divergence"]["seq"], data["divergence"]["kind"]) == (seq, "play")
    # and the interactive replay shows it on every frame after it, not before
    keyed = CliRunner().invoke(
        app, ["replay", match_id, "--db", str(db)], input="g" + str(seq) + "\nn$q", env=ISOLATED
    )
    frames = keyed.stdout.split("keys: n/p event")[:-1]  # the key line ends every frame
    banners = [f for f in frames if "does not verify" in f]
    calm = [f for f in frames if "does not verify" not in f]
    assert keyed.exit_code == 0 and len(banners) == 3  # at seq, one on, the last
    assert calm and all(f"seq 1 of {last}" in f for f in calm)


def test_a_seat_reads_the_banner_without_the_reason(db: Path, ids: dict[str, str]) -> None:
    # given the people's match cut short in the store (its last events removed), so it has not
    # ended, with a changed play before the cut
    match_id = ids["people"]
    seq = persons_play(db, match_id, 2)
    rewrite(db, match_id, seq, lambda e: e.update(basra=30))
    with sqlite3.connect(db) as connection:
        connection.execute(
            "DELETE FROM stored_events WHERE originator_id = ? AND originator_version > ?",
            (stream_of(connection, match_id), seq + 1),
        )
    # when seat 0 steps to it
    shown = run("replay", match_id, "--step", str(seq), "--as", "0", "--db", str(db))
    # then the banner names the seq and the kind but not the reason, which may name cards
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout.startswith(f"!! this match does not verify: seq {seq} ")
    assert "(play)" in shown.stdout and "shown to support" in " ".join(shown.stdout.split())
    assert "Basra of 30" not in " ".join(shown.stdout.split())


def edit_row(db: Path, match_id: str, seq: int, top: dict[str, Any], event: dict[str, Any]) -> None:
    """Change stored fields of the event at ``seq`` (its trail ``top``, its ``event`` fields)
    and leave every chain link as it was."""
    with sqlite3.connect(db) as connection:
        stored = json_row(connection, match_id, seq)
        stored.update(top)
        stored["event"].update(event)
        write_json_row(connection, match_id, seq, stored)


@pytest.mark.parametrize(
    ("kind", "top", "event"),
    [
        ("card_played", {"at": "2026-11-29T23:59:59.000000Z"}, {}),
        ("card_played", {"caused_by": "seat:2/token:t2"}, {}),
        ("card_played", {"request_id": "r-forged"}, {}),
        ("seat_taken", {}, {"name": "mallory"}),
        ("seat_taken", {}, {"token_id": "t9"}),
        ("cards_dealt", {}, {"deal": 9}),
        ("round_scored", {}, {"carry": 7}),
        ("match_ended", {}, {"reason": "forfeit"}),
    ],
)
def test_any_stored_field_changed_breaks_the_chain_at_its_seq_before_the_rules(
    db: Path, ids: dict[str, str], kind: str, top: dict[str, Any], event: dict[str, Any]
) -> None:
    # given one stored field of one event changed in the database, the chain left as it was
    match_id = ids["people"]
    seq = first(db, match_id, kind)
    edit_row(db, match_id, seq, top, event)
    # then verify names that seq as a break of the chain, before it looks at the rules
    line = diverges_at(db, match_id, seq)
    assert "\tchain: " in line
