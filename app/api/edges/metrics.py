"""What operators watch: ``/metrics`` in the Prometheus text format, and request lines.

Every serving process counts into prometheus-client's metrics. With several processes
(``basra serve --workers N``, or granian's workers) ``basra serve`` gives them one fresh
directory in ``PROMETHEUS_MULTIPROC_DIR`` before any of them starts, each process writes its
values to files there, and whichever process answers ``/metrics`` sums them all
(prometheus-client's multiprocess mode; docs/deploy.md). Without that variable (one process,
the tests) the process's own registry is served.

What is measured:

- ``basra_commands_total{kind, outcome}``: commands through the service (create, seat, play,
  leave, the clock's expiries and closures, rematch links, imports); outcome ``ok`` or the
  refusal's ``code`` (``not_your_turn``, ``conflict``, ``store_unavailable``, ...).
- ``basra_request_seconds{method, route, status}``: from a request's arrival to its response's
  headers, by route template (``/matches/{match_id}/plays``), never the raw path, so the
  series stay few. A live feed counts until its stream starts, not for as long as it runs.
- ``basra_store_seconds{operation}``: the event store's ``append`` and ``read`` calls.
- ``basra_open_feeds``: live SSE feeds open now, summed over the live processes.
- ``basra_open_connections``: HTTP connections open now; ``basra_connections_closed_total
  {reason}``: those the server closed, ``slow_head`` (no request head within 10 s) or
  ``vanished`` (the peer stopped acknowledging; app.api.edges.connections).
- ``basra_readmodel_lag_events``: log entries the answering process's read models have not
  folded yet (its read-model file's position against the global log's last position).
- ``basra_shed_total{kind}``: requests a busy process refused with 503 ``overloaded``
  (``table``, ``spectator_feed``, ``lobby``; app.api.edges.shedding).
- ``basra_clock_expiry_lateness_seconds``: how long after a turn's deadline (R25) the clock's
  ``turn_expired`` was recorded.

The metrics observe the service's command outcomes and its store's timed calls (``instrument``
registers the two observers when the app starts), so neither layer knows of Prometheus.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.to_thread
from litestar import Response, get
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from app.api.edges.params import Runtime
from app.runtime.runtime import ApiRuntime
from app.service import MatchService
from app.service.clocks import epoch_ms
from app.service.outcome import Outcome
from domain.commands import ExpireTurn

log = logging.getLogger("basra.api.requests")
# Request lines only where they are asked for (``--log-format json`` sets this logger to INFO);
# a server's default logging would otherwise print one for every request.
log.setLevel(logging.WARNING)

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
"""The directory several processes share their values through (prometheus-client's name)."""

LATENCY_BUCKETS: Final = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip
"""Seconds: a play on SQLite takes about a millisecond, a locked store up to its 5 s wait."""

LATENESS_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Seconds after a deadline: the clock wakes at it, then waits for the match's lock."""

LAG_SECONDS: Final = 2.0
"""How long a scrape waits for the store to measure the read models' lag."""

COMMANDS: Final = Counter(
    "basra_commands", "Commands through the service, by kind and outcome.", ["kind", "outcome"]
)
REQUEST_SECONDS: Final = Histogram(
    "basra_request_seconds",
    "Seconds from a request's arrival to its response's headers, by route template.",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
STORE_SECONDS: Final = Histogram(
    "basra_store_seconds",
    "Seconds an event-store call took, by operation (append, read).",
    ["operation"],
    buckets=LATENCY_BUCKETS,
)
OPEN_FEEDS: Final = Gauge(
    "basra_open_feeds", "Live SSE feeds open now.", multiprocess_mode="livesum"
)
OPEN_CONNECTIONS: Final = Gauge(
    "basra_open_connections",
    "HTTP connections open now (basra serve on uvicorn).",
    multiprocess_mode="livesum",
)
CONNECTIONS_CLOSED: Final = Counter(
    "basra_connections_closed",
    "Connections the server closed: slow_head (no request head in time), vanished (peer gone).",
    ["reason"],
)
READMODEL_LAG: Final = Gauge(
    "basra_readmodel_lag_events",
    "Global log entries the read models have not folded yet.",
    multiprocess_mode="livemostrecent",
)
EXPIRY_LATENESS: Final = Histogram(
    "basra_clock_expiry_lateness_seconds",
    "Seconds from a turn's deadline to the record time of its turn_expired (R25).",
    buckets=LATENESS_BUCKETS,
)

_MARK: Final = "_basra_metrics"
"""Set on a service once it is observed, so a second app over it counts nothing twice."""

_REQUEST_ID: Final = re.compile(r"^[\w.:-]{1,64}$")
"""An ``X-Request-ID`` from a proxy is kept when it looks like one, else a fresh one is made."""

FEED_ROUTE: Final = "/matches/{match_id}/events"
"""The live feed's route template (counted in ``basra_open_feeds`` while it streams)."""


def observe_outcome(outcome: Outcome) -> None:
    """Count one command by kind and outcome; an expiry's lateness past its deadline (R25)."""
    COMMANDS.labels(outcome.kind, outcome.code).inc()
    command = outcome.command
    if isinstance(command, ExpireTurn) and outcome.recorded:
        late_ms = epoch_ms(outcome.recorded[0].at) - epoch_ms(command.deadline)
        EXPIRY_LATENESS.observe(max(0, late_ms) / 1000)


def observe_store_call(operation: str, seconds: float) -> None:
    """Time one event-store call (``append`` or ``read``)."""
    STORE_SECONDS.labels(operation).observe(seconds)


def instrument(service: MatchService) -> None:
    """Count ``service``'s commands and time its store's calls (once per service)."""
    if getattr(service, _MARK, False):
        return
    service.add_observer(observe_outcome)
    service.store.time_calls(observe_store_call)
    setattr(service, _MARK, True)


def registry() -> CollectorRegistry:
    """The registry to serve: every process's values summed when they share a directory."""
    if not os.environ.get(MULTIPROC_ENV):
        return REGISTRY
    summed = CollectorRegistry()
    multiprocess.MultiProcessCollector(summed)  # type: ignore[no-untyped-call]
    return summed


def readmodel_lag(runtime: ApiRuntime) -> int:
    """Log entries past the read models' position (read now; nothing is folded)."""
    log_position = runtime.service.store.max_position()
    return max(0, log_position - runtime.projections.matches.position())


@get("/metrics", include_in_schema=False)
async def metrics(runtime: Runtime) -> Response[bytes]:
    """The Prometheus text format; the read models' lag is measured as it is asked for."""
    try:
        # A store that is down can take tens of seconds to refuse (docs/deploy.md): the scrape
        # answers without the lag rather than wait for it.
        with anyio.move_on_after(LAG_SECONDS):
            lag = await anyio.to_thread.run_sync(readmodel_lag, runtime, abandon_on_cancel=True)
            READMODEL_LAG.set(lag)
    except Exception as error:  # the store is down: the rest of the metrics still answer
        log.warning("metrics: read-model lag not measured: %r", error)
    # not on the store's threads: those may all be waiting on a store that is down
    body = await anyio.to_thread.run_sync(generate_latest, registry())
    return Response(body, media_type=CONTENT_TYPE_LATEST)


@contextlib.contextmanager
def shared_values() -> Iterator[Path]:
    """A fresh directory for the values of the worker processes started inside the block.

    ``$PROMETHEUS_MULTIPROC_DIR`` when the operator set it (it must be empty at start, as
    prometheus-client requires), else a new temporary directory removed afterwards.
    """
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        if any(Path(given).glob("*.db")):
            log.warning(
                "%s=%s holds values of an earlier run; empty it first", MULTIPROC_ENV, given
            )
        yield Path(given)
        return
    made = Path(tempfile.mkdtemp(prefix="basra-metrics-"))
    os.environ[MULTIPROC_ENV] = str(made)
    try:
        yield made
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(made, ignore_errors=True)


def mark_process_dead(pid: int) -> None:
    """Drop a dead worker's live gauges from the shared directory (prometheus-client)."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def request_id_of(scope: Scope) -> str:
    """The request's id: a proxy's sane ``X-Request-ID``, else a fresh ``req-…``."""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _REQUEST_ID.match(text):
                return text
    return f"req-{secrets.token_hex(8)}"


CLIENT_CLOSED: Final = 499
"""The status a request is counted under when its client closed the connection before the
request was whole (a body cut short): what it was, not a server error (nginx's 499)."""


class Observed:
    """Outermost ASGI layer: a request id, the latency histogram, open feeds, a request line.

    The route template is read from the scope after Litestar has routed the request (it sets
    ``path_template`` on the scope it was given); a path that names no route is ``unmatched``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, measured; the request line is logged when it ends."""
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = request_id_of(scope)
        scope["basra_request_id"] = request_id  # type: ignore[typeddict-unknown-key]
        state = {"status": 0, "seconds": 0.0, "feed": False, "gone": False}

        async def observed_receive() -> ReceiveMessage:
            message = await receive()
            if message["type"] == "http.disconnect":
                state["gone"] = True  # the client left before its request was whole
            return message

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message["status"])
                if status >= 500 and state["gone"]:
                    # Not the server's fault: the client closed the connection mid-request.
                    status = CLIENT_CLOSED
                state["status"] = status
                state["seconds"] = time.perf_counter() - started
                route = scope.get("path_template") or "unmatched"
                REQUEST_SECONDS.labels(scope.get("method", "?"), route, str(status)).observe(
                    state["seconds"]
                )
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", ()),
                        (b"x-request-id", request_id.encode()),
                    ],
                }
                if route == FEED_ROUTE and status == 200:
                    state["feed"] = True
                    OPEN_FEEDS.inc()
            await send(message)

        try:
            await self.app(scope, observed_receive, observed_send)
        finally:
            if state["feed"]:
                OPEN_FEEDS.dec()
            if log.isEnabledFor(logging.INFO):
                _log_request(scope, request_id, state, time.perf_counter() - started)


def _log_request(scope: Scope, request_id: str, state: dict[str, Any], total: float) -> None:
    """One line per request; the JSON formatter (app.api.edges.logs) writes its fields."""
    client = scope.get("client")
    query = scope.get("query_string", b"").decode("latin-1")
    path = scope.get("path", "") + (f"?{query}" if query else "")
    fields = {
        "request_id": request_id,
        "method": scope.get("method"),
        "path": path,  # tokens in it are blanked by the logs' filter and formatter
        "route": scope.get("path_template") or "unmatched",
        "status": state["status"],
        "ms": round(state["seconds"] * 1000, 3),
        "total_ms": round(total * 1000, 3),
        "client": client[0] if client else None,
    }
    log.info(
        "%s %s %s %s",
        fields["method"],
        path,
        fields["status"],
        request_id,
        extra={"request": fields},
    )
