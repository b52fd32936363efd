"""tools/basra_check.py, the standalone checker: it agrees with ``basra import`` and
``basra verify`` on every golden file, on tampered copies and on receipts."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from app.service import MatchService
from cli.main import app
from domain.fairness import secret_from_text_seed
from domain.views import seat_view
from tests.replays.streams import GOLDEN, GOLDEN_NAMES

CHECKER = Path(__file__).parent.parent.parent / "tools" / "basra_check.py"
ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("basra_check", CHECKER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = _module()


def basra(*args: str) -> Result:
    """``basra ARGS`` through typer's CliRunner."""
    return CliRunner().invoke(app, list(args), env=ISOLATED)


def checker(*args: str) -> tuple[int, dict[str, Any]]:
    """The script run alone (-I: isolated, so nothing of the project can be imported)."""
    done = subprocess.run(
        [sys.executable, "-I", str(CHECKER), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_bytes().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


def _rechained(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The file's links recomputed after an edit, as an operator with the secret could."""
    secret = bytes.fromhex(lines[0]["seed"])
    previous = CHECK.START
    for line in lines[1:]:
        previous = CHECK.link(previous, secret, line["seq"], line)
        line["chain"] = previous.hex()
    return lines


def test_the_checker_imports_only_the_standard_library() -> None:
    tree = ast.parse(CHECKER.read_text(encoding="utf-8"))
    names = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    names |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert names <= set(sys.stdlib_module_names) | {"__future__"}


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_every_golden_file_checks_and_verifies(name: str, tmp_path: Path) -> None:
    # given a golden file, when the checker reads it and the project imports and verifies it
    code, result = checker(str(GOLDEN / f"{name}.jsonl"))
    db = str(tmp_path / "basra.db")
    imported = basra("import", str(GOLDEN / f"{name}.jsonl"), "--id", name, "--db", db)
    verified = basra("verify", name, "--db", db, "--json")
    # then both say it is clean, the chain checked by both
    assert code == 0 and result["ok"] and result["chained"], result
    assert imported.exit_code == 0, imported.stderr
    assert verified.exit_code == 0 and json.loads(verified.stdout)[0]["chain"] == "chained"


TAMPERS = [
    ("at", lambda line: line.update(at="2026-11-29T20:00:59.000000Z"), "card_played"),
    ("a seat's name", lambda line: line.update(name="mallory"), "seat_taken"),
    ("who caused it", lambda line: line.update(sealed="0" * 64), "card_played"),
    (
        "a card",
        lambda line: line.update(card=line["captured"][0] if line["captured"] else "KS"),
        "card_played",
    ),
    ("a hand", lambda line: line["hands"][0].reverse(), "cards_dealt"),
    ("a score", lambda line: line["totals"].reverse(), "round_scored"),
]


@pytest.mark.parametrize(("what", "change", "kind"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_a_tampered_copy_fails_at_the_same_seq_in_both(
    what: str, change: Any, kind: str, tmp_path: Path
) -> None:
    # given golden-classic-4 with one stored field of one event changed
    lines = _lines("golden-classic-4")
    index = next(i for i, line in enumerate(lines) if line.get("type") == kind and i > 2)
    change(lines[index])
    forged = _write(tmp_path / "forged.jsonl", lines)
    # when the checker and basra import read it
    code, result = checker(str(forged))
    imported = basra("import", str(forged), "--db", str(tmp_path / "basra.db"))
    # then both name that seq, as a break of the chain
    seq = lines[index]["seq"]
    assert code == 1 and (result["seq"], result["kind"]) == (seq, "chain"), result
    assert imported.exit_code == 1
    assert imported.stderr.startswith(f"error: line {seq + 1}: seq {seq}: the chain breaks"), what


def test_a_deal_rewritten_with_the_chain_recomputed_fails_at_the_deal_in_both(
    tmp_path: Path,
) -> None:
    # given a golden file whose second deal is swapped between seats, and every link recomputed
    lines = _lines("golden-egyptian-2")
    index = [i for i, line in enumerate(lines) if line.get("type") == "cards_dealt"][1]
    hands = lines[index]["hands"]
    hands[0], hands[1] = hands[1], hands[0]
    forged = _write(tmp_path / "forged.jsonl", _rechained(lines))
    # when both read it
    code, result = checker(str(forged))
    imported = basra("import", str(forged), "--db", str(tmp_path / "basra.db"))
    # then the chain holds, and both refuse the deal at its seq
    seq = lines[index]["seq"]
    assert code == 1 and (result["seq"], result["kind"]) == (seq, "deal"), result
    assert imported.exit_code == 1 and f"seq {seq}: deal" in imported.stderr, imported.stderr


def test_a_changed_secret_fails_the_commitment(tmp_path: Path) -> None:
    lines = _lines("golden-yemeni-2")
    forged_seed = "ab" * 32
    lines[0]["seed"] = forged_seed
    lines[1]["secret"] = forged_seed
    lines[-1]["seed"] = forged_seed
    code, result = checker(str(_write(tmp_path / "forged.jsonl", _rechained(lines))))
    assert code == 1 and (result["seq"], result["kind"]) == (1, "commitment"), result


def test_receipts_agree_with_basra_verify(tmp_path: Path) -> None:
    # given a golden file imported, and receipts a client kept for some of its events
    name = "golden-lebanese-2"
    lines = _lines(name)
    kept = [{"seq": line["seq"], "chain": line["chain"]} for line in lines[1::9]]
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in kept))
    bad_receipt = {**kept[3], "chain": "cd" * 32}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in [*kept[:3], bad_receipt]))
    db = str(tmp_path / "basra.db")
    assert basra("import", str(GOLDEN / f"{name}.jsonl"), "--id", name, "--db", db).exit_code == 0
    # when the checker and basra verify check them
    code_good, result_good = checker(str(GOLDEN / f"{name}.jsonl"), "--receipts", str(good))
    code_bad, result_bad = checker(str(GOLDEN / f"{name}.jsonl"), "--receipts", str(bad))
    verify_good = basra("verify", name, "--receipts", str(good), "--db", db)
    verify_bad = basra("verify", name, "--receipts", str(bad), "--db", db)
    # then both find the good ones on the chain and name the same bad one
    assert code_good == 0 and result_good["receipts"] == len(kept)
    assert verify_good.exit_code == 0, verify_good.stdout
    assert f"{len(kept)} receipt(s) found" in verify_good.stdout
    assert code_bad == 1 and (result_bad["seq"], result_bad["kind"]) == (
        bad_receipt["seq"],
        "receipt",
    )
    assert verify_bad.exit_code == 1
    assert verify_bad.stdout.startswith(f"{name}\tseq {bad_receipt['seq']}\treceipt: ")


def test_receipts_of_another_match_or_malformed_are_refused(tmp_path: Path) -> None:
    name = "golden-classic-2"
    db = str(tmp_path / "basra.db")
    assert basra("import", str(GOLDEN / f"{name}.jsonl"), "--id", name, "--db", db).exit_code == 0
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"match_id": "m-else", "seq": 1, "chain": "ab" * 32}) + "\n")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"seq": 1, "chain": "ab"\n')
    for path, reason in ((other, "is for match 'm-else'"), (broken, "not valid JSON")):
        result = basra("verify", name, "--receipts", str(path), "--db", db)
        assert result.exit_code == 1
        assert result.stderr.startswith("error: receipt line 1: ") and reason in result.stderr


def test_a_file_without_a_chain_imports_as_unchained(tmp_path: Path) -> None:
    # given a golden file with every chain and sealed field taken out (as an older export)
    lines = [
        {k: v for k, v in line.items() if k not in ("chain", "sealed")}
        for line in _lines("golden-jordanian-4")
    ]
    plain = _write(tmp_path / "plain.jsonl", lines)
    db = str(tmp_path / "basra.db")
    # when it is imported and verified, and checked alone
    imported = basra("import", str(plain), "--id", "plain", "--db", db)
    verified = basra("verify", "plain", "--db", db)
    code, result = checker(str(plain))
    # then it is stored and verifies, said to have no chain, and the checker agrees
    assert imported.exit_code == 0, imported.stderr
    assert verified.exit_code == 0 and "no chain" in verified.stdout, verified.stdout
    assert code == 0 and result["chained"] is False


def test_a_file_chained_on_some_lines_only_is_refused(tmp_path: Path) -> None:
    lines = _lines("golden-classic-2")
    del lines[6]["chain"]
    forged = _write(tmp_path / "partial.jsonl", lines)
    imported = basra("import", str(forged), "--db", str(tmp_path / "basra.db"))
    code, result = checker(str(forged))
    assert imported.exit_code == 1 and "line 7: seq 6: the chain breaks" in imported.stderr
    assert code == 1 and (result["seq"], result["kind"]) == (6, "chain")


def test_a_support_export_before_the_end_keeps_its_chain_unchecked(tmp_path: Path) -> None:
    # given a match between two people still being played, exported for support (no seed)
    source = tmp_path / "source.db"
    service = MatchService.open(source)
    try:
        service.create_match(
            ruleset="classic", seats=2, secret=secret_from_text_seed("mid"), match_id="m-mid"
        )
        for seat in (0, 1):
            service.take_seat("m-mid", seat, f"p{seat}", caused_by=f"seat:{seat}/token:t{seat}")
        for _ in range(3):
            state = service.load("m-mid")
            assert state.turn is not None
            card = seat_view(state, state.turn).hand[0]
            service.play_card("m-mid", state.turn, card, caused_by=f"seat:{state.turn}/token:t")
    finally:
        service.close()
    exported = basra("export", "m-mid", "--db", str(source))
    assert exported.exit_code == 0
    file = tmp_path / "mid.jsonl"
    file.write_text(exported.stdout)
    # when it is imported and verified, and given to the checker
    db = str(tmp_path / "copy.db")
    imported = basra("import", str(file), "--id", "m-copy", "--db", db)
    verified = basra("verify", "m-copy", "--db", db)
    code, result = checker(str(file))
    # then it is kept, its links as the file had them, said to be unchecked (no secret yet)
    assert imported.exit_code == 0, imported.stderr
    assert verified.exit_code == 0 and "chain unchecked" in verified.stdout, verified.stdout
    assert '"chain":' in file.read_text().splitlines()[1]
    assert code == 1 and result["kind"] == "file" and "not revealed" in result["why"]
