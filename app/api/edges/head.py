"""``HEAD`` on every ``GET`` route, and ``Allow`` naming it.

A ``HEAD`` is answered as the ``GET`` of the same path would be, with its status and headers and
no body. The live feed is the exception: its ``HEAD`` answers the feed's headers at once,
without authenticating, opening a feed or spending a ``?ticket=`` (a ticket is good for one
feed, and a ``HEAD`` is not one). A 405's ``Allow`` names ``HEAD`` wherever ``GET`` is allowed.
"""

from __future__ import annotations

from typing import Final

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.api.edges.limits import is_feed_path

FEED_HEADERS: Final = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"content-length", b"0"),
]
"""What a ``HEAD`` of the live feed answers: the headers its ``GET`` streams under."""


class HeadAsGet:
    """Routes ``HEAD`` as ``GET`` and drops the body; adds ``HEAD`` to a 405's ``Allow``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one request."""
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "HEAD":
            await self.app(scope, receive, _allowing_head(send))
            return
        if is_feed_path(scope["path"]):
            await send({"type": "http.response.start", "status": 200, "headers": FEED_HEADERS})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        finished = False

        async def bodiless(message: Message) -> None:
            nonlocal finished
            if message["type"] != "http.response.body":
                await send(message)
            elif not message.get("more_body", False) and not finished:
                finished = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive, _allowing_head(bodiless))


def _allowing_head(send: Send) -> Send:
    """``send`` with ``HEAD`` added to the ``Allow`` of a 405 that allows ``GET``."""

    async def allowing(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 405:
            headers = []
            for name, value in message.get("headers", []):
                if name.lower() == b"allow":
                    methods = [m.strip() for m in value.decode("latin-1").split(",") if m.strip()]
                    if "GET" in methods and "HEAD" not in methods:
                        methods.append("HEAD")
                    value = ", ".join(sorted(methods)).encode("latin-1")
                headers.append((name, value))
            message = {**message, "headers": headers}
        await send(message)

    return allowing
