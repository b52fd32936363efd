"""The quick start answers the read commands exactly as typer does, and without loading typer.

cli.quick reads the everyday forms of ``replay``, ``export``, ``verify`` and ``matches`` itself;
every command line here is run both ways (cli.quick.answer, and the typer app) and must give
the same stdout, stderr and exit status; a line it does not answer it must leave untouched.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from cli.main import app
from cli.quick import FORMS, answer

ISOLATED = {"BASRA_DATABASE_URL": "", "POSTGRES_DBNAME": "", "BASRA_READMODELS": ""}
SIM = ["--ruleset", "yemeni", "--seats", "2", "--seed"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store with two seeded bot matches, its read models up to date; the first match's id."""
    db = tmp_path_factory.mktemp("quick") / "basra.db"
    args = ["simulate", "--ruleset", "classic", "--seats", "2", "--seed", "quick", "--matches", "2"]
    args += ["--db", str(db)]
    result = CliRunner().invoke(app, args, env=ISOLATED)
    assert result.exit_code == 0, result.stderr
    assert CliRunner().invoke(app, ["matches", "--db", str(db)], env=ISOLATED).exit_code == 0
    return db, result.stdout.split()[0]


def quick(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int | None, bytes, bytes]:
    """(exit status or None, stdout, stderr) of cli.quick.answer."""
    for name, value in ISOLATED.items():
        monkeypatch.setenv(name, value)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = answer(args)
    out.flush()
    err.flush()
    monkeypatch.undo()
    return code, out.buffer.getvalue(), err.buffer.getvalue()  # type: ignore[attr-defined]


def full(args: list[str]) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of the typer app."""
    result = CliRunner().invoke(app, args, env=ISOLATED)
    return result.exit_code, result.stdout_bytes, result.stderr_bytes


ANSWERED = [
    ["replay", "{id}", "--step", "1"],
    ["replay", "{id}", "--step", "40", "--db", "{db}"],
    ["replay", "--db={db}", "{id}", "--step=7", "--as", "1"],
    ["replay", "{id}", "--json", "--as", "0", "--db", "{db}"],
    ["replay", "{id}", "--step", "3", "--support", "--json", "--db", "{db}"],
    ["replay", "{id}", "--step", "99999", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--as", "5", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--as", "0", "--support", "--db", "{db}"],
    ["replay", "no-such", "--step", "2", "--db", "{db}"],
    ["replay", "", "--step", "2", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--db", "{missing}"],
    ["replay", "{id}", "--step", "2", "--db", "{notdb}"],
    ["export", "{id}", "--db", "{db}"],
    ["export", "{id}", "--as", "1", "--db", "{db}"],
    ["export", "{id}", "--as", "3", "--db", "{db}"],
    ["export", "{id}", "--output", "{out}", "--db", "{db}"],
    ["export", "no-such", "--db", "{db}"],
    ["verify", "{id}", "--db", "{db}"],
    ["verify", "{id}", "--json", "--db", "{db}"],
    ["verify", "no-such", "--db", "{db}"],
    ["verify", "{id}", "--db", "{missing}"],
    ["matches", "--db", "{db}"],
    ["matches", "--db", "{db}", "--json", "--limit", "1"],
    ["matches", "--status", "ended", "--db", "{db}"],
    ["matches", "--status", "waiting", "--db", "{db}"],
    ["matches", "--status", "bogus", "--db", "{db}"],
    ["matches", "--db", "{missing}"],
]
"""Command lines cli.quick answers itself, errors included."""

DEFERRED = [
    ["replay", "{id}", "--db", "{db}"],
    ["replay", "{id}", "--log", "--db", "{db}"],
    ["replay", "{id}", "--step", "0", "--db", "{db}"],
    ["replay", "{id}", "--step", "x", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--step", "3", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--as", "-1", "--db", "{db}"],
    ["replay", "{id}", "--step", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--json=1", "--db", "{db}"],
    ["replay", "{id}", "--step", "2", "--help"],
    ["replay", "--step", "2", "--db", "{db}"],
    ["replay", "{id}", "extra", "--step", "2", "--db", "{db}"],
    ["replay", "--", "{id}", "--step", "2", "--db", "{db}"],
    ["export", "--db", "{db}"],
    ["export", "{id}", "--json", "--db", "{db}"],
    ["verify", "--all", "--db", "{db}"],
    ["verify", "{id}", "--all", "--db", "{db}"],
    ["matches", "--limit", "0", "--db", "{db}"],
    ["matches", "--bogus", "--db", "{db}"],
    ["matches", "--db", ""],
    ["--help"],
    [],
    ["simulate", "--db", "{db}"],
]
"""Command lines left to typer: help, usage errors and forms cli.quick does not read."""


def _filled(args: list[str], store: tuple[Path, str], tmp_path: Path) -> list[str]:
    db, match_id = store
    notdb = tmp_path / "notes.db"
    notdb.write_text("not a database\n" * 200)
    names = {
        "{id}": match_id,
        "{db}": str(db),
        "{missing}": str(tmp_path / "typo.db"),
        "{notdb}": str(notdb),
        "{out}": str(tmp_path / "out.jsonl"),
    }
    return [names.get(a, a.replace("{db}", str(db))) for a in args]


@pytest.mark.parametrize("args", ANSWERED, ids=" ".join)
def test_quick_prints_what_typer_prints(
    args: list[str], store: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a command line of the everyday forms
    argv = _filled(args, store, tmp_path)
    # when it is run by typer and by the quick start
    expected = full(argv)
    typer_file = (tmp_path / "out.jsonl").read_bytes() if "--output" in argv else None
    got = quick(argv, monkeypatch)
    # then both print the same bytes on both streams and exit the same
    assert got == expected
    if typer_file is not None:
        assert (tmp_path / "out.jsonl").read_bytes() == typer_file


@pytest.mark.parametrize("args", DEFERRED, ids=" ".join)
def test_quick_leaves_every_other_line_to_typer(
    args: list[str], store: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert quick(_filled(args, store, tmp_path), monkeypatch) == (None, b"", b"")


def test_matches_with_entries_to_fold_is_left_to_typer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a store whose read models have not followed its last simulation
    db = str(tmp_path / "basra.db")
    assert full(["simulate", *SIM, "a", "--db", db])[0] == 0
    assert full(["matches", "--db", db])[0] == 0
    assert full(["simulate", *SIM, "b", "--db", db])[0] == 0
    # then the quick start declines, and answers once typer has folded them
    assert quick(["matches", "--db", db], monkeypatch) == (None, b"", b"")
    expected = full(["matches", "--db", db])
    assert quick(["matches", "--db", db], monkeypatch) == expected


def test_the_forms_are_the_typer_commands_parameters() -> None:
    # every option and flag cli.quick reads is one of the typer command's, under the same
    # parameter name and of the same kind (flag or value), and the arguments are the same
    group = get_command(app)
    for name, form in FORMS.items():
        command = group.commands[name]  # type: ignore[attr-defined]
        by_option = {opt: p for p in command.params for opt in p.opts}
        for option, (dest, _kind) in form.options.items():
            assert by_option[option].name == dest and not by_option[option].is_flag
        for flag, dest in form.flags.items():
            assert by_option[flag].name == dest and by_option[flag].is_flag
        arguments = [p.name for p in command.params if p.param_type_name == "argument"]
        assert tuple(arguments) == form.arguments


HEAVY = (
    "typer",
    "click",
    "pydantic",
    "eventsourcing",
    "litestar",
    "sqlite_utils",
    "rich",
    "typing_extensions",
)
"""Libraries the read commands must not load on a SQLite store (docs/performance.md)."""

PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: print(' '.join(sorted({m.split('.')[0] for m in sys.modules})),"
    " file=sys.stderr))\n"
    "sys.argv = ['basra', *sys.argv[1:]]\n"
    "from cli.main import main\n"
    "main()\n"
)


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "{id}", "--step", "40"],
        ["export", "{id}"],
        ["verify", "{id}"],
        ["matches"],
    ],
    ids=" ".join,
)
def test_a_read_command_loads_none_of_the_heavy_libraries(
    args: list[str], store: tuple[Path, str], tmp_path: Path
) -> None:
    # when a read command runs in a fresh interpreter, as `basra` runs it
    argv = [*_filled(args, store, tmp_path), "--db", str(store[0])]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[2])},
        check=False,
    )
    # then it answered, and none of typer, pydantic, eventsourcing, litestar, sqlite-utils or
    # typing_extensions (which msgspec would load) was imported
    assert done.returncode == 0, done.stderr
    loaded = set(done.stderr.split("\n")[-2].split())
    assert "cli" in loaded and "msgspec" in loaded
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


def test_a_declined_matches_runs_typer_in_the_same_process(tmp_path: Path) -> None:
    # given a store whose read models have entries to fold, so the quick start reads the
    # command line, loads msgspec without typing_extensions, then leaves it to typer
    db = str(tmp_path / "basra.db")
    assert full(["simulate", *SIM, "a", "--db", db])[0] == 0
    assert full(["matches", "--db", db])[0] == 0
    assert full(["simulate", *SIM, "b", "--db", db])[0] == 0
    # when `basra matches` runs as a fresh process
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "matches", "--db", db],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[2])},
        check=False,
    )
    # then typer (which imports typing_extensions itself) answered as it does in process
    assert done.returncode == 0, done.stderr
    assert "typing_extensions" in done.stderr.split("\n")[-2].split()
    code, out, _ = full(["matches", "--db", db])
    assert code == 0
    assert done.stdout.encode() == out
