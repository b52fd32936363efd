"""The shared listening socket keeps TCP_NODELAY on every accepted connection.

Without it each keep-alive request waits for a delayed ACK (about 40 ms). This checks the
option itself on the server's side of real connections, rather than timing requests.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from app.api.server import listening_socket


async def _nodelay_of_accepted(sock: socket.socket) -> int:
    """TCP_NODELAY on the server side of one connection accepted by asyncio (as uvicorn does)."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = writer.get_extra_info("socket")
        seen.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=sock)
    async with server:
        port = sock.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        value = await asyncio.wait_for(seen, 60)
        writer.close()
    return value


def test_connections_accepted_on_the_shared_socket_keep_tcp_nodelay() -> None:
    nodelay = asyncio.run(_nodelay_of_accepted(listening_socket("127.0.0.1", 0)))

    assert nodelay != 0


def test_a_socket_bound_without_the_protocol_loses_it() -> None:
    # The failure this guards against: how uvicorn's own --workers binds its socket.
    plain = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    plain.bind(("127.0.0.1", 0))

    nodelay = asyncio.run(_nodelay_of_accepted(plain))

    assert nodelay == 0


def test_connections_accepted_by_uvloop_on_the_shared_socket_keep_tcp_nodelay() -> None:
    # uvloop is the serving loop by default (basra serve --loop auto).
    uvloop = pytest.importorskip("uvloop")

    nodelay = uvloop.run(_nodelay_of_accepted(listening_socket("127.0.0.1", 0)))

    assert nodelay != 0
