"""``basra backup`` and ``basra restore``: a SQLite store copied while a real server plays."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from app.service import MatchService
from cli.cmd_backup import companions
from cli.main import app
from tests.app.api.helpers import bearer, wait_until
from tests.e2e.test_serve import serve_process

runner = CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run a ``basra`` command in this process; (exit code, stdout, stderr)."""
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def basra(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``basra`` as its own process (as an operator would, beside the server)."""
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


class Players:
    """Threads playing practice matches against a server; the plays it acknowledged."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.stop = threading.Event()
        self.acked: list[tuple[str, int]] = []  # (match id, seq after the play)
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._play, args=(n,)) for n in range(2)]

    def __enter__(self) -> Players:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)

    def count(self) -> int:
        with self.lock:
            return len(self.acked)

    def _play(self, number: int) -> None:
        with httpx.Client(timeout=60) as http:
            round_ = 0
            while not self.stop.is_set():
                round_ += 1
                body = {
                    "ruleset": "classic",
                    "seats": 2,
                    "bots": [1],
                    "seed": f"b{number}-{round_}",
                }
                match_id = http.post(f"{self.url}/matches", json=body).json()["match_id"]
                seat = http.post(f"{self.url}/matches/{match_id}/seats/0", json={"name": "Amal"})
                token = seat.json()["token"]
                view = http.get(f"{self.url}/matches/{match_id}/view", headers=bearer(token))
                while not self.stop.is_set() and view.json()["status"] == "playing":
                    card = view.json()["hand"][0]
                    played = http.post(
                        f"{self.url}/matches/{match_id}/plays",
                        json={"card": card},
                        headers=bearer(token),
                    )
                    assert played.status_code == 200, played.text
                    with self.lock:
                        self.acked.append((match_id, played.json()["view"]["seq"]))
                    view = http.get(f"{self.url}/matches/{match_id}/view", headers=bearer(token))


@pytest.mark.e2e
def test_a_backup_taken_under_load_restores_verifies_and_has_every_acknowledged_play(
    tmp_path: Path,
) -> None:
    # given a server on a SQLite file, with players playing, and read models kept
    live = tmp_path / "live.db"
    copy = tmp_path / "backups" / "copy.db"
    with serve_process(tmp_path, "--db", str(live)) as (url, _process), Players(url) as players:
        wait_until(lambda: players.count() >= 30, "plays before the backup", 120)
        assert httpx.get(f"{url}/matches").status_code == 200  # the lobby folds the log
        with players.lock:
            acknowledged = list(players.acked)

        # when a backup is taken while they go on playing
        taken = basra("backup", str(copy), "--db", str(live), "--json", cwd=tmp_path)
        later = players.count()
        wait_until(lambda: players.count() >= later + 10, "plays after the backup", 120)

    assert taken.returncode == 0, taken.stderr
    files = json.loads(taken.stdout)["files"]
    assert str(copy) in files and any("readmodels" in name for name in files)

    # then it restores into a new place, every stream verifies, and the read models are current
    restored = tmp_path / "restored" / "basra.db"
    put = basra("restore", str(copy), "--db", str(restored), cwd=tmp_path)
    assert put.returncode == 0, put.stderr
    verified = basra("verify", "--all", "--db", str(restored), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    service = MatchService.open(restored)
    try:
        for match_id, seq in acknowledged:  # every play acknowledged before the backup began
            assert service.load(match_id).events >= seq
        match_ids = set(service.match_ids())
    finally:
        service.close()
    listed = basra("matches", "--db", str(restored), "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert {row["match_id"] for row in json.loads(listed.stdout)} == match_ids


def _store_with_a_match(path: Path) -> str:
    service = MatchService.open(path)
    try:
        match_id = service.create_match(ruleset="classic", seats=2, bots=(0, 1)).match_id
    finally:
        service.close()
    return match_id


def _read_models_rows(db: Path) -> list[tuple[object, ...]]:
    readmodels = companions(db, as_configured=False)[0]
    with sqlite3.connect(readmodels) as conn:
        return sorted(conn.execute("SELECT * FROM matches").fetchall())


def test_restore_from_the_copied_read_models_equals_a_rebuild(tmp_path: Path) -> None:
    # given a store whose read models are current, and its backup
    live = tmp_path / "live.db"
    _store_with_a_match(live)
    assert run("matches", "--db", str(live))[0] == 0  # folds the read models
    assert run("backup", str(tmp_path / "copy.db"), "--db", str(live))[0] == 0

    # when it is restored twice: from the copied read models, and rebuilt from the log
    one, two = tmp_path / "one" / "basra.db", tmp_path / "two" / "basra.db"
    first = run("restore", str(tmp_path / "copy.db"), "--db", str(one))
    second = run("restore", str(tmp_path / "copy.db"), "--db", str(two), "--rebuild")

    # then both hold the same rows
    assert first[0] == 0 and second[0] == 0, first[2] + second[2]
    assert "rebuilt" in second[2]
    assert _read_models_rows(one) == _read_models_rows(two) != []


def test_an_existing_file_is_replaced_only_with_force(tmp_path: Path) -> None:
    live, copy = tmp_path / "live.db", tmp_path / "copy.db"
    _store_with_a_match(live)
    copy.write_text("keep me")

    code, _, err = run("backup", str(copy), "--db", str(live))

    assert code != 0 and "--force" in err and "Traceback" not in err
    assert copy.read_text() == "keep me"
    assert run("backup", str(copy), "--db", str(live), "--force")[0] == 0
    restored = tmp_path / "restored.db"
    _store_with_a_match(restored)
    code, _, err = run("restore", str(copy), "--db", str(restored))
    assert code != 0 and "--force" in err


def test_restoring_a_file_that_is_no_backup_changes_nothing(tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    match_id = _store_with_a_match(live)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)

    code, _, err = run("restore", str(junk), "--db", str(live), "--force")

    assert code != 0 and "not a basra backup" in err and len(err.strip().splitlines()) == 1
    service = MatchService.open(live)
    try:
        assert service.match_ids() == [match_id]
    finally:
        service.close()


def test_postgresql_is_backed_up_with_pg_dump(tmp_path: Path) -> None:
    env = {"BASRA_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/test"}
    for command in ("backup", "restore"):
        code, _, err = run(command, str(tmp_path / "x.db"), env=env)
        assert code != 0 and "pg_dump" in err and "Traceback" not in err
