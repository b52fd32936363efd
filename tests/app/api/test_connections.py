"""The connection guard: a vanished peer's socket bounds, and what is counted."""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any

from app.api.edges.connections import VANISHED_SECONDS, ConnectionGuard, bound_socket
from app.api.edges.metrics import CONNECTIONS_CLOSED


def test_an_accepted_socket_is_bounded_to_drop_a_peer_that_stops_acknowledging() -> None:
    # given a TCP connection accepted by a listening socket
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        accepted, _ = server.accept()
        with client, accepted:
            # when the guard bounds it
            bound_socket(accepted)
            # then the kernel drops it after VANISHED_SECONDS unacknowledged, and probes it
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == (
                VANISHED_SECONDS * 1000
            )
            assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == 3


class _Recording(asyncio.Protocol):
    """Stands for uvicorn's protocol: remembers what it was told."""

    def __init__(self) -> None:
        self.lost: list[Exception | None] = []
        self.cycle: Any = None
        self.transport: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.append(exc)


class _Guarded(ConnectionGuard, _Recording):
    head_seconds = 60.0


class _Transport(asyncio.Transport):
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def is_closing(self) -> bool:
        return False


def _vanished() -> float:
    return CONNECTIONS_CLOSED.labels("vanished")._value.get()  # type: ignore[attr-defined, no-any-return]


def test_a_connection_lost_to_the_kernels_timeout_is_counted_vanished_and_no_other() -> None:
    async def scenario() -> tuple[float, float, list[Exception | None]]:
        before = _vanished()
        # given two guarded connections
        timed_out, closed = _Guarded(), _Guarded()
        for protocol in (timed_out, closed):
            protocol.connection_made(_Transport())
        # when one is lost to ETIMEDOUT (the kernel gave up on the peer) and one closes cleanly
        timed_out.connection_lost(OSError(errno.ETIMEDOUT, "Connection timed out"))
        after_one = _vanished()
        closed.connection_lost(None)
        return after_one - before, _vanished() - before, timed_out.lost + closed.lost

    one, both, lost = asyncio.run(scenario())
    # then only the first is counted, and uvicorn's protocol still hears of both
    assert (one, both) == (1.0, 1.0)
    assert len(lost) == 2
