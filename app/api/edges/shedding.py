"""Shedding load: what a busy process refuses early and cheaply, and what it never refuses.

A process past its capacity (docs/performance.md, "Capacity at human pace") must not collapse:
it keeps serving the tables already playing and refuses new work before it reaches the app.
Refused, with 503 ``overloaded`` and ``Retry-After``: a new table (``POST /matches``), a
spectator's feed (``GET /matches/{id}/events`` without a token or ticket) and a lobby read
(``GET /matches``). Never refused: a play, a seat's view, a seated player's feed (opening or
resuming), so a shed player never loses on the clock (R25).

A new table is admitted at the rate the process can take (app/api/edges/admission.py): the rate is
cut each half second the process is full (it serves more than one request at a time and uses
``shed_cpu`` of a core, or the median wait for a store thread of the last second's calls is past its
store's ``shed_wait_ms``: app/runtime/waits.py, or its median request of the last half second took
longer than twice the lowest median of the last ten minutes or its store's ``shed_latency_ms``)
and grows back slowly while it is not. Spectator
feeds and lobby reads are refused while the process has been full for a second. Everything sheddable
is refused while the event loop runs late by more than ``shed_lag_ms`` (measured by a timer every
``PROBE_SECONDS``) at every one of the last ``PROBES_KEPT`` probes, about a second: a loop that is
saturated, not one pause of the collector or of a busy machine (a single late probe sheds nothing);
or while the process holds ``max_feeds`` open feeds or more. Each refusal is counted in ``/metrics``
as ``basra_shed_total{kind}`` (``table``, ``spectator_feed``, ``lobby``), and the rate of new tables
as ``basra_table_admission_rate``, and the median request time it last looked at as
``basra_request_median_seconds``. The check happens before routing, so a refused request reads
nothing and changes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    Scope,
    Send,
)
from prometheus_client import Counter, Gauge

from app.api.edges.admission import FULL_CONCURRENCY, LatencyFloor, ProcessLoad, TableAdmission
from app.api.edges.errors import OverloadedError
from app.api.settings import ApiSettings
from app.config import StoreKind

SHED: Final = Counter("basra_shed", "Requests refused with 503 overloaded, by kind.", ["kind"])
ADMISSION_RATE: Final = Gauge(
    "basra_table_admission_rate", "New tables a second this process admits now."
)
REQUEST_MEDIAN: Final = Gauge(
    "basra_request_median_seconds",
    "The median time to answer a request at the admission's last look (0: too few answered).",
)

RETRY_AFTER_SECONDS: Final = 5
"""How long a refused client waits before it asks again."""

PROBE_SECONDS: Final = 0.1
"""How often the event loop's lateness is measured."""

PROBES_KEPT: Final = 10
"""The last this many probes (about a second) must all be late for the loop to count as late."""

_BODY: Final = (
    b'{"error":{"code":"overloaded","message":"this server is busy: retry after '
    + str(RETRY_AFTER_SECONDS).encode()
    + b' seconds"}}'
)


def shed_kind(scope: Scope) -> str | None:
    """What a request would add that may be shed (``table``, ``spectator_feed``, ``lobby``),
    or None for what is never shed."""
    if scope["type"] != ScopeType.HTTP:
        return None
    method = scope["method"]
    path = scope["path"].rstrip("/")
    if path == "/matches":
        if method == "POST":
            return "table"
        return "lobby" if method in ("GET", "HEAD") else None
    if method == "GET" and path.startswith("/matches/") and path.endswith("/events"):
        if any(name == b"authorization" for name, _ in scope["headers"]):
            return None
        query = scope.get("query_string", b"")
        if b"ticket=" in query or b"access_token=" in query:
            return None  # a seat's (or support's) feed: never shed
        return "spectator_feed"
    return None


def _counted(scope: Scope) -> bool:
    """Whether a request counts towards how many a process serves at a time: an HTTP request
    that is answered, not a feed held open for the match's length."""
    return scope["type"] == ScopeType.HTTP and not scope["path"].rstrip("/").endswith("/events")


class LoopLag:
    """How late the event loop runs: a timer every ``PROBE_SECONDS`` notes its own lateness."""

    def __init__(self) -> None:
        self._recent: list[float] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due = 0.0

    def sustained_ms(self) -> float:
        """The least lateness of the last ``PROBES_KEPT`` probes, in ms: how late the loop has
        been all along (0 until that many probes were made)."""
        self.ensure()
        if len(self._recent) < PROBES_KEPT:
            return 0.0
        return min(self._recent) * 1000

    def ensure(self) -> None:
        """Probe the running loop (started on the first request a loop serves)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
            self._recent = []
            self._due = loop.time() + PROBE_SECONDS
            loop.call_at(self._due, self._probe)

    def _probe(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        now = loop.time()
        self._recent.append(max(0.0, now - self._due))
        del self._recent[:-PROBES_KEPT]
        self._due = now + PROBE_SECONDS
        loop.call_at(self._due, self._probe)


class Shedding:
    """The ASGI edge that refuses sheddable requests while the process is overloaded."""

    def __init__(
        self,
        app: ASGIApp,
        settings: ApiSettings,
        open_feeds: Callable[[], int],
        store_wait_ms: Callable[[], float] = lambda: 0.0,
        store_kind: StoreKind = "memory",
    ):
        self.app = app
        self.settings = settings
        self.open_feeds = open_feeds
        self.store_wait_ms = store_wait_ms
        # The median wait for a store thread that makes this process full, by its store.
        self.wait_limit_ms = settings.shed_wait_ms_on(store_kind)
        # The median time to answer a request past which this process is full, by its store.
        self.latency_limit_ms = settings.shed_latency_ms_on(store_kind)
        self.lag = LoopLag()
        self.load = ProcessLoad()
        self.floor = LatencyFloor()
        signals = settings.shed_cpu or self.wait_limit_ms or self.latency_limit_ms
        self.admission = TableAdmission(self._full if signals else None)

    def _full(self) -> bool:
        """Whether the process was full since the last look (app/api/edges/admission.py): it
        served more than ``FULL_CONCURRENCY`` requests at a time, and used ``shed_cpu`` of a
        core or more, or its store calls waited a median past its store's ``shed_wait_ms``, or
        its median request took longer than twice its floor or its store's
        ``shed_latency_ms``."""
        load = self.load.sample()
        REQUEST_MEDIAN.set(load.median_ms / 1000)
        self.floor.note(load.median_ms)
        if load.concurrency < FULL_CONCURRENCY:
            return False
        settings = self.settings
        if settings.shed_cpu and load.cpu_share >= settings.shed_cpu:
            return True
        if self.latency_limit_ms and load.median_ms > self.floor.target_ms(self.latency_limit_ms):
            return True
        return bool(self.wait_limit_ms) and self.store_wait_ms() > self.wait_limit_ms

    def overloaded(self) -> bool:
        """True while the loop runs too late or too many feeds are open: nothing new is taken."""
        settings = self.settings
        if settings.max_feeds and self.open_feeds() >= settings.max_feeds:
            return True
        return bool(settings.shed_lag_ms) and self.lag.sustained_ms() > settings.shed_lag_ms

    def refuses(self, kind: str) -> bool:
        """Whether a sheddable request of ``kind`` is refused now."""
        if self.overloaded():
            return True
        admission = self.admission
        # A new table takes a token; a spectator or a lobby read waits out a full process.
        admitted = admission.admit() if kind == "table" else not admission.saturated()
        ADMISSION_RATE.set(admission.rate)
        return not admitted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a sheddable request while overloaded; pass everything else through."""
        if scope["type"] == ScopeType.HTTP:
            self.lag.ensure()
        kind = shed_kind(scope)
        if kind is None or not self.refuses(kind):
            if not _counted(scope):
                await self.app(scope, receive, send)
                return
            began = self.load.started()
            try:
                await self.app(scope, receive, send)
            finally:
                self.load.ended(began)
            return
        SHED.labels(kind).inc()
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": OverloadedError.http_status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(_BODY)).encode()),
                (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
        body: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": _BODY,
            "more_body": False,
        }
        await send(start)
        await send(body)
