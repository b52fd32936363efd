"""Connections that would hold a socket for nothing: closed by the server, and counted.

uvicorn closes a keep-alive connection idle between requests (``KEEP_ALIVE_SECONDS``), but it
waits without end for a connection that never sends a request, or sends its headers a byte at
a time: enough of those and the process runs out of file descriptors, and the players already
seated cannot reconnect. A client that vanishes without closing (a phone that lost its
network) leaves a feed whose writes are never acknowledged: without a bound the kernel keeps
retrying for about fifteen minutes, holding the feed and its buffers.

``basra serve`` (uvicorn) therefore runs its HTTP protocol with this guard
(docs/deploy.md, "Connections"):

- a request's head (request line and headers) must arrive within ``HEAD_SECONDS`` of the
  connection opening, or of the request's first byte on a kept-alive connection; else the
  connection is closed, counted ``basra_connections_closed_total{reason="slow_head"}``;
- every accepted socket gets ``TCP_USER_TIMEOUT`` and TCP keep-alive probes, so a peer that
  stopped acknowledging is dropped by the kernel within ``VANISHED_SECONDS``; such a drop is
  counted ``reason="vanished"``;
- ``basra_open_connections`` says how many are open now, over every live process.

granian parses HTTP itself and has its own bounds; this guard is uvicorn's.
"""

from __future__ import annotations

import asyncio
import errno
import importlib.util
import socket
from collections.abc import Mapping
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

from app.api.edges.metrics import CONNECTIONS_CLOSED, OPEN_CONNECTIONS

HEAD_SECONDS: Final = 10.0
"""How long a request's line and headers may take to arrive (a browser sends them at once)."""

HEAD_SECONDS_ENV: Final = "BASRA_API_HEAD_SECONDS"
"""The environment variable that sets another bound for the head (seconds, > 0)."""

VANISHED_SECONDS: Final = 30
"""How long sent data may stay unacknowledged before the kernel drops the connection."""

KEEPALIVE_IDLE: Final = 30
"""Seconds a silent connection waits before the kernel's first keep-alive probe."""

KEEPALIVE_INTERVAL: Final = 10
"""Seconds between keep-alive probes."""

KEEPALIVE_PROBES: Final = 3
"""Unanswered probes after which the kernel drops the connection."""


def bound_socket(sock: socket.socket | None) -> None:
    """Give an accepted TCP socket the bounds that drop a vanished peer (Linux; else nothing)."""
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    options = [
        (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", None), KEEPALIVE_IDLE),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", None), KEEPALIVE_INTERVAL),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", None), KEEPALIVE_PROBES),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_USER_TIMEOUT", None), VANISHED_SECONDS * 1000),
    ]
    for level, name, value in options:
        if name is None:
            continue
        try:
            sock.setsockopt(level, name, value)
        except OSError:  # a socket closed already, or a kernel without the option
            return


class ConnectionGuard:
    """What the guarded protocols add to uvicorn's: the head's deadline, the socket's bounds."""

    head_seconds: float = HEAD_SECONDS
    _head_timer: asyncio.TimerHandle | None = None
    _closed_by_guard = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Bound the socket, count the connection, and start waiting for the first head."""
        super().connection_made(transport)  # type: ignore[misc]
        bound_socket(transport.get_extra_info("socket"))
        OPEN_CONNECTIONS.inc()
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does; a request whose head is now complete is no longer timed."""
        cycle_before = self._cycle()
        if self._head_timer is None and _between_requests(cycle_before):
            self._arm_head_timer()  # a kept-alive connection's next request begins
        super().data_received(data)  # type: ignore[misc]
        if self._cycle() is not cycle_before:  # the head was parsed: a request cycle began
            self._cancel_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """Count the connection gone, and why when the kernel gave up on the peer."""
        self._cancel_head_timer()
        OPEN_CONNECTIONS.dec()
        if isinstance(exc, OSError) and exc.errno == errno.ETIMEDOUT:
            CONNECTIONS_CLOSED.labels("vanished").inc()
        super().connection_lost(exc)  # type: ignore[misc]

    def _cycle(self) -> Any:
        return getattr(self, "cycle", None)

    def _arm_head_timer(self) -> None:
        loop = asyncio.get_running_loop()
        self._head_timer = loop.call_later(self.head_seconds, self._head_too_slow)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        transport: asyncio.Transport = getattr(self, "transport")  # noqa: B009
        if not _between_requests(self._cycle()) or transport.is_closing():
            return  # a request is being answered: its own time is not the head's
        self._closed_by_guard = True
        CONNECTIONS_CLOSED.labels("slow_head").inc()
        transport.close()


def _between_requests(cycle: Any) -> bool:
    """No request on the connection, or the last one answered."""
    return cycle is None or bool(getattr(cycle, "response_complete", False))


def head_seconds_from(environ: Mapping[str, str]) -> float:
    """The head's bound from ``BASRA_API_HEAD_SECONDS`` (ValueError in words when wrong)."""
    text = environ.get(HEAD_SECONDS_ENV, "").strip()
    if not text:
        return HEAD_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < 3600:
        raise ValueError(f"{HEAD_SECONDS_ENV} is a number of seconds above 0, not {text!r}")
    return seconds


def guarded_protocol(http: str, head_seconds: float = HEAD_SECONDS) -> type[asyncio.Protocol]:
    """The guarded protocol class for ``--http`` (auto: httptools when it is installed)."""
    base: type[asyncio.Protocol] = H11Protocol
    if http == "httptools" or (http == "auto" and importlib.util.find_spec("httptools")):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        base = HttpToolsProtocol
    name = f"Guarded{base.__name__}"
    return type(name, (ConnectionGuard, base), {"head_seconds": head_seconds})
