"""The Litestar application: controllers, the one error shape, OpenAPI 3.1 at ``/schema``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import msgspec
from litestar import Litestar, get
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig

from app.api.edges.caching import NoStoreForCredentials
from app.api.edges.callers import CALLERS
from app.api.edges.error_handlers import EXCEPTION_HANDLERS
from app.api.edges.errors import RateLimitedError
from app.api.edges.head import HeadAsGet
from app.api.edges.limits import (
    AbuseCounters,
    cors_config,
    document_limits,
    handle_rate_limited,
    limit_middleware,
    with_edge,
)
from app.api.edges.metrics import Observed, instrument, metrics
from app.api.edges.openapi import COMPONENTS, errors, fixed_length_arrays
from app.api.edges.params import Runtime
from app.api.edges.shedding import Shedding
from app.api.live.live import EventsController
from app.api.live.tickets import TicketsController
from app.api.matches.matches import MatchesController
from app.api.matches.rematch import RematchController
from app.api.matches.replay import ReplayController
from app.api.players.devices import DevicesController
from app.api.players.players import PlayersController
from app.api.pool.pool import PoolController
from app.api.results.results import LadderController, ResultsController
from app.api.rules.rules import RulesController
from app.api.settings import ApiSettings
from app.api.support.desk import SupportController
from app.api.support.refusals import keep_refusal
from app.api.support.reports import MyReportsController, ReportsController
from app.api.table.seat import SeatController
from app.api.verification.analysis import AnalysisController
from app.api.verification.verification import VerificationController
from app.config import resolve_store
from app.errors import StoreUnavailableError
from app.runtime.runtime import ApiRuntime, runtime_of
from app.service import MatchService
from app.web import WEB_ROUTES, schema_render_plugins

log = logging.getLogger("basra.api")

API_VERSION = "1"
"""The version of the HTTP API (docs/api.md)."""


class HealthResponse(msgspec.Struct, frozen=True):
    """The process answers and its event store can be reached."""

    status: Literal["ok"]


@get("/health", tags=["server"], responses=errors(503))
async def health(runtime: Runtime) -> HealthResponse:
    """200 when the process answers and can read its event store, else 503 ``store_unavailable``."""
    await _store_answers(runtime)
    return HealthResponse("ok")


async def _store_answers(runtime: ApiRuntime) -> None:
    """Raise ``StoreUnavailableError`` unless the event store answers a read now."""
    try:
        await runtime.call(runtime.service.store.max_position)
    except Exception as error:  # whatever the store raises, it cannot be reached for now
        log.warning("health check: the event store cannot be reached: %r", error)
        raise StoreUnavailableError("the event store cannot be reached") from None


@get("/ready", tags=["server"], responses=errors(503))
async def ready(runtime: Runtime) -> HealthResponse:
    """200 when this process should get traffic: its store answers and it is not stopping.

    A proxy stops sending requests on 503 (docs/deploy.md); ``/health`` stays for liveness.
    """
    if runtime.broker.closing:
        raise StoreUnavailableError("this process is stopping")
    await _store_answers(runtime)
    return HealthResponse("ok")


def _store_wait_ms(app: Litestar) -> float:
    """The median wait of ``app``'s last second of store calls for a thread (app.runtime.waits)."""
    runtime = getattr(app.state, "runtime", None)
    return runtime.waits.median_ms() if isinstance(runtime, ApiRuntime) else 0.0


def _open_feeds(app: Litestar) -> int:
    """The feeds ``app``'s process holds open now (0 before it has started)."""
    runtime = getattr(app.state, "runtime", None)
    return runtime.broker.open_streams if isinstance(runtime, ApiRuntime) else 0


def create_app(
    service: MatchService | None = None,
    *,
    db: Path | None = None,
    database_url: str | None = None,
    settings: ApiSettings | None = None,
) -> Litestar:
    """The API over ``service`` (kept open), or over a store it opens (and closes) itself.

    Without a service it opens ``MatchService.open(db, database_url)`` at startup: the SQLite
    file ``db`` unless PostgreSQL is configured (app.config).
    """
    settings = settings or ApiSettings.from_env()
    cors = cors_config(settings.cors_origins)
    counters = AbuseCounters(settings.limits)  # this process's counts (docs/api.md, limits)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        owned = service is None
        svc = MatchService.open(db, database_url) if service is None else service
        instrument(svc)  # commands and store calls counted for /metrics
        runtime = ApiRuntime(svc, settings)
        app.state.runtime = runtime
        await runtime.start()
        try:
            yield
        finally:
            await runtime.stop()
            if owned:
                svc.close()

    app = Litestar(
        route_handlers=[
            MatchesController,
            PlayersController,
            DevicesController,
            PoolController,
            RulesController,
            SeatController,
            RematchController,
            EventsController,
            ReplayController,
            VerificationController,
            AnalysisController,
            TicketsController,
            ResultsController,
            LadderController,
            ReportsController,
            MyReportsController,
            SupportController,
            health,
            ready,
            metrics,
            *WEB_ROUTES,
        ],
        dependencies={"runtime": Provide(runtime_of, sync_to_thread=False), **CALLERS},
        exception_handlers={**EXCEPTION_HANDLERS, RateLimitedError: handle_rate_limited},  # type: ignore[dict-item]
        middleware=limit_middleware(settings.limits, counters),
        cors_config=cors,
        lifespan=[lifespan],
        after_exception=[keep_refusal],
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="Basra match API",
            version=API_VERSION,
            description=(
                "Create matches, take seats, view, preview and play cards, follow live events "
                "(SSE) and fetch replay files. Every 4xx (and 5xx) body is "
                '`{"error": {"code", "message"}}`.'
            ),
            path="/schema",
            components=COMPONENTS,
            render_plugins=schema_render_plugins(),  # offline: served from app/web/vendor
        ),
    )
    fixed_length_arrays(app.openapi_schema)  # built here, before it is first served
    document_limits(app.openapi_schema)
    shedding = Shedding(
        HeadAsGet(NoStoreForCredentials(app.asgi_handler)),
        settings,
        lambda: _open_feeds(app),
        lambda: _store_wait_ms(app),
        service.store.backend.kind if service is not None else resolve_store(db, database_url).kind,
    )
    app.asgi_handler = Observed(with_edge(shedding, settings, cors))
    return app
