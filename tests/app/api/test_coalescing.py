"""One write a turn: a response's head and body reach the socket together."""

from __future__ import annotations

import asyncio
import selectors
import socket
from typing import Any

import pytest
import uvicorn
from litestar.enums import ScopeType
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send

from app.api.edges.coalescing import CoalescingTransport
from app.api.edges.connections import guarded_protocol


class _Socket(asyncio.Transport):
    """Stands for the socket transport: remembers each write and whether it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def get_write_buffer_size(self) -> int:
        return 0


def test_writes_in_one_turn_reach_the_socket_as_one_write_in_order() -> None:
    async def scenario() -> tuple[list[bytes], list[bytes], int]:
        # given a coalescing transport over a socket
        sock = _Socket()
        transport = CoalescingTransport(sock, asyncio.get_running_loop())
        # when a head and a body are written in the same turn of the loop
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(memoryview(b"body"))
        during, held = list(sock.writes), transport.get_write_buffer_size()
        await asyncio.sleep(0)
        return during, sock.writes, held

    during, after, held = asyncio.run(scenario())
    # then nothing is written during the turn (its bytes count as buffered), and one write after
    assert during == []
    assert held == len(b"HTTP/1.1 200 OK\r\n\r\nbody")
    assert after == [b"HTTP/1.1 200 OK\r\n\r\nbody"]


def test_close_sends_what_is_held_first_and_abort_drops_it() -> None:
    async def scenario() -> tuple[_Socket, _Socket]:
        loop = asyncio.get_running_loop()
        # given two transports, each holding a write
        closing, aborting = _Socket(), _Socket()
        first, second = CoalescingTransport(closing, loop), CoalescingTransport(aborting, loop)
        first.write(b"bye")
        second.write(b"lost")
        # when one is closed and the other aborted in the same turn
        first.close()
        second.abort()
        await asyncio.sleep(0)
        return closing, aborting

    closing, aborting = asyncio.run(scenario())
    # then the closed one sent its bytes before closing; the aborted one sent nothing
    assert closing.closed and closing.writes == [b"bye"]
    assert aborting.aborted and aborting.writes == []


def _selector_loop() -> asyncio.AbstractEventLoop:
    return asyncio.SelectorEventLoop(selectors.DefaultSelector())


async def _answer(scope: Scope, receive: Receive, send: Send) -> None:
    """An ASGI app that answers as a Litestar handler does: a head, then a body."""
    if scope["type"] != ScopeType.HTTP:
        return
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")],
    }
    body: HTTPResponseBodyEvent = {
        "type": "http.response.body",
        "body": b'{"ok":true}',
        "more_body": False,
    }
    await send(start)
    await send(body)


@pytest.mark.parametrize("http", ["httptools", "h11"])
def test_uvicorn_with_the_guard_sends_a_response_in_one_socket_write(
    http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given uvicorn serving with the guarded protocol, each socket send counted
    sends: list[bytes] = []
    real_send = socket.socket.send

    def counted_send(self: socket.socket, data: Any, *flags: int) -> int:
        sends.append(bytes(data))
        return real_send(self, data, *flags)

    async def scenario() -> bytes:
        listener = socket.create_server(("127.0.0.1", 0))
        config = uvicorn.Config(
            _answer, http=guarded_protocol(http), loop="none", lifespan="off", log_level="error"
        )
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            await asyncio.sleep(0.01)
        reader, writer = await asyncio.open_connection(*listener.getsockname())
        # when a client asks for one response
        monkeypatch.setattr(socket.socket, "send", counted_send)
        writer.write(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        await writer.drain()
        answer = await reader.readuntil(b'{"ok":true}')
        monkeypatch.undo()
        writer.close()
        server.should_exit = True
        await serving
        return answer

    # (the standard library's loop: its socket transport writes with socket.send)
    with asyncio.Runner(loop_factory=_selector_loop) as runner:
        answer = runner.run(scenario())
    # then the server sent the head and the body with one system call
    server_sends = [data for data in sends if data.startswith(b"HTTP/1.1 200")]
    assert answer.startswith(b"HTTP/1.1 200")
    assert len(server_sends) == 1 and server_sends[0].endswith(b'{"ok":true}')
