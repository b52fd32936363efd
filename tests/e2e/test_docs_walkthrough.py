"""docs/api.md runs as written: every ``sh`` block, in order, in one shell, against a real
``basra serve`` process (only the address is replaced by the test server's)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_serve import basra_serve

pytestmark = pytest.mark.e2e

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
"""The page under test."""

DOC_ADDRESS = "http://127.0.0.1:8000"
"""The address the page's examples use."""

BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
MARK = "@@block"
MARKED = re.compile(rf"(?P<rest>.*){MARK} (?P<index>\d+) (?P<status>\d+)")


def shell_blocks(text: str) -> list[str]:
    """The ``sh`` code blocks of a Markdown page, in order."""
    return [match.group(1) for match in BLOCK.finditer(text)]


def run_blocks(blocks: list[str], url: str, cwd: Path) -> list[tuple[str, int, str]]:
    """Run the blocks in one bash, in order; (block, exit status, output) of each."""
    script = ["set -o pipefail"]
    for index, block in enumerate(blocks):
        script.append(block.replace(DOC_ADDRESS, url))
        script.append(f'echo "{MARK} {index} $?"')
    result = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )
    assert result.stderr == "", result.stderr
    outputs: list[tuple[str, int, str]] = []
    pending: list[str] = []
    for line in result.stdout.splitlines():
        found = MARKED.fullmatch(line)
        if found is None:
            pending.append(line)
            continue
        if found["rest"]:  # the block's last output had no final newline
            pending.append(found["rest"])
        outputs.append((blocks[int(found["index"])], int(found["status"]), "\n".join(pending)))
        pending = []
    assert len(outputs) == len(blocks), result.stdout
    return outputs


def _json_objects(output: str) -> list[dict[str, object]]:
    """Every line of ``output`` that is a JSON object."""
    found = []
    for line in output.splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


@pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("jq") and shutil.which("bash")),
    reason="the walkthrough needs bash, curl and jq",
)
def test_the_api_walkthrough_runs_as_written(tmp_path: Path) -> None:
    blocks = shell_blocks(DOC.read_text())
    assert len(blocks) >= 10

    # docs/api.md's CORS example asks this server for https://play.example; its limits are the
    # defaults, which the walkthrough stays under.
    with basra_serve(
        tmp_path,
        "--db",
        str(tmp_path / "docs.db"),
        "--cors-origin",
        "https://play.example",
        env={"BASRA_TEST_MODE": "", "BASRA_RATE_LIMITS": ""},
    ) as url:
        outputs = run_blocks(blocks, url, tmp_path)

    for block, status, output in outputs:
        # A live feed is cut by --max-time (curl's status 28); everything else succeeds.
        allowed = {0, 28} if "--max-time" in block else {0}
        assert status in allowed, (block, status, output)
        for body in _json_objects(output):
            assert "error" not in body, (block, body)
    seated = next(o for b, _, o in outputs if "/seats/0" in b and "SEATED" in b)
    token = json.loads(seated.splitlines()[0])["token"]
    assert re.fullmatch(r"seat_m-[0-9a-f]{16}\.0\.[0-9a-f]{8}\.[\w-]{43}", token)
    played = next(o for b, _, o in outputs if "/plays" in b)
    assert json.loads(played)["events"][0]["type"] == "card_played"
    feed = next(o for b, _, o in outputs if "/events" in b and "Last-Event-ID" not in b)
    assert "id: 1" in feed and '"type":"match_created"' in feed
    replays = list(tmp_path.glob("m-*.jsonl"))
    assert len(replays) == 1
    lines = replays[0].read_text().splitlines()
    assert json.loads(lines[0])["format"] == "basra-replay"
    assert json.loads(lines[-1])["type"] == "match_ended"
    tokens = sorted(tmp_path.glob("token-*"))
    assert [p.name for p in tokens] == ["token-0", "token-1", "token-2", "token-3"]
    assert all(p.read_text().startswith("seat_m-") for p in tokens)
