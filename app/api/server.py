"""Running the API under uvicorn: one process, or several workers sharing one listening socket.

Several workers need PostgreSQL (each is a separate process with its own connections; the
embedded SQLite file is for one process). DESIGN pitfall 11: uvicorn's own ``--workers`` binds
its socket without ``IPPROTO_TCP``, so accepted connections lose ``TCP_NODELAY`` and every
keep-alive request waits ~40 ms for a delayed ACK. Here the socket is bound with the protocol
set, then handed to uvicorn's supervisor, so every worker's connections keep ``TCP_NODELAY``.
The store is opened once before any worker starts, so a fresh SQLite file or PostgreSQL schema
is created by one process only.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from litestar import Litestar
from uvicorn.supervisors import Multiprocess

from app.api.app import create_app
from app.config import StoreConfig, resolve_store
from app.service import MatchService

GRACEFUL_SHUTDOWN_SECONDS = 3
"""How long a stopping server waits for open requests (live streams are then closed)."""


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


class ServeError(ValueError):
    """The server cannot start as asked."""


def app_from_env() -> Litestar:
    """The app a worker process builds: the store from ``BASRA_DB`` / ``BASRA_DATABASE_URL``."""
    db = os.environ.get("BASRA_DB")
    return create_app(db=Path(db) if db else None)


def prepare_store(options: ServeOptions) -> StoreConfig:
    """Resolve the store and open it once (creating file or tables) before serving."""
    config = resolve_store(options.db, options.database_url)
    if options.workers > 1 and config.kind != "postgres":
        raise ServeError(
            "several workers need PostgreSQL (BASRA_DATABASE_URL or --database-url); "
            "the embedded SQLite store serves one process"
        )
    MatchService.open(options.db, options.database_url).close()
    return config


def describe(config: StoreConfig) -> str:
    """The store, for the start-up message (never a password)."""
    if config.kind == "postgres" and config.postgres is not None:
        return config.postgres.describe()
    if config.kind == "sqlite" and config.sqlite_path is not None:
        return f"SQLite {config.sqlite_path} (synchronous={config.synchronous})"
    return config.kind


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound with ``IPPROTO_TCP``, so accepted connections get ``TCP_NODELAY``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.set_inheritable(True)
    return sock


def serve_until_stopped(
    options: ServeOptions, announce: Callable[[StoreConfig], None] | None = None
) -> None:
    """Serve until interrupted; ``announce`` hears which store once it is ready."""
    config = prepare_store(options)
    if announce is not None:
        announce(config)
    common = {
        "host": options.host,
        "port": options.port,
        "access_log": options.access_log,
        "log_level": options.log_level,
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS,
        "lifespan": "on",
    }
    if options.workers <= 1:
        app = create_app(db=options.db, database_url=options.database_url)
        uvicorn.Server(uvicorn.Config(app, **common)).run()  # type: ignore[arg-type]
        return
    # Workers build their own app from the environment (they are spawned, not forked).
    if options.db is not None:
        os.environ["BASRA_DB"] = str(options.db)
    if options.database_url is not None:
        os.environ["BASRA_DATABASE_URL"] = options.database_url
    sock = listening_socket(options.host, options.port)
    uv_config = uvicorn.Config(
        "app.api.server:app_from_env", factory=True, workers=options.workers, **common  # type: ignore[arg-type]
    )
    Multiprocess(uv_config, sockets=[sock]).run()
