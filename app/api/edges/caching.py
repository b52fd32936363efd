"""No cache keeps what a credential opened: every answer to a request that carries one is
``Cache-Control: no-store``.

A seat's view, a play's result, a preview, its live feed, support's views and replays before the
end: every route that can show a hand (R23) is reached with a credential (``Authorization``,
``?access_token=``, ``?ticket=``), and its answer is for that caller alone. A browser, a proxy or
a shared cache must never keep it, so this layer sets ``no-store`` on all of them, whatever the
route (a route added later is covered by the same rule). Public answers keep their own headers.
"""

from __future__ import annotations

from typing import Final

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.api.edges.limits import carries_credential

NO_STORE: Final = b"no-store"
"""The ``Cache-Control`` of every answer a credential opened."""


class NoStoreForCredentials:
    """Sets ``Cache-Control: no-store`` on the answer to any request that carries a credential."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; rewrite the response's headers if it carried a credential."""
        if scope["type"] != ScopeType.HTTP or not carries_credential(scope):
            await self.app(scope, receive, send)
            return

        async def no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"
                ]
                headers.append((b"cache-control", NO_STORE))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, no_store)
