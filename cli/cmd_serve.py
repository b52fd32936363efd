"""``basra serve``: the HTTP API (docs/api.md) under uvicorn or granian, on SQLite or PostgreSQL.

The store is a SQLite file (``--db``, one process) or a PostgreSQL database
(``--database-url``, one or several worker processes); docs/cli.md lists every option.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from cli.common import DbOption, app, echo_err, handles_errors
from cli.errors import InvalidOptionError


def _access_settings(
    cors_origins: list[str], trusted_proxies: list[str], rate_limits: list[str]
) -> str:
    """Put the options into the environment every server process reads, checked; a summary.

    An option given replaces its variable (``BASRA_CORS_ORIGINS``, ``BASRA_TRUSTED_PROXIES``);
    ``--rate-limit`` items apply over ``BASRA_RATE_LIMITS``'s.
    """
    from app.api.edges.client_address import parse_proxies, too_wide
    from app.api.settings import ApiSettings

    given = {
        "BASRA_CORS_ORIGINS": " ".join(cors_origins),
        "BASRA_TRUSTED_PROXIES": " ".join(trusted_proxies),
        "BASRA_RATE_LIMITS": " ".join([os.environ.get("BASRA_RATE_LIMITS", ""), *rate_limits]),
    }
    given = {name: value.strip() for name, value in given.items() if value.strip()}
    try:
        settings = ApiSettings.from_env(os.environ | given)
        parse_proxies(settings.trusted_proxies)
        for origin in settings.cors_origins:
            _check_origin(origin)
    except ValueError as error:
        raise InvalidOptionError(str(error)) from None
    os.environ.update(given)  # checked: now for this process and the workers it starts
    origins = ", ".join(settings.cors_origins) or "none"
    proxies = ", ".join(settings.trusted_proxies) or "none"
    limits = settings.limits.describe()
    summary = f"CORS origins: {origins}; trusted proxies: {proxies}; limits: {limits}"
    wide = too_wide(parse_proxies(settings.trusted_proxies))
    if wide:
        summary += (
            f"\nwarning: --trusted-proxy {', '.join(map(str, wide))} trusts every address:"
            " any client can then choose the address its limits are counted under by sending"
            " X-Forwarded-For; name your proxies' addresses instead"
        )
    return summary


def _clock_settings(turn_seconds: int | None, waiting_minutes: float | None) -> str:
    """Put the clock's options into the environment every server process reads; a summary.

    ``--turn-seconds`` replaces ``BASRA_TURN_SECONDS`` and ``--waiting-minutes``
    ``BASRA_WAITING_MINUTES``; both are checked before any process starts.
    """
    from app.api.settings import ApiSettings

    given = {}
    if turn_seconds is not None:
        given["BASRA_TURN_SECONDS"] = str(turn_seconds)
    if waiting_minutes is not None:
        given["BASRA_WAITING_MINUTES"] = repr(waiting_minutes)
    try:
        settings = ApiSettings.from_env(os.environ | given)
    except ValueError as error:
        raise InvalidOptionError(str(error)) from None
    os.environ.update(given)
    return (
        f"turn clock: {settings.turn_seconds} s a turn unless a table sets its own; "
        f"waiting tables closed after {settings.waiting_minutes:g} min"
    )


def _check_origin(origin: str) -> None:
    """An origin is ``scheme://host[:port]`` with nothing after it."""
    scheme, sep, rest = origin.partition("://")
    if scheme not in ("http", "https") or not sep or not rest or "/" in rest:
        raise ValueError(f"a CORS origin is written https://host[:port], not {origin!r}")


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
    log_format: Annotated[
        str,
        typer.Option(
            "--log-format",
            help="text (the server's own lines) or json (one JSON line per record on stderr, "
            "a line per request with its request id; never a token).",
        ),
    ] = "text",
    server: Annotated[
        str, typer.Option(help="ASGI server: uvicorn, or granian when it is installed.")
    ] = "uvicorn",
    http: Annotated[
        str,
        typer.Option(
            help="uvicorn's HTTP parser: auto (httptools, in C, when installed), httptools or "
            "h11 (pure Python).",
        ),
    ] = "auto",
    loop: Annotated[
        str,
        typer.Option(
            help="Event loop: auto (uvloop when installed), uvloop or asyncio (the standard "
            "library's).",
        ),
    ] = "auto",
    cors_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--cors-origin",
            help="A browser origin allowed to call the API, e.g. https://play.example "
            "(repeatable; default $BASRA_CORS_ORIGINS, else none).",
            show_default=False,
        ),
    ] = None,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help="A proxy address or CIDR range whose X-Forwarded-For is believed "
            "(repeatable; default $BASRA_TRUSTED_PROXIES, else none).",
            show_default=False,
        ),
    ] = None,
    rate_limit: Annotated[
        list[str] | None,
        typer.Option(
            "--rate-limit",
            help="A limit per client address, NAME=COUNT/UNIT or NAME=off (repeatable, over "
            "$BASRA_RATE_LIMITS; defaults players=20/hour, matches=60/minute, "
            "wrong_tokens=20/minute, feeds=32 open at once).",
            show_default=False,
        ),
    ] = None,
    turn_seconds: Annotated[
        int | None,
        typer.Option(
            "--turn-seconds",
            help="Seconds a person has for a turn at tables created without their own "
            "turn_seconds, 1-600 (default $BASRA_TURN_SECONDS, else 120; R25; a table's own "
            "is 5-600).",
            show_default=False,
        ),
    ] = None,
    waiting_minutes: Annotated[
        float | None,
        typer.Option(
            "--waiting-minutes",
            help="Minutes a table may wait for players before it is closed as abandoned; "
            "fractions allowed (default $BASRA_WAITING_MINUTES, else 30).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the HTTP API until interrupted (OpenAPI and a browsable page at /schema)."""
    from app.api.server import ServeOptions, describe, serve_until_stopped
    from app.config import StoreConfig

    if log_format not in ("text", "json"):
        raise InvalidOptionError(f"--log-format is text or json, not {log_format!r}")
    access = _access_settings(cors_origin or [], trusted_proxy or [], rate_limit or [])
    clock = _clock_settings(turn_seconds, waiting_minutes)

    options = ServeOptions(
        host=host,
        port=port,
        db=db,
        database_url=database_url,
        workers=workers,
        access_log=access_log,
        server=server,
        log_format=log_format,
        http=http,
        loop=loop,
    )

    def announce(config: StoreConfig) -> None:
        echo_err(
            f"basra API on http://{host}:{port} ({server}, {workers} worker(s)), {describe(config)}"
        )
        echo_err(access)
        echo_err(clock)
        echo_err(f"lobby: http://{host}:{port}/ (the web table and the replay viewer, docs/web.md)")

    serve_until_stopped(options, announce)
