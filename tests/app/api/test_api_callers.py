"""Who is asking is resolved once, by the app's dependencies (app.api.edges.callers)."""

from __future__ import annotations

from pathlib import Path

import app.api

ROUTES = ("matches", "table", "players", "results", "verification", "live")

READS_ITS_OWN_CREDENTIAL = {"live/live.py"}
"""The live feed: its credential may come as a ticket or a query parameter (docs/api.md)."""


def test_no_route_reads_the_authorization_header_for_a_match_itself() -> None:
    # given every route module of the API
    root = Path(app.api.__file__).parent
    modules = [p for area in ROUTES for p in sorted((root / area).glob("*.py"))]
    assert len(modules) > len(ROUTES)
    # when each is read
    calling = [
        p.relative_to(root).as_posix()
        for p in modules
        if "authenticate(" in p.read_text(encoding="utf-8")
    ]
    # then none but the live feed authenticates a match's caller by hand
    assert set(calling) == READS_ITS_OWN_CREDENTIAL
