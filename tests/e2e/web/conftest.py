"""Browser fixtures: a real ``basra serve`` and Debian's Chromium driven by Playwright.

Every page records what the browser received: each response (read after the test step, from
the browser's own network records) and each SSE message (Chromium's DevTools network events), so
the leak test can scan exactly what reached the page.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest

from tests.e2e.test_serve import serve_process

pytestmark = pytest.mark.e2e

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (Playwright's own browser download does not work here)."""

SCREENSHOTS = Path(os.environ.get("BASRA_SCREENSHOTS", "test-output/screenshots"))
"""Where the tests save their screenshots (relative to the directory pytest runs in)."""

WAIT_MS = 30_000
"""How long a step waits for the page (generous: the machine may be busy)."""


def _playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the test extras install it
        pytest.skip("playwright is not installed")
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("/usr/bin/chromium is missing (.ci/run installs it)")
        pytest.skip("/usr/bin/chromium is missing: apt-get install chromium")
    return sync_playwright


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session."""
    sync_playwright = _playwright()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


NO_LIMITS: Final = {"BASRA_RATE_LIMITS": "players=off matches=off wrong_tokens=off feeds=off"}
"""The browser tests open many tables and feeds from one address."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``basra serve`` (test mode, limits off) on a fresh SQLite file: (URL, the file)."""
    folder = tmp_path_factory.mktemp("web")
    db = folder / "web.db"
    with serve_process(folder, "--db", str(db), env=NO_LIMITS) as (url, _process):
        yield url, db


@pytest.fixture(scope="module")
def server(served: tuple[str, Path]) -> str:
    """The URL of the module's server."""
    return served[0]


@dataclass
class Received:
    """Everything one page received: (url, content type, body text) and SSE message texts."""

    responses: list[Any] = field(default_factory=list)
    sse: list[str] = field(default_factory=list)

    def bodies(self) -> list[tuple[str, str, str]]:
        """Each finished response's url, content type and body (event streams excepted)."""
        out = []
        for response in self.responses:
            kind = response.headers.get("content-type", "")
            if kind.startswith("text/event-stream"):
                continue
            try:
                text = response.body().decode("utf-8", "replace")
            except Exception:  # a response the browser dropped (a navigation away)
                continue
            out.append((response.url, kind, text))
        return out


@dataclass
class Page:
    """A Playwright page of its own browser context, with what it received."""

    page: Any
    received: Received
    url: str
    errors: list[str] = field(default_factory=list)

    def goto(self, path: str) -> None:
        """Open a path of the server."""
        self.page.goto(self.url + path)


def open_page(
    browser: Any, url: str, *, width: int = 1280, height: int = 900, locale: str = "en-US"
) -> Page:
    """A page in a fresh context (its own localStorage), recording what it receives."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    received = Received()
    page.on("response", lambda response: received.responses.append(response))
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.eventSourceMessageReceived", lambda event: received.sse.append(event["data"]))
    opened = Page(page, received, url)
    page.on("pageerror", lambda error: opened.errors.append(str(error)))
    return opened


@pytest.fixture
def new_page(browser: Any, server: str) -> Iterator[Any]:
    """A factory of recording pages on the module's server; their contexts closed after."""
    pages: list[Page] = []

    def make(**options: Any) -> Page:
        opened = open_page(browser, server, **options)
        pages.append(opened)
        return opened

    yield make
    for opened in pages:
        assert not opened.errors, opened.errors
        opened.page.context.close()


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot of the page under the test output folder; its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_for(condition: Any, what: str, timeout: float = WAIT_MS / 1000) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
