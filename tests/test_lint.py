"""The codebase's own rules, checked with the suite: ruff, ruff format, mypy --strict, layers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

CHECKS = {
    "ruff": [str(BIN / "ruff"), "check", "--no-cache", "."],
    "ruff-format": [str(BIN / "ruff"), "format", "--check", "--no-cache", "."],
    # mypy reads its packages and --strict from pyproject.toml.
    "mypy": [str(BIN / "mypy")],
    # domain at the bottom, replays on domain only, app on both, cli on top.
    "import-layers": [str(BIN / "lint-imports"), "--no-cache"],
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_codebase_passes(name: str) -> None:
    # Given the checkout, when the check runs over it
    result = subprocess.run(
        CHECKS[name], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    # Then it finds nothing to report
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
