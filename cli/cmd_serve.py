"""``basra serve``: the HTTP API (docs/api.md) under uvicorn or granian, on SQLite or PostgreSQL.

The store is a SQLite file (``--db``, one process) or a PostgreSQL database
(``--database-url``, one or several worker processes); docs/cli.md lists every option.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli.common import DbOption, app, echo_err, handles_errors


@app.command()
@handles_errors
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    db: DbOption = None,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="PostgreSQL URL (default: $BASRA_DATABASE_URL); overrides --db.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes (more than one needs PostgreSQL).")
    ] = 1,
    access_log: Annotated[bool, typer.Option(help="Log every request line on stdout.")] = False,
    server: Annotated[
        str, typer.Option(help="ASGI server: uvicorn, or granian when it is installed.")
    ] = "uvicorn",
) -> None:
    """Serve the HTTP API until interrupted (OpenAPI and a browsable page at /schema)."""
    from app.api.server import ServeOptions, describe, serve_until_stopped
    from app.config import StoreConfig

    options = ServeOptions(
        host=host,
        port=port,
        db=db,
        database_url=database_url,
        workers=workers,
        access_log=access_log,
        server=server,
    )

    def announce(config: StoreConfig) -> None:
        echo_err(
            f"basra API on http://{host}:{port} ({server}, {workers} worker(s)), {describe(config)}"
        )

    serve_until_stopped(options, announce)
