"""The web pages served by the API itself: the lobby, the table and the replay viewer.

Static HTML, CSS and JavaScript modules (no build step) in ``static/``; the documentation
viewers' files for ``/schema`` in ``vendor/``. Nothing here reads the store: the pages call the
HTTP API from the browser like any other client (docs/web.md).
"""

from app.web.routes import WEB_ROUTES, schema_render_plugins

__all__ = ["WEB_ROUTES", "schema_render_plugins"]
