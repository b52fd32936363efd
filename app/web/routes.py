"""Routes of the web pages: ``/``, ``/play/{id}``, ``/replay/{id}``, ``/rules/{ruleset}``,
``/support`` and ``/assets/…``.

The pages are the same files for every match (the match id is read from the address by the
page's script), so each is read once and served from memory. None of these routes is in the
OpenAPI document: they are pages, not the API.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Final

from litestar import Response, get
from litestar.datastructures import CacheControlHeader
from litestar.handlers import BaseRouteHandler
from litestar.openapi.plugins import OpenAPIRenderPlugin, RedocRenderPlugin, SwaggerRenderPlugin
from litestar.params import FromPath
from litestar.router import Router
from litestar.static_files import create_static_files_router

HERE: Final = Path(__file__).parent
STATIC: Final = HERE / "static"
"""The pages, their scripts and styles."""
VENDOR: Final = HERE / "vendor"
"""Swagger UI and Redoc, for ``/schema``."""

ASSETS: Final = "/assets"
"""Where the static files are served (no API route starts with it)."""

_PAGE_HEADERS: Final = {
    "Cache-Control": "no-cache",
    # The pages load nothing from elsewhere: scripts, styles, images and the API are this origin.
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Referrer-Policy": "no-referrer",
}


@cache
def _page(name: str) -> bytes:
    """The HTML of one page, read once."""
    return (STATIC / name).read_bytes()


def _html(name: str) -> Response[bytes]:
    return Response(_page(name), media_type="text/html", headers=_PAGE_HEADERS)


@get("/", include_in_schema=False, sync_to_thread=False)
def lobby_page() -> Response[bytes]:
    """The lobby: players, open tables, a new table, practice, the ladder and profiles."""
    return _html("index.html")


@get("/play/{match_id:str}", include_in_schema=False, sync_to_thread=False)
def table_page(match_id: FromPath[str]) -> Response[bytes]:
    """The table of one match, for its seats (and anyone watching a public table)."""
    del match_id  # read by the page's script from the address
    return _html("play.html")


@get("/replay/{match_id:str}", include_in_schema=False, sync_to_thread=False)
def replay_page(match_id: FromPath[str]) -> Response[bytes]:
    """The replay viewer of one match: any seq, as the public, a seat or support sees it."""
    del match_id
    return _html("replay.html")


@get("/rules/{ruleset:str}", include_in_schema=False, sync_to_thread=False)
def rules_page(ruleset: FromPath[str]) -> Response[bytes]:
    """The rules of one rule set in words, built from its own facts (``GET /rulesets/{name}``)."""
    del ruleset  # read by the page's script from the address
    return _html("rules.html")


@get("/support", include_in_schema=False, sync_to_thread=False)
def support_page() -> Response[bytes]:
    """The support console (its data comes from ``/support/...`` with the console's cookie)."""
    return _html("support.html")


_ASSET_CACHE: Final = CacheControlHeader(max_age=300, public=True)

WEB_ROUTES: Final[Sequence[BaseRouteHandler | Router]] = (
    lobby_page,
    table_page,
    replay_page,
    rules_page,
    support_page,
    create_static_files_router(
        f"{ASSETS}/vendor", [VENDOR], name="vendor", cache_control=_ASSET_CACHE
    ),
    create_static_files_router(ASSETS, [STATIC], name="assets", cache_control=_ASSET_CACHE),
)
"""Every route of the web pages, for the app's ``route_handlers``."""

_FAVICON: Final = (
    f"<link rel='icon' type='image/png' href='{ASSETS}/vendor/swagger-ui/favicon-32x32.png'>"
)


def schema_render_plugins() -> list[OpenAPIRenderPlugin]:
    """``/schema`` (Swagger UI) and ``/schema/redoc`` on the vendored files: no CDN, no font."""
    swagger = f"{ASSETS}/vendor/swagger-ui"
    return [
        SwaggerRenderPlugin(
            path="/",
            js_url=f"{swagger}/swagger-ui-bundle.js",
            css_url=f"{swagger}/swagger-ui.css",
            standalone_preset_js_url=f"{swagger}/swagger-ui-standalone-preset.js",
            favicon=_FAVICON,
        ),
        RedocRenderPlugin(
            path="/redoc",
            js_url=f"{ASSETS}/vendor/redoc/redoc.standalone.js",
            google_fonts=False,
            favicon=_FAVICON,
        ),
    ]
