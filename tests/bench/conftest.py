"""Smoke tests of the benchmarks: each runs through the harness (``python -m bench NAME …
--json``) with its smallest settings for a few seconds at most, and its figures' shape and sanity
are checked, never a timing."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from typing import Any

import pytest

from bench.before import numbers
from bench.harness import load, main


def pytest_configure(config: pytest.Config) -> None:
    """The marker of the benchmarks that take several seconds even at their smallest."""
    config.addinivalue_line("markers", "slow: takes several seconds (a server, a browser)")


@pytest.fixture
def postgres() -> str:
    """The test PostgreSQL server (skipped without BASRA_TEST_POSTGRES)."""
    url = os.environ.get("BASRA_TEST_POSTGRES")
    if not url:
        pytest.skip("BASRA_TEST_POSTGRES is not set")
    return url


class Bench:
    """Runs a benchmark through the harness in this process; its figures and its text."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, name: str, *argv: str) -> tuple[dict[str, Any], str]:
        """``python -m bench NAME ARGV --json``: (the figures, the text and progress)."""
        self.capsys.readouterr()
        assert main([name, *argv, "--json"]) == 0
        out = self.capsys.readouterr()
        return json.loads(out.out), out.err


@pytest.fixture
def bench(capsys: pytest.CaptureFixture[str]) -> Iterator[Bench]:
    """The harness, run in this process."""
    yield Bench(capsys)


def flat(figures: dict[str, Any]) -> dict[str, float]:
    """Every number of the figures, keyed by its path (``2 seats/median_plays_per_s``)."""
    return dict(numbers(figures))


def assert_sane(
    figures: dict[str, Any], *, positive: tuple[str, ...] = (), signed: tuple[str, ...] = ()
) -> dict[str, float]:
    """Every number finite and, unless its path contains one of ``signed``, not negative; the
    keys ending in one of ``positive`` above zero. The numbers by path."""
    found = flat(figures)
    assert found, "no figures"
    for key, value in found.items():
        assert math.isfinite(value), key
        assert value >= 0 or any(part in key for part in signed), (key, value)
        if key.endswith(positive):
            assert value > 0, (key, value)
    return found


def assert_old_script_reads(name: str, figures: dict[str, Any], text: str) -> None:
    """The old script's reader, given this run's text (the same lines), finds figures that the
    JSON has under the same keys: a before side and this side compare figure by figure."""
    legacy = load(name).LEGACY
    assert legacy is not None
    read = legacy.read(text)
    assert read, "the reader found nothing"
    missing = set(read) - set(flat(figures))
    assert not missing, missing
