"""Writes what ``basra export`` and ``basra verify`` answer for every match of the fixture stores.

``python tests/data/make_fixture_answers.py`` writes ``fixture_answers.json`` beside it: for each
fixture store (a copy of it), each match's replay file as support sees it, as seat 0 sees it, and
``basra verify``'s line and JSON, as the build that still read every earlier form in place
answered them (commit 3e8301d). ``tests/app/test_store_migrate.py`` checks that a migrated copy
answers byte for byte the same. Never rerun it: its value is that it was answered before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
STORES = ("store_fixture_v1.db", "store_fixture_v2.db", "old_names.db")


def basra(*args: str) -> tuple[int, str]:
    """Run the command line; its exit status and stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE.parent.parent)},
        check=False,
    )
    return done.returncode, done.stdout


def main() -> None:
    """Write fixture_answers.json."""
    answers: dict[str, dict[str, dict[str, object]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in STORES:
            copy = Path(folder) / name
            shutil.copyfile(HERE / name, copy)
            db = ("--db", str(copy))
            import sqlite3

            with sqlite3.connect(copy) as connection:
                created = connection.execute(
                    "SELECT originator_id FROM stored_events WHERE topic IN ('c',"
                    " 'basra:match_created') ORDER BY rowid"
                ).fetchall()
            _, listed = basra("verify", "--all", "--json", *db)
            ids = [entry["match_id"] for entry in json.loads(listed)]
            assert len(ids) == len(created), (name, ids)
            answers[name] = {}
            for match_id in ids:
                found: dict[str, object] = {}
                found["export"] = basra("export", match_id, *db)
                found["export_seat0"] = basra("export", match_id, "--as", "0", *db)
                found["verify"] = basra("verify", match_id, *db)
                found["verify_json"] = basra("verify", match_id, "--json", *db)
                answers[name][match_id] = found
    text = json.dumps(answers, indent=1, ensure_ascii=False, sort_keys=True)
    (HERE / "fixture_answers.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
