"""CORS and the abuse limits of one API process (docs/api.md, "CORS and limits").

Three layers:

- ``Edge``, outside everything: the client's address (app.api.edges.client_address) replaces the
  socket peer in the request, so every limit and the access log see the client rather than its
  proxy; and an ``Origin`` that is not allowed is dropped before Litestar's CORS, so other
  origins get no CORS header at all.
- Litestar's rate-limit middleware, once per counted route: registering players
  (``POST /players``) and creating matches (``POST /matches``).
- ``AbuseGuard``, around each route: wrong tokens (401s to a request that carried a token)
  lock the address out of every route that takes a token for the rest of the window, and live
  feeds open at once are counted per address. Neither is a request rate, which is all the
  Litestar middleware counts.

Every count lives in the memory of its process: with N processes an address gets up to N
times each limit.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote_plus

import msgspec
from litestar import Request, Response
from litestar.config.cors import CORSConfig
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, RateLimitMiddleware
from litestar.openapi.spec import OpenAPI, OpenAPIHeader, OpenAPIResponse, Operation, Schema
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.api.edges.client_address import Network, client_address, parse_proxies
from app.api.edges.error_handlers import error_response
from app.api.edges.errors import ErrorBody, ErrorDetail, RateLimitedError
from app.api.edges.limits_config import SECONDS, Limits, Rate
from app.api.edges.logs import CREDENTIAL_PARAMETERS
from app.api.edges.tokens import (
    AGENT_PREFIX,
    PLAYER_PREFIX,
    SEAT_PREFIX,
    TICKET_PREFIX,
    bearer,
    normalised_token,
    read_claim,
)
from app.api.settings import ApiSettings

ISSUED_PREFIXES: Final = (SEAT_PREFIX, PLAYER_PREFIX, AGENT_PREFIX, TICKET_PREFIX)
"""How the tokens this server issues begin (seat tokens from before prefixes: read_claim)."""

ALLOW_HEADERS: Final = ("Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID")
"""The request headers a browser may send from an allowed origin."""

EXPOSE_HEADERS: Final = (
    "Location",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
)
"""The response headers a script on an allowed origin may read."""

ALLOW_METHODS: Final = ("GET", "POST", "PATCH", "DELETE", "OPTIONS")
"""The methods of the API's routes."""

FEED_RETRY_SECONDS: Final = 10
"""The ``Retry-After`` of a feed refused for too many open ones (a feed may end any time)."""

UNKNOWN_CLIENT: Final = "unknown"
"""The address of a request whose peer the server does not know (a Unix socket)."""

MAX_TRACKED: Final = 10_000
"""Addresses tracked before the finished ones are forgotten."""

_FEED_PATH: Final = re.compile(r"^/matches/[^/]+/events/?$")
"""The live feed route."""


def cors_config(origins: tuple[str, ...]) -> CORSConfig | None:
    """Litestar's CORS for ``origins``; None (no CORS at all) when there are none."""
    if not origins:
        return None
    return CORSConfig(
        allow_origins=list(origins),
        allow_methods=list(ALLOW_METHODS),
        allow_headers=list(ALLOW_HEADERS),
        expose_headers=list(EXPOSE_HEADERS),
        allow_credentials=False,  # no cookies: tokens and tickets carry every credential
        max_age=600,
    )


def _peer(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else UNKNOWN_CLIENT


class Edge:
    """The outermost layer: the client's address, and only allowed origins reach CORS."""

    def __init__(self, app: ASGIApp, proxies: tuple[Network, ...], cors: CORSConfig | None):
        self.app = app
        self.proxies = proxies
        self.cors = cors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Rewrite the request's client and headers, then pass it on."""
        if scope["type"] == ScopeType.HTTP:
            if self.proxies and scope.get("client"):
                peer, port = scope["client"]  # type: ignore[misc]
                found = client_address(peer, scope["headers"], self.proxies)
                scope["client"] = (found or peer, port)
            origin = next((v for k, v in scope["headers"] if k.lower() == b"origin"), None)
            if origin is not None and (
                self.cors is None or not self.cors.is_origin_allowed(origin.decode("latin-1"))
            ):
                scope["headers"] = [(k, v) for k, v in scope["headers"] if k.lower() != b"origin"]
        await self.app(scope, receive, send)


def with_edge(app_handler: ASGIApp, settings: ApiSettings, cors: CORSConfig | None) -> ASGIApp:
    """``app_handler`` behind ``Edge`` when proxies or origins are configured."""
    proxies = parse_proxies(settings.trusted_proxies)
    if not proxies and cors is None:
        return app_handler
    return Edge(app_handler, proxies, cors)


@dataclass
class CountedRequests(RateLimitConfig):
    """Litestar's rate limit on one route, naming what it counts when it refuses."""

    label: str = "requests"


class CountedRequestsMiddleware(RateLimitMiddleware):
    """Litestar's rate-limit middleware, refusing in the API's own error shape."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count the request; over the limit, ``rate_limited`` with ``Retry-After``."""
        try:
            await super().__call__(scope, receive, send)
        except TooManyRequestsException as exc:
            headers = dict(exc.headers or {})
            reset = int(headers.get(self.config.rate_limit_reset_header_key, "1"))
            label = self.config.label if isinstance(self.config, CountedRequests) else "requests"
            raise RateLimitedError(
                f"too many {label} from this address; retry in {max(1, reset)} s", reset, headers
            ) from None


def _route(method: str, path: str) -> Callable[[Request[Any, Any, Any]], bool]:
    def counted(request: Request[Any, Any, Any]) -> bool:
        return request.method == method and request.scope["path"].rstrip("/") == path

    return counted


def _identify(label: str) -> Callable[[Request[Any, Any, Any]], str]:
    def identifier(request: Request[Any, Any, Any]) -> str:
        return f"{label} {_peer(request.scope)}"  # one count per limit and address

    return identifier


def _request_limit(rate: Rate | None, method: str, path: str, label: str) -> list[DefineMiddleware]:
    if rate is None:
        return []
    config = CountedRequests(
        rate_limit=(rate.unit, rate.count),
        check_throttle_handler=_route(method, path),
        identifier_for_request=_identify(label),
        middleware_class=CountedRequestsMiddleware,
        label=label,
    )
    return [config.middleware]


class AbuseCounters:
    """Wrong tokens per address in fixed windows, and live feeds open per address."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._wrong: dict[str, tuple[float, int]] = {}  # address: (window end, count)
        self._feeds: dict[str, int] = {}

    def locked_for(self, address: str) -> int | None:
        """Seconds until ``address`` may present a token again; None when it may now."""
        rate = self.limits.wrong_tokens
        window = self._wrong.get(address)
        if rate is None or window is None:
            return None
        end, count = window
        left = end - self.clock()
        if left <= 0 or count < rate.count:
            return None
        return max(1, math.ceil(left))

    def wrong_token(self, address: str) -> None:
        """``address`` presented a token that authentication refused."""
        rate = self.limits.wrong_tokens
        if rate is None:
            return
        now = self.clock()
        end, count = self._wrong.get(address, (0.0, 0))
        if end <= now:
            if len(self._wrong) >= MAX_TRACKED:
                self._wrong = {a: w for a, w in self._wrong.items() if w[0] > now}
            end, count = now + SECONDS[rate.unit], 0
        self._wrong[address] = (end, count + 1)

    def open_feed(self, address: str) -> bool:
        """Count a feed opened by ``address``; False (nothing counted) when it has its fill."""
        allowed = self.limits.feeds
        open_now = self._feeds.get(address, 0)
        if allowed is not None and open_now >= allowed:
            return False
        self._feeds[address] = open_now + 1
        return True

    def close_feed(self, address: str) -> None:
        """A feed of ``address`` ended."""
        left = self._feeds.get(address, 0) - 1
        if left > 0:
            self._feeds[address] = left
        else:
            self._feeds.pop(address, None)


def _presented(scope: Scope) -> list[str]:
    """Every credential the request presents, normalised: the bearer token, and the values of
    ``access_token`` and ``ticket`` by their decoded names."""
    found = [
        bearer(v.decode("latin-1")) or ""
        for k, v in scope["headers"]
        if k.lower() == b"authorization"
    ]
    query = scope.get("query_string", b"").decode("latin-1")
    for pair in re.split(r"[&;]", query):
        name, _, value = pair.partition("=")
        if unquote_plus(name).strip() in CREDENTIAL_PARAMETERS:
            found.append(normalised_token(unquote_plus(value)) or "")
    return found


def _issued_shape(scope: Scope) -> bool:
    """True when every credential presented is shaped like a token this server issues."""
    presented = _presented(scope)
    return bool(presented) and all(
        token.startswith(ISSUED_PREFIXES) or read_claim(token) is not None for token in presented
    )


def carries_credential(scope: Scope) -> bool:
    """The request presents a credential: a bearer header, a token or a ticket in the query
    (by the parameter's decoded name, as the routes read it)."""
    return bool(_presented(scope))


class AbuseGuard:
    """Per route: an address locked out for wrong tokens, and its feeds open at once."""

    def __init__(self, app: ASGIApp, counters: AbuseCounters) -> None:
        self.app = app
        self.counters = counters

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse with ``rate_limited`` over a limit; count what the response says."""
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        address = _peer(scope)
        counters = self.counters
        if counters.limits.wrong_tokens is not None and carries_credential(scope):
            # A right issued token is served even while the address is locked out: issued
            # tokens carry 256 random bits, so a lockout only refuses further wrong ones (each
            # 429, still counted), and one bad client behind a shared address locks nobody
            # out. Anything not shaped like an issued token (the operator's support token, of
            # a strength the server does not choose, or a guess at it) is refused unread.
            wait = counters.locked_for(address)
            if wait is not None and not _issued_shape(scope):
                raise RateLimitedError(
                    f"too many wrong tokens from this address; retry in {wait} s",
                    wait,
                    self._lockout_headers(wait),
                )
            send = self._counting_refusals(send, address)
        if counters.limits.feeds is None or not _is_feed(scope):
            await self.app(scope, receive, send)
            return
        if not counters.open_feed(address):
            feeds = counters.limits.feeds
            raise RateLimitedError(
                f"too many live feeds open from this address ({feeds}); "
                f"close one or retry in {FEED_RETRY_SECONDS} s",
                FEED_RETRY_SECONDS,
                rate_limit_headers(feeds, FEED_RETRY_SECONDS, f"{feeds}"),
            )
        try:
            await self.app(scope, receive, send)
        finally:
            counters.close_feed(address)

    def _counting_refusals(self, send: Send, address: str) -> Send:
        """``send`` counting each 401 as a wrong token; once the address is locked out, a 401
        goes out as 429 ``rate_limited`` instead (its body replaced), with ``Retry-After``."""
        replaced = False

        async def counting(message: Message) -> None:
            nonlocal replaced
            if replaced:
                return  # the body of the 401 that went out as a 429
            if message["type"] == "http.response.start" and message["status"] == 401:
                wait = self.counters.locked_for(address)
                self.counters.wrong_token(address)
                if wait is not None:
                    replaced = True
                    for part in self._locked_out(wait):
                        await send(part)
                    return
            await send(message)

        return counting

    def _lockout_headers(self, wait: int) -> dict[str, str]:
        """The ``RateLimit-*`` headers of the ``wrong_tokens`` limit, nothing left."""
        rate = self.counters.limits.wrong_tokens
        assert rate is not None
        return rate_limit_headers(rate.count, wait, f"{rate.count}; w={SECONDS[rate.unit]}")

    def _locked_out(self, wait: int) -> list[Message]:
        """The 429 a wrong token gets from a locked-out address, as ASGI messages."""
        rate = self.counters.limits.wrong_tokens
        assert rate is not None
        body = msgspec.json.encode(
            ErrorBody(
                error=ErrorDetail(
                    code=RateLimitedError.code,
                    message=f"too many wrong tokens from this address; retry in {wait} s",
                )
            )
        )
        headers = {"content-type": "application/json", "retry-after": str(wait)}
        headers |= self._lockout_headers(wait)
        start: Message = {
            "type": "http.response.start",
            "status": 429,
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]
            + [(b"content-length", str(len(body)).encode())],
        }
        return [start, {"type": "http.response.body", "body": body, "more_body": False}]


def rate_limit_headers(limit: int, reset: int, policy: str) -> dict[str, str]:
    """The ``RateLimit-*`` headers of a limit with nothing left until ``reset`` seconds."""
    return {
        "RateLimit-Limit": str(limit),
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": str(reset),
        "RateLimit-Policy": policy,
    }


def _is_feed(scope: Scope) -> bool:
    return scope.get("method") == "GET" and is_feed_path(scope["path"])


def is_feed_path(path: str) -> bool:
    """True for the path of a match's live feed (``/matches/{id}/events``)."""
    return _FEED_PATH.match(path) is not None


def limit_middleware(limits: Limits, counters: AbuseCounters) -> list[DefineMiddleware]:
    """The route middleware of ``limits``: nothing at all for a limit that is off."""
    middleware = _request_limit(limits.players, "POST", "/players", "players registered")
    middleware += _request_limit(limits.matches, "POST", "/matches", "matches created")
    if limits.wrong_tokens is not None or limits.feeds is not None:
        middleware.append(DefineMiddleware(AbuseGuard, counters=counters))
    return middleware


def handle_rate_limited(_: Request[Any, Any, Any], exc: RateLimitedError) -> Response[ErrorBody]:
    """429 ``rate_limited`` in the one error shape, with ``Retry-After`` in seconds and the
    limit's ``RateLimit-*`` headers."""
    response = error_response(exc.code, exc.message, 429)
    response.headers.update(exc.headers)
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


RATE_LIMITED_MEANING: Final = (
    "Over a limit for this client address (`rate_limited`): matches created, players "
    "registered, wrong tokens, live feeds open; wait `Retry-After` seconds"
)
"""What a 429 says in the OpenAPI document."""


def document_limits(openapi: OpenAPI) -> None:
    """Every operation may answer 429: a locked-out address is refused wherever it sends a
    token, and the counted routes over their rate. Added in place when the app is built."""
    for path_item in (openapi.paths or {}).values():
        for name in ("get", "post", "patch", "put", "delete"):
            operation = getattr(path_item, name, None)
            if isinstance(operation, Operation):
                _add_429(operation)


def _add_429(operation: Operation) -> None:
    responses = operation.responses if operation.responses is not None else {}
    shape = next(
        (
            r.content
            for status, r in responses.items()
            if status[:1] in ("4", "5") and isinstance(r, OpenAPIResponse) and r.content
        ),
        None,
    )
    if shape is None or "429" in responses:
        return
    responses["429"] = OpenAPIResponse(
        description=RATE_LIMITED_MEANING,
        content=shape,
        headers={
            "Retry-After": OpenAPIHeader(
                schema=Schema(type="integer", minimum=1),  # type: ignore[arg-type]
                description="Seconds to wait before trying again",
            )
        },
    )
    operation.responses = responses
