"""The page routes (``/play/{match_id}``, ``/replay/{match_id}``): the same HTML for any id,
which the page's script reads from the address."""

from __future__ import annotations

import subprocess
import sys

import pytest
from litestar import Litestar
from litestar.testing import TestClient


@pytest.mark.parametrize("page", ["play", "replay"])
def test_a_page_route_answers_its_html_for_any_match_id(
    client: TestClient[Litestar], page: str
) -> None:
    # Given a match id the server has never seen
    # When its page is asked for
    response = client.get(f"/{page}/m-never-made")
    # Then the page itself answers (the script asks the API about the match)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "m-never-made" not in response.text  # the id is never written into the page


def test_building_the_app_raises_no_deprecation_warning() -> None:
    # Given a fresh interpreter that turns every deprecation into an error
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "from app.web.routes import table_page, replay_page\n"
        "from litestar import Litestar\n"
        "Litestar(route_handlers=[table_page, replay_page])\n"
    )
    # When it builds an app of the page routes
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # Then nothing is deprecated (path parameters are declared, not inferred)
    assert result.returncode == 0, result.stderr
