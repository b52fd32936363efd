"""The HTTP API benchmark's baseline: a minimal Litestar app whose one handler appends one SQLite
row per request (``POST /append``, WAL, ``synchronous`` as the store's), served under the same
server and settings as ``basra serve --server NAME``.

    python -m bench.baseline_server --port PORT [--server uvicorn|granian]

with the file in ``BASRA_BENCH_BASELINE_DB``."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import threading
from typing import Any

from app.config import DEFAULT_SYNCHRONOUS
from bench.client import HOST


def baseline_app() -> Any:
    """A minimal Litestar app: ``POST /append`` inserts one row and commits (WAL, synchronous)."""
    from litestar import Litestar, get, post

    path = os.environ["BASRA_BENCH_BASELINE_DB"]
    synchronous = os.environ.get("BASRA_SQLITE_SYNCHRONOUS", DEFAULT_SYNCHRONOUS)
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    setup.commit()
    setup.close()
    local = threading.local()

    def connection() -> sqlite3.Connection:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(path, timeout=5, isolation_level=None)
            conn.execute(f"PRAGMA synchronous={synchronous}")
            local.conn = conn
        return conn

    @post("/append", sync_to_thread=True, status_code=200)
    def append(data: dict[str, Any]) -> dict[str, int]:
        conn = connection()
        conn.execute("BEGIN IMMEDIATE")
        cursor = conn.execute("INSERT INTO rows (body) VALUES (?)", (json.dumps(data),))
        conn.execute("COMMIT")
        return {"id": int(cursor.lastrowid or 0)}

    @get("/health", sync_to_thread=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return Litestar([append, health])


def serve_baseline(port: int, server_name: str) -> None:
    """Run the baseline under the same server and settings as ``basra serve --server NAME``."""
    import uvicorn

    from app.api.server import GRACEFUL_SHUTDOWN_SECONDS

    if server_name == "granian":
        from granian import Granian
        from granian.constants import Interfaces

        Granian(
            "bench.baseline_server:baseline_app",
            factory=True,
            address=HOST,
            port=port,
            interface=Interfaces.ASGI,
            workers=1,
            websockets=False,
            log_access=False,
            workers_kill_timeout=GRACEFUL_SHUTDOWN_SECONDS,
        ).serve()
        return
    config = uvicorn.Config(
        "bench.baseline_server:baseline_app",
        factory=True,
        host=HOST,
        port=port,
        access_log=False,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    uvicorn.Server(config).run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--server", default="uvicorn")
    options = parser.parse_args()
    serve_baseline(options.port, options.server)
