"""Test helpers for the HTTP API: tables through the API, SSE parsing, a real server in a thread."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from litestar import Litestar

from app.api.app import create_app
from app.api.server import FeedClosingServer, listening_socket
from app.api.settings import ApiSettings
from app.runtime.runtime import ApiRuntime
from app.service import MatchService

SUPPORT_TOKEN = "support-secret-for-tests"
"""The support token the test apps are configured with."""

CARD_PATTERN = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([CDHS])(?![0-9A-Za-z])")
"""A card's text form standing alone in a body (R1)."""


WAIT_SECONDS = 60.0
"""How long a test waits for something that happens in another thread or process: generous,
because a loaded machine is slow, and a passing test never waits that long."""


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT_SECONDS) -> None:
    """Return once ``condition()`` holds; fail naming ``what`` if it never does."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def bearer(token: str) -> dict[str, str]:
    """The Authorization header for a token."""
    return {"Authorization": f"Bearer {token}"}


def timeless(body: Any) -> Any:
    """A response body without the server's ``now`` in any ``after`` (it is the time of asking)."""
    if isinstance(body, dict):
        return {
            k: ({**v, "now": None} if k == "after" and isinstance(v, dict) else timeless(v))
            for k, v in body.items()
        }
    if isinstance(body, list):
        return [timeless(v) for v in body]
    return body


def cards_in(text: str) -> set[str]:
    """Every card text that stands alone in ``text``."""
    return {m.group(1) + m.group(2) for m in CARD_PATTERN.finditer(text)}


@dataclass
class SseMessage:
    """One SSE message: ``id``, the decoded ``data`` line (or a comment) and its ``event`` type
    (None for the match's events; ``presence`` for who is connected now)."""

    id: int | None
    data: dict[str, Any] | None
    raw: str
    event: str | None = None


def parse_sse(text: str) -> list[SseMessage]:
    """The messages of an SSE body (blank-line separated); comments come back with data None."""
    messages: list[SseMessage] = []
    for block in re.split(r"\r?\n\r?\n", text):
        if not block.strip():
            continue
        event_id: int | None = None
        event_type: str | None = None
        data_lines: list[str] = []
        for line in re.split(r"\r?\n", block):
            if line.startswith("id:"):
                event_id = int(line[3:].strip())
            elif line.startswith("event:"):
                event_type = line[6:].strip()
            elif line.startswith("data:"):
                data_lines.append(line[5:].lstrip(" "))
        data = json.loads("\n".join(data_lines)) if data_lines else None
        messages.append(SseMessage(event_id, data, block, event_type))
    return messages


class ThreadServer:
    """A real uvicorn server for ``app`` on a free loopback port, in a background thread."""

    def __init__(self, app: Litestar) -> None:
        self.sock = listening_socket("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=1,
            proxy_headers=False,  # as basra serve: the app reads forwarding headers itself
        )
        self.server = FeedClosingServer(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def start(self) -> ThreadServer:
        """Start serving; return once the server accepts requests."""
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving (open streams are closed) and wait for the thread."""
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


@contextmanager
def serving(app: Litestar) -> Iterator[ThreadServer]:
    """A started ThreadServer, stopped afterwards."""
    server = ThreadServer(app).start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def two_servers_on_postgresql(
    pg_url: str, settings: ApiSettings
) -> Iterator[tuple[MatchService, ThreadServer, ThreadServer]]:
    """Two API servers, each with its own service, on one PostgreSQL database (as two processes
    would be); yields the first service and both servers, and closes everything afterwards."""
    one = MatchService.open(database_url=pg_url)
    two = MatchService.open(database_url=pg_url)
    try:
        with (
            serving(create_app(one, settings=settings)) as a,
            serving(create_app(two, settings=settings)) as b,
        ):
            yield one, a, b
    finally:
        one.close()
        two.close()


@dataclass
class SseReader:
    """Reads one SSE feed in a thread until ``match_ended`` (or ``stop_after`` messages)."""

    url: str
    headers: dict[str, str]
    stop_after: int | None = None
    timeout: float = 60.0
    messages: list[SseMessage] = field(default_factory=list)
    status: int | None = None
    error: BaseException | None = None
    connected: threading.Event = field(default_factory=threading.Event)
    closing: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> SseReader:
        """Connect and read in the background; return once the response headers arrived."""
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self.connected.wait(15):
            raise RuntimeError("the SSE feed did not connect")
        return self

    def _run(self) -> None:
        try:
            timeout = httpx.Timeout(self.timeout, connect=10)
            with httpx.stream("GET", self.url, headers=self.headers, timeout=timeout) as response:
                self.status = response.status_code
                self.connected.set()
                if response.status_code != 200:
                    return
                buffer = ""
                for chunk in response.iter_text():
                    if self.closing.is_set():
                        return  # the client goes away (at the next chunk: a keep-alive at most)
                    buffer += chunk
                    *blocks, buffer = re.split(r"\r?\n\r?\n", buffer)
                    for block in blocks:
                        for message in parse_sse(block + "\n\n"):
                            self.messages.append(message)
                            if self._done(message):
                                return
        except BaseException as error:  # surfaced by join()
            self.error = error
            self.connected.set()

    def close(self) -> None:
        """Go away: the connection closes at the next thing the server sends."""
        self.closing.set()
        assert self._thread is not None
        self._thread.join(30)
        if self._thread.is_alive():
            raise AssertionError("the SSE feed did not close in time")

    def wait_for(self, seq: int) -> None:
        """Return once the message with id ``seq`` has arrived (a condition, not a sleep)."""
        wait_until(lambda: any(m.id == seq for m in self.messages), f"seq {seq} on the feed")

    def _done(self, message: SseMessage) -> bool:
        if message.data is not None and message.data.get("type") == "match_ended":
            return True
        events = [m for m in self.messages if m.data is not None and m.event is None]
        return self.stop_after is not None and len(events) >= self.stop_after

    def join(self, timeout: float = 60.0, *, allow_cut: bool = False) -> list[SseMessage]:
        """Wait for the feed to finish; the match's event messages (comments and presence
        messages left out).

        ``allow_cut``: the server going away mid-feed is expected (a restart).
        """
        assert self._thread is not None
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError("the SSE feed did not finish in time")
        cut = isinstance(self.error, httpx.RemoteProtocolError | httpx.ReadError)
        if self.error is not None and not (allow_cut and cut):
            raise self.error
        return [m for m in self.messages if m.data is not None and m.event is None]

    def presence(self) -> list[dict[str, Any]]:
        """The ``data`` of each ``event: presence`` message received so far."""
        return [m.data for m in list(self.messages) if m.event == "presence" and m.data]


class HttpSteps:
    """Small steps against a real server over HTTP (httpx), for readable tests."""

    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http = http
        self.url = url

    def create(self, **body: Any) -> dict[str, Any]:
        """POST /matches (classic, 2 seats unless given)."""
        body.setdefault("ruleset", "classic")
        body.setdefault("seats", 2)
        response = self.http.post(f"{self.url}/matches", json=body)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def sit(self, match_id: str, seat: int, name: str = "Amal") -> str:
        """Take a seat; its token."""
        url = f"{self.url}/matches/{match_id}/seats/{seat}"
        response = self.http.post(url, json={"name": name})
        assert response.status_code == 201, response.text
        return str(response.json()["token"])

    def practice(self, seed: str, seats: int = 2) -> tuple[str, str]:
        """Seat 0 a person, the rest bots: (match id, token)."""
        match_id = self.create(seats=seats, bots=list(range(1, seats)), seed=seed)["match_id"]
        return str(match_id), self.sit(match_id, 0)

    def view(self, match_id: str, token: str) -> dict[str, Any]:
        """The seat's view."""
        response = self.http.get(f"{self.url}/matches/{match_id}/view", headers=bearer(token))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def play(self, match_id: str, token: str, card: str, **extra: Any) -> httpx.Response:
        """POST a play."""
        headers = bearer(token) | extra.pop("headers", {})
        return self.http.post(
            f"{self.url}/matches/{match_id}/plays", json={"card": card, **extra}, headers=headers
        )

    def play_first_card(self, match_id: str, token: str) -> dict[str, Any]:
        """Play the first card of the hand; the view after it."""
        response = self.play(match_id, token, self.view(match_id, token)["hand"][0])
        assert response.status_code == 200, response.text
        return dict(response.json()["view"])

    def leave(self, match_id: str, token: str) -> dict[str, Any]:
        """Leave (the match ends by forfeit)."""
        response = self.http.post(f"{self.url}/matches/{match_id}/leave", headers=bearer(token))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def feed(self, match_id: str, token: str, **headers: str) -> SseReader:
        """A started SSE reader of the match for ``token``."""
        url = f"{self.url}/matches/{match_id}/events"
        extra = {k.replace("_", "-"): v for k, v in headers.items()}
        return SseReader(url, bearer(token) | extra).start()


def client_runtime(client: Any) -> ApiRuntime:
    """The runtime of a test client's app."""
    runtime = client.app.state.runtime
    assert isinstance(runtime, ApiRuntime)
    return runtime


def add_agent(client: Any, name: str) -> str:
    """A named support agent added to the client's app; its token."""
    from app.api.edges.tokens import AGENT_PREFIX, issue_prefixed

    token, token_hash = issue_prefixed(AGENT_PREFIX)
    client_runtime(client).access.add_agent(name, token_hash)
    return token


def register_player(client: Any, name: str) -> dict[str, Any]:
    """``POST /players``: the new player's id and token."""
    response = client.post("/players", json={"name": name})
    assert response.status_code == 201, response.text
    return dict(response.json())
