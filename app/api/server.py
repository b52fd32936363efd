"""Running the API under uvicorn: one process, or several workers sharing one listening socket.

Several workers need PostgreSQL (each is a separate process with its own connections; the
embedded SQLite file is for one process). docs/architecture.md L11: uvicorn's own ``--workers``
binds its socket without ``IPPROTO_TCP``, so accepted connections lose ``TCP_NODELAY`` and every
keep-alive request waits ~40 ms for a delayed ACK. Here the socket is bound with the protocol
set and shared by a small supervisor with every worker, so their connections keep
``TCP_NODELAY``. A stopping server ends its open SSE feeds first (clients resume with
``Last-Event-ID``) rather than waiting for them to time out. The store is opened once before any
worker starts, so a fresh SQLite file or PostgreSQL schema is created by one process only.
"""

from __future__ import annotations

import errno
import importlib.util
import logging
import multiprocessing
import multiprocessing.process
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import uvicorn
from litestar import Litestar

from app.api.app import create_app
from app.api.edges.collector import CollectorSettingError, collector_mode, tune_collector
from app.api.edges.connections import guarded_protocol, head_seconds_from
from app.api.edges.logs import SUPPORT_TOKEN_ENV, log_config, redact_server_logs
from app.api.edges.metrics import mark_process_dead, shared_values
from app.config import StoreConfig, resolve_store
from app.runtime.broker import close_all_feeds
from app.service import MatchService
from app.service.access import AccessService
from app.service.players import PlayerService
from domain.errors import RequestError

log = logging.getLogger("basra.api.server")

GRACEFUL_SHUTDOWN_SECONDS = 3
"""How long a stopping server waits for requests in flight (live feeds are ended first)."""

SWITCH_INTERVAL_SECONDS = 0.001
"""The GIL switch interval of a serving process (Python's default is 5 ms).

The event loop's thread does the socket I/O and gives up the GIL at each send and receive;
worker threads running the store (on PostgreSQL, and long reads on SQLite) then hold it for up
to the switch interval before the loop gets it back, a delay that lands on every request in
flight. Three paired runs of bench/bench_api.py's paced load (uvicorn, store calls on threads,
a scratch script setting the interval): p99 156, 303 and 72 ms at 1 ms against 493, 638 and
83 ms at 5 ms.
"""

KEEP_ALIVE_SECONDS = 75
"""How long an idle keep-alive connection stays open (uvicorn's default is 5 s).

A person at a table sends a play every few seconds (docs/performance.md, "Capacity at human
pace"): with 5 s, about every other play found its connection closed and paid for a new one
(accept, the socket's addresses, a fresh request cycle). 75 s is what common proxies keep;
an idle connection costs a few KB.
"""

STARTUP_SECONDS = 10.0
"""A worker that dies sooner than this after starting is a start-up failure, not a crash."""


@dataclass(frozen=True)
class ServeOptions:
    """What ``basra serve`` was asked for."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: Path | None = None
    database_url: str | None = None
    workers: int = 1
    access_log: bool = False
    log_level: str = "info"
    server: str = "uvicorn"
    log_format: str = "text"
    http: str = "auto"
    loop: str = "auto"


SERVERS = ("uvicorn", "granian")
"""The ASGI servers ``basra serve`` can run under (granian only when installed)."""

HTTP_PARSERS = ("auto", "httptools", "h11")
"""uvicorn's HTTP/1.1 parsers: ``auto`` is httptools (C) when installed, as it is by default;
h11 is pure Python (docs/architecture.md, "Why each dependency")."""

EVENT_LOOPS = ("auto", "uvloop", "asyncio")
"""The event loops: ``auto`` is uvloop (libuv) when installed, as it is by default on Linux and
macOS; asyncio is the standard library's own."""


class ServeError(RequestError):
    """The server cannot start as asked."""

    code = "cannot_serve"


def serving_app(db: Path | None = None, database_url: str | None = None) -> Litestar:
    """The app of a serving process, built in an interpreter tuned for serving: the GIL's
    switch interval, and the start-up objects frozen for the collector
    (app/api/edges/collector.py)."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    app = create_app(db=db, database_url=database_url)
    tune_collector(collector_mode())
    return app


def app_from_env() -> Litestar:
    """The app a worker process builds: the store from ``BASRA_DB`` / ``BASRA_DATABASE_URL``."""
    redact_server_logs()
    db = os.environ.get("BASRA_DB")
    return serving_app(Path(db) if db else None)


def prepare_store(options: ServeOptions) -> StoreConfig:
    """Resolve the store and open it once (creating file or tables) before serving."""
    config = resolve_store(options.db, options.database_url)
    if options.workers > 1 and not config.serves_processes:
        raise ServeError(
            "several workers need PostgreSQL (BASRA_DATABASE_URL or --database-url); "
            "the embedded SQLite store serves one process"
        )
    service = MatchService.open(options.db, options.database_url)
    try:
        # The players' and support tables too: workers creating them at once on PostgreSQL
        # collide (two CREATE TABLE IF NOT EXISTS), and the loser would fail to start.
        PlayerService(service.store)
        AccessService(service.store)
    finally:
        service.close()
    return config


def describe(config: StoreConfig) -> str:
    """The store, for the start-up message (never a password)."""
    return config.describe()


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound with ``IPPROTO_TCP``, so accepted connections get ``TCP_NODELAY``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        reason = "the port is taken" if error.errno == errno.EADDRINUSE else error.strerror
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def check_port(host: str, port: int) -> None:
    """Refuse, in one line and before anything starts, a port another process listens on."""
    probe = listening_socket(host, port)  # ServeError when it cannot be bound
    try:
        probe.listen(1)
    except OSError as error:
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    finally:
        probe.close()


class FeedClosingServer(uvicorn.Server):
    """uvicorn, ending open SSE feeds first when it stops (so it need not wait them out)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """End the live feeds cleanly, then uvicorn's own graceful shutdown."""
        close_all_feeds()
        await super().shutdown(sockets)


def _uvicorn_options(options: ServeOptions) -> dict[str, Any]:
    logging_config = log_config(options.log_format, options.log_level)
    return {
        **({"log_config": logging_config} if logging_config is not None else {}),
        "access_log": options.access_log,
        "log_level": options.log_level,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "lifespan": "on",
        # The client's address is the app's to decide, from --trusted-proxy only
        # (app.api.edges.limits): uvicorn would otherwise take X-Forwarded-For from any peer on
        # 127.0.0.1.
        "proxy_headers": False,
        # the guard against connections that hold a socket for nothing (docs/deploy.md)
        "http": guarded_protocol(options.http, head_seconds_from(os.environ)),
        "loop": options.loop,
    }


def _worker(options: ServeOptions, sock: socket.socket) -> None:
    """One worker process: the app from the environment, on the shared socket."""
    factory = "app.api.server:app_from_env"
    config = uvicorn.Config(factory, factory=True, **_uvicorn_options(options))
    redact_server_logs()  # after uvicorn has set up its loggers
    FeedClosingServer(config).run(sockets=[sock])


def serve_until_stopped(
    options: ServeOptions, announce: Callable[[StoreConfig], None] | None = None
) -> None:
    """Serve until interrupted; ``announce`` hears which store once it is ready."""
    check_options(options)
    check_port(options.host, options.port)
    config = prepare_store(options)
    if announce is not None:
        announce(config)
    if options.server == "granian":
        with shared_values():  # granian's workers are processes of their own
            _serve_granian(options)
        return
    if options.workers <= 1:
        app = serving_app(options.db, options.database_url)
        uv_config = uvicorn.Config(
            app, host=options.host, port=options.port, **_uvicorn_options(options)
        )
        redact_server_logs()  # after uvicorn has set up its loggers
        FeedClosingServer(uv_config).run()
        return
    _export_store(options)
    sock = listening_socket(options.host, options.port)
    try:
        with shared_values():  # each worker writes its values there; /metrics sums them
            _supervise(options, sock)
    finally:
        sock.close()


def check_options(options: ServeOptions) -> None:
    """Refuse a server, parser or loop that ``basra serve`` cannot run, before the store opens."""
    if options.server not in SERVERS:
        raise ServeError(f"unknown server {options.server!r}; choose uvicorn or granian")
    if options.http not in HTTP_PARSERS:
        raise ServeError(f"--http is auto, httptools or h11, not {options.http!r}")
    if options.loop not in EVENT_LOOPS:
        raise ServeError(f"--loop is auto, uvloop or asyncio, not {options.loop!r}")
    if options.server == "granian" and options.http != "auto":
        raise ServeError("--http chooses uvicorn's parser; granian parses HTTP itself")
    if options.loop == "uvloop" and importlib.util.find_spec("uvloop") is None:
        raise ServeError("uvloop is not installed (pip install uvloop); use --loop asyncio")
    if options.http == "httptools" and importlib.util.find_spec("httptools") is None:
        raise ServeError("httptools is not installed (pip install httptools); use --http h11")
    try:
        collector_mode()
    except CollectorSettingError as error:
        raise ServeError(str(error)) from None
    try:
        head_seconds_from(os.environ)
    except ValueError as error:
        raise ServeError(str(error)) from None
    support = os.environ.get(SUPPORT_TOKEN_ENV)
    if support and len(support) < MIN_SUPPORT_TOKEN_LENGTH:
        raise ServeError(
            f"{SUPPORT_TOKEN_ENV} is {len(support)} characters; it must be at least"
            f" {MIN_SUPPORT_TOKEN_LENGTH} (it is the one credential whose strength the server"
            " does not choose: make it with `python3 -c 'import secrets;"
            " print(secrets.token_urlsafe(32))'`)"
        )


MIN_SUPPORT_TOKEN_LENGTH: Final = 32
"""The shortest ``BASRA_SUPPORT_TOKEN`` a server starts with (issued tokens carry 256 bits)."""


def _export_store(options: ServeOptions) -> None:
    """Worker processes build their app from the environment: hand them the store."""
    if options.db is not None:
        os.environ["BASRA_DB"] = str(options.db)
    if options.database_url is not None:
        os.environ["BASRA_DATABASE_URL"] = options.database_url


def _serve_granian(options: ServeOptions) -> None:
    """granian (HTTP in Rust): its own workers, each a process with TCP_NODELAY connections."""
    try:
        from granian import Granian
        from granian.constants import Interfaces, Loops
    except ImportError:
        raise ServeError(
            "granian is not installed (pip install granian); use --server uvicorn"
        ) from None
    _export_store(options)
    Granian(
        "app.api.server:app_from_env",
        factory=True,
        address=options.host,
        port=options.port,
        interface=Interfaces.ASGI,
        loop=Loops(options.loop),
        workers=options.workers,
        websockets=False,
        log_access=options.access_log,
        workers_kill_timeout=GRACEFUL_SHUTDOWN_SECONDS,
        respawn_failed_workers=True,
        log_dictconfig=log_config(options.log_format, options.log_level),
    ).serve()


def _supervise(options: ServeOptions, sock: socket.socket) -> None:
    """Run ``options.workers`` worker processes until SIGINT or SIGTERM; replace any that dies."""
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def start() -> tuple[multiprocessing.process.BaseProcess, float]:
        process = context.Process(target=_worker, args=(options, sock), name="basra-worker")
        process.start()
        return process, time.monotonic()

    workers = [start() for _ in range(options.workers)]
    failed = False
    while not stop.wait(0.5):
        for index, (process, started) in enumerate(workers):
            if process.is_alive():
                continue
            if time.monotonic() - started < STARTUP_SECONDS:
                log.error("worker %s failed while starting; stopping", process.pid)
                failed = True
                stop.set()
                break
            log.warning("worker %s died (exit %s); starting another", process.pid, process.exitcode)
            if process.pid is not None:
                mark_process_dead(process.pid)  # its open feeds are no longer open
            workers[index] = start()
    for process, _ in workers:
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGTERM)
    for process, _ in workers:
        process.join(GRACEFUL_SHUTDOWN_SECONDS + 5)
        if process.is_alive():
            process.kill()
            process.join()
    if failed:
        raise ServeError("a worker could not start; see its log above")
