"""``basra import``: golden files import, verify and render the same; bad files store nothing."""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner, Result

from app.config import parse_database_url
from app.service import MatchService
from cli.main import app

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
NAMES = [
    f"golden-{r}-{s}"
    for r in ("classic", "egyptian", "lebanese", "yemeni", "jordanian")
    for s in (2, 4)
]
ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    """``basra ARGS`` through typer's CliRunner, with stdout and stderr apart."""
    return CliRunner().invoke(app, list(args), env={**ISOLATED, **(env or {})})


def golden_frames(name: str) -> list[tuple[int, list[str], str]]:
    """(seq, viewer options, frame) of each frame kept beside a golden file."""
    text = (GOLDEN / f"{name}.frames.txt").read_text(encoding="utf-8")
    parts = re.split(r"^=== seq (\d+) as (support|seat \d)\n", text, flags=re.MULTILINE)
    out = []
    for i in range(1, len(parts), 3):
        viewer = parts[i + 1]
        options = ["--support"] if viewer == "support" else ["--as", viewer.split()[1]]
        out.append((int(parts[i]), options, parts[i + 2]))
    return out


def stored_ids(db: Path) -> list[str]:
    """The match ids in the store."""
    service = MatchService.open(db)
    try:
        return service.match_ids()
    finally:
        service.close()


@pytest.mark.parametrize("name", NAMES)
def test_a_golden_file_imports_verifies_and_renders_as_recorded(name: str, tmp_path: Path) -> None:
    db = str(tmp_path / "basra.db")
    # given a golden file imported under its own id
    imported = run("import", str(GOLDEN / f"{name}.jsonl"), "--id", name, "--db", db)
    assert imported.exit_code == 0, imported.stderr
    assert imported.stdout == f"{name}\n"
    # when it is verified, then it is clean
    verified = run("verify", name, "--db", db)
    assert verified.exit_code == 0, verified.stdout
    assert verified.stdout.startswith(f"{name}\tok\t")
    # and every kept frame renders as it did when the file was made
    for seq, viewer, frame in golden_frames(name):
        shown = run("replay", name, "--step", str(seq), *viewer, "--db", db)
        assert shown.stdout == frame, (seq, viewer)
    # and the export is the golden file, byte for byte
    exported = run("export", name, "--db", db)
    assert exported.stdout_bytes == (GOLDEN / f"{name}.jsonl").read_bytes()


def test_export_import_export_changes_only_the_id(tmp_path: Path) -> None:
    # given a match recorded by the service and exported
    db = str(tmp_path / "basra.db")
    simulated = run(
        "simulate",
        "--ruleset",
        "lebanese",
        "--seats",
        "4",
        "--seed",
        "round-trip",
        "--bots",
        "random",
        "--db",
        db,
    )
    assert simulated.exit_code == 0, simulated.stderr
    first_id = simulated.stdout.strip()
    first = tmp_path / "first.jsonl"
    assert run("export", first_id, "--output", str(first), "--db", db).exit_code == 0
    # when it is imported (a fresh id) and exported again
    imported = run("import", str(first), "--db", db)
    assert imported.exit_code == 0, imported.stderr
    new_id = imported.stdout.strip()
    assert new_id != first_id and imported.stdout == f"{new_id}\n"
    second = run("export", new_id, "--db", db).stdout_bytes
    # then every event line is the same but match_created; the header differs only in the id
    a, b = first.read_bytes().splitlines(), second.splitlines()
    assert len(a) == len(b) and a[2:] == b[2:]
    for old, new in zip(a[:2], b[:2], strict=True):
        old_fields, new_fields = json.loads(old), json.loads(new)
        assert (new_fields["match_id"], new_fields["origin"]) == (new_id, first_id)
        new_fields.update(match_id=first_id, origin=None)
        assert new_fields == old_fields
    # and the imported match verifies against its origin's commitment
    assert run("verify", new_id, "--db", db).exit_code == 0


def test_import_json_names_the_new_id_the_origin_and_the_events(tmp_path: Path) -> None:
    # given a golden file
    db = str(tmp_path / "basra.db")
    name = "golden-yemeni-4"
    lines = (GOLDEN / f"{name}.jsonl").read_bytes().splitlines()
    # when it is imported with --json
    imported = run("import", str(GOLDEN / f"{name}.jsonl"), "--json", "--db", db)
    assert imported.exit_code == 0, imported.stderr
    # then stdout is one JSON object: the stored id, the id it was first created as, the events
    fields = json.loads(imported.stdout)
    assert stored_ids(tmp_path / "basra.db") == [fields["match_id"]]
    assert fields["first_created_as"] == json.loads(lines[0])["match_id"]
    assert fields["events"] == len(lines) - 1


def test_a_malformed_file_is_refused_with_its_line_and_nothing_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "basra.db"
    lines = (GOLDEN / "golden-classic-2.jsonl").read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join([*lines[:9], b'{"seq": 9, "type": "card_played",\n', *lines[10:]]))
    result = run("import", str(bad), "--db", str(db))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: line 10: ") and result.stderr.count("\n") == 1
    assert result.stdout == ""
    assert stored_ids(db) == []


def test_a_file_that_breaks_the_rules_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    # given a golden file with one round's score raised by 10 for side 0
    db = tmp_path / "basra.db"
    lines = golden_lines("golden-jordanian-2")
    index = next(i for i, line in enumerate(lines) if line.get("type") == "round_scored")
    lines[index]["totals"][0] += 10  # type: ignore[index]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(line) + "\n" for line in lines))
    # when it is imported
    result = run("import", str(bad), "--db", str(db))
    # then it is refused at that line, with the seq and the rule, and the store stays empty
    assert result.exit_code == 1
    seq = lines[index]["seq"]
    assert result.stderr.startswith(f"error: line {index + 1}: seq {seq}: round ")
    assert "match totals" in result.stderr and "R21" in result.stderr
    assert stored_ids(db) == []


def test_an_id_already_in_the_store_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "basra.db")
    path = str(GOLDEN / "golden-yemeni-2.jsonl")
    assert run("import", path, "--id", "taken", "--db", db).exit_code == 0
    again = run("import", path, "--id", "taken", "--db", db)
    assert again.exit_code == 1 and "already exists" in again.stderr
    assert run("import", path, "--db", db).exit_code == 0
    assert len(stored_ids(tmp_path / "basra.db")) == 2


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    result = run("import", str(tmp_path / "nope.jsonl"), "--db", str(tmp_path / "basra.db"))
    assert result.exit_code == 1 and result.stderr.startswith("error: ")
    assert "Traceback" not in result.output


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh schema on the test PostgreSQL server (BASRA_TEST_POSTGRES), dropped afterwards."""
    dsn = os.environ.get("BASRA_TEST_POSTGRES")
    if not dsn:
        pytest.skip("BASRA_TEST_POSTGRES is not set")
    from app.store.postgres import drop_schema

    settings = msgspec.structs.replace(
        parse_database_url(dsn), schema=f"basra_replay_{uuid.uuid4().hex[:12]}"
    )
    auth = settings.user + (f":{settings.password}" if settings.password else "")
    yield (
        f"postgresql://{auth}@{settings.host}:{settings.port}/{settings.dbname}"
        f"?schema={settings.schema}"
    )
    drop_schema(settings)


@pytest.mark.postgres
def test_import_verify_and_replay_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    env: dict[str, str | None] = {"BASRA_DATABASE_URL": postgres_url}
    name = "golden-egyptian-4"
    imported = run("import", str(GOLDEN / f"{name}.jsonl"), "--id", name, env=env)
    assert imported.exit_code == 0, imported.stderr
    verified = run("verify", "--all", env=env)
    assert verified.exit_code == 0 and verified.stdout.startswith(f"{name}\tok")
    seq, viewer, frame = golden_frames(name)[2]
    assert run("replay", name, "--step", str(seq), *viewer, env=env).stdout == frame


def stored_streams(db: Path) -> dict[str, list[tuple[int, str, str | None]]]:
    """Every stored match's events as (seq, at, cause): a refused import must change none."""
    service = MatchService.open(db)
    try:
        return {
            match_id: [(r.seq, r.at, r.caused_by) for r in service.events(match_id)]
            for match_id in service.match_ids()
        }
    finally:
        service.close()


def golden_lines(name: str) -> list[dict[str, object]]:
    """A golden file's lines as JSON objects, without the chain: the rules, not the chain,
    judge the edits these tests make."""
    lines = [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_bytes().splitlines()]
    return [{k: v for k, v in line.items() if k not in ("chain", "sealed")} for line in lines]


@pytest.mark.parametrize(
    ("cut", "reason"),
    [
        ({"seq": 9, "caused_by": "seat:2/token:tok-bashir"}, "a seat plays only its own cards"),
        ({"seq": 9, "caused_by": "seat:0/token:tok-forged"}, "never held"),
        ({"seq": 9, "at": "2026-11-29T20:00:00.000000Z"}, "times never go backwards"),
        ({"stop": 40}, "reveals the match secret"),
    ],
)
def test_a_forged_or_cut_short_file_is_refused_and_the_store_is_unchanged(
    tmp_path: Path, cut: dict[str, object], reason: str
) -> None:
    # given a store that already holds a match
    db = tmp_path / "basra.db"
    assert run("import", str(GOLDEN / "golden-yemeni-2.jsonl"), "--db", str(db)).exit_code == 0
    before = stored_streams(db)
    # and a file whose trail was forged at one event, or that stops before its end
    lines = golden_lines("golden-classic-4")
    if "stop" in cut:
        stop = int(str(cut["stop"]))
        while lines[stop]["type"] != "card_played" or lines[stop + 1]["type"] != "card_played":
            stop += 1
        lines = lines[: stop + 1]
        line = stop + 1
    else:
        seq = int(str(cut.pop("seq")))
        lines[seq].update(cut)
        line = seq + 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(one) + "\n" for one in lines))
    # when it is imported
    result = run("import", str(bad), "--db", str(db))
    # then it is refused in one line naming the line and the reason
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: line {line}: ") and result.stderr.count("\n") == 1
    assert reason in result.stderr
    # and the store holds exactly what it held before
    assert stored_streams(db) == before


def test_a_file_with_only_the_required_lines_imports_and_verifies(tmp_path: Path) -> None:
    # given golden-classic-2 as another system might write it: no match_created or seat_taken
    # lines, no players, client seeds or commitment, no seed, only the required fields
    db = tmp_path / "basra.db"
    lines = golden_lines("golden-classic-2")
    header = {k: lines[0][k] for k in ("format", "version", "match_id", "ruleset", "seats")}
    header.update(target=lines[0]["target"], seed=None)
    events = [e for e in lines[1:] if e["type"] not in ("match_created", "seat_taken")]
    kept: list[dict[str, object]] = [header]
    for seq, event in enumerate(events, 1):
        drop = ("caused_by", "request_id", "seed", "groups", "sweep", "auto")
        kept.append({**{k: v for k, v in event.items() if k not in drop}, "seq": seq})
    path = tmp_path / "foreign.jsonl"
    path.write_text("".join(json.dumps(one) + "\n" for one in kept))
    # when it is imported with --json
    imported = run("import", str(path), "--json", "--db", str(db))
    # then it is stored, with what was added from the header said and recorded
    assert imported.exit_code == 0, imported.stderr
    fields = json.loads(imported.stdout)
    assert fields["added"] == ["match_created", "seat_taken", "seat_taken"]
    assert fields["first_created_as"] == "golden-classic-2"
    assert fields["events"] == len(events) + 3
    assert "added from the header" in imported.stderr
    stored = stored_streams(db)[fields["match_id"]]
    assert [cause for _, _, cause in stored[:3]] == ["import:synthesised"] * 3
    assert {cause for _, _, cause in stored[3:]} == {"import"}
    # and it verifies, with its deals taken as recorded
    verified = run("verify", fields["match_id"], "--db", str(db))
    assert verified.exit_code == 0, verified.stdout
    assert "deals as recorded" in verified.stdout
