"""The live feed's HTTP response: Server-Sent Events written as the feed yields them.

Litestar's ``ServerSentEvent`` sends each stream through a task group (a second task that waits
for the client to leave, and a cancel scope) and first asks a worker thread for the stream's
opening lines; the exception that ends that first step stays alive, with its traceback, for as
long as the feed is open. A process holding thousands of mostly idle feeds (docs/performance.md,
"10,000 idle feeds") paid for all of it on every feed. This response sends the messages from the
request's own task; the client leaving is heard by one small task that wakes the feed by
cancelling the request's task, whose ``finally`` blocks then run as before (the subscription
closed, the seat no longer connected, the drop recorded for support).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final

from litestar.response import Stream
from litestar.response.sse import ServerSentEventMessage
from litestar.response.streaming import ASGIStreamingResponse

if TYPE_CHECKING:
    from litestar.types import Receive, Send

EVENT_STREAM: Final = "text/event-stream"
"""The media type of Server-Sent Events."""

FEED_HEADERS: Final = {
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "X-Accel-Buffering": "no",  # a proxy must pass each message on as it comes
}
"""What every feed answers with besides its media type."""


async def _bytes_of(messages: AsyncIterator[ServerSentEventMessage]) -> AsyncIterator[bytes]:
    """Each message as its encoded lines (shared messages are encoded once for every feed)."""
    try:
        async for message in messages:
            yield message.encode()
    finally:
        closing = getattr(messages, "aclose", None)
        if closing is not None:
            await closing()


class FeedResponse(Stream):
    """The feed of ``messages`` as ``text/event-stream``, ended when the client leaves."""

    def __init__(self, messages: AsyncIterator[ServerSentEventMessage]) -> None:
        super().__init__(_bytes_of(messages), media_type=EVENT_STREAM, headers=dict(FEED_HEADERS))

    def to_asgi_response(self, *args: Any, **kwargs: Any) -> ASGIStreamingResponse:
        """Litestar's streaming response, sending its body as :class:`_FeedBody` does."""
        response = super().to_asgi_response(*args, **kwargs)
        assert isinstance(response, ASGIStreamingResponse)
        response.__class__ = _FeedBody  # same slots; only how the body is sent differs
        return response


class _FeedBody(ASGIStreamingResponse):
    """An ASGI streaming response whose body is sent from the request's task."""

    __slots__ = ()

    async def send_body(self, send: Send, receive: Receive) -> None:
        """Send every chunk; stop at once, quietly, when the client disconnects."""
        task = asyncio.current_task()
        assert task is not None
        watch = _ClientWatch(task)
        listener = asyncio.ensure_future(_until_disconnect(receive))
        listener.add_done_callback(watch.heard)
        try:
            async for chunk in self.iterator:
                body = chunk if isinstance(chunk, bytes) else chunk.encode(self.encoding)
                await send({"type": "http.response.body", "body": body, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not watch.left:
                raise  # cancelled for another reason (the server stopping): not ours to keep
            task.uncancel()
        finally:
            watch.sending = False  # a disconnect heard from now on cancels nothing
            listener.cancel()


class _ClientWatch:
    """Whether the client left while the feed was being sent, and what to wake when it does."""

    __slots__ = ("left", "sending", "task")

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.sending = True
        self.left = False

    def heard(self, done: asyncio.Future[None]) -> None:
        """The listener ended: when it heard the client leave mid-feed, wake the feed."""
        if not self.sending or done.cancelled() or done.exception() is not None:
            return
        self.left = True
        self.task.cancel()


async def _until_disconnect(receive: Receive) -> None:
    """Return once the client has disconnected (a request body's messages are skipped)."""
    while (await receive())["type"] != "http.disconnect":
        continue
