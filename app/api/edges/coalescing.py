"""One write to the socket for what a connection is sent in one turn of the event loop.

uvicorn writes a response's head and its body to the socket separately, as soon as each ASGI
message is sent: a play's answer is two ``send`` system calls and, with ``TCP_NODELAY``, two
packets the client wakes up for. The event loop runs the handler's two sends one after the
other without waiting between them, so a transport that keeps what it is given until the end of
the loop's turn hands the socket both at once: one system call, one packet.

Nothing is held longer than that turn, so a play's answer and a feed's event leave no later
than before (docs/performance.md, "One write a response"). Flow control is the socket
transport's own: it still pauses the protocol when its buffer is full, and the bytes held here
count in ``get_write_buffer_size``.
"""

from __future__ import annotations

import asyncio
from typing import Any


class CoalescingTransport(asyncio.Transport):
    """A socket transport whose writes in one turn of the event loop go out as one."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Hold ``data`` until the loop's turn ends (the first write of a turn schedules it)."""
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(bytes(data))

    def writelines(self, list_of_data: Any) -> None:
        """Hold each of ``list_of_data`` as ``write`` does."""
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Hand the socket everything held, in the order it was written, as one write."""
        if not self._held:
            return
        held, self._held = self._held, []
        if self._transport.is_closing():
            return  # the connection is gone: the socket transport would drop them too
        self._transport.write(held[0] if len(held) == 1 else b"".join(held))

    def close(self) -> None:
        """Send what is held, then close once the socket transport has written it."""
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        """Drop what is held and close at once."""
        self._held = []
        self._transport.abort()

    def write_eof(self) -> None:
        """Send what is held, then close the sending side."""
        self.flush()
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        """Whether the socket can close its sending side alone."""
        return self._transport.can_write_eof()

    def is_closing(self) -> bool:
        """Whether the socket transport is closing or closed."""
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """The socket transport's extra information (``socket``, ``peername``, ...)."""
        return self._transport.get_extra_info(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Hand the socket to another protocol (an upgraded connection)."""
        self.flush()
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        """The protocol the socket transport calls."""
        return self._transport.get_protocol()

    def is_reading(self) -> bool:
        """Whether the socket is being read."""
        return self._transport.is_reading()

    def pause_reading(self) -> None:
        """Stop reading the socket (the protocol is behind)."""
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        """Read the socket again."""
        self._transport.resume_reading()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """The socket transport's flow-control marks."""
        self._transport.set_write_buffer_limits(high, low)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """The socket transport's flow-control marks."""
        return self._transport.get_write_buffer_limits()

    def get_write_buffer_size(self) -> int:
        """Bytes not yet sent: those held here and those the socket transport buffers."""
        return self._transport.get_write_buffer_size() + sum(len(data) for data in self._held)
